"""A chat over the WebSocket with the Simulated OpenAI Responses endpoint: the real ASGI stack, the service, the
database and the standalone simulator, through the openai SDK's ``responses`` resource."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from channels.db import database_sync_to_async

from playground.conversations.models import Conversation, Message, RoundTrip
from tests.chat.conftest import frames_until, of_type, open_chat, options
from tests.chat.saved import saved_round_trips

if TYPE_CHECKING:
    from django.contrib.auth.models import User

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]
Headers = Callable[["User"], list[tuple[bytes, bytes]]]
ENDPOINT = "Simulated OpenAI Responses"


@database_sync_to_async
def saved(conversation: Conversation) -> tuple[list[Message], list[RoundTrip], Conversation]:
    return (
        list(conversation.messages.order_by("position")),
        saved_round_trips(conversation),
        Conversation.objects.get(pk=conversation.pk),
    )


@database_sync_to_async
def chat_options(**overrides: object) -> dict[str, object]:
    return options(ENDPOINT, **overrides)


async def run_turn(
    conversation: Conversation, headers: list[tuple[bytes, bytes]], text: str, **overrides: object
) -> list[dict[str, Any]]:
    chat = await open_chat(conversation.pk, headers)
    snapshot = await chat.receive_json_from()
    assert snapshot["type"] == "snapshot" and snapshot["running"] is False
    await chat.send_json_to({"type": "send", "text": text, "options": await chat_options(**overrides)})
    frames = await frames_until(chat, "run.end")
    await chat.disconnect()
    return frames


@pytest.mark.parametrize("stream", [True, False])
async def test_a_builtin_tool_loop_runs_to_a_final_answer(
    conversation: Conversation, alice: User, headers_for: Headers, stream: bool
) -> None:
    text = '/call calculator {"expression": "6 * 7"}'
    frames = await run_turn(conversation, await database_sync_to_async(headers_for)(alice), text, stream=stream)
    starts = of_type(frames, "rt.start")
    assert len(starts) == 2 and all(s["wire_request"]["url"].endswith("/sim/openai/v1/responses") for s in starts)
    assert starts[0]["request"]["messages"][-1] == {"role": "user", "content": text}
    if stream:
        deltas = [f for f in of_type(frames, "rt.delta") if f["kind"] == "tool_call_delta"]
        assert len(deltas) >= 2, "arguments stream in fragments"
    [result] = of_type(frames, "tool.result")
    assert json.loads(result["content"])["result"] == 42 and result["source"] == "builtin:calculator"
    assert frames[-1] == {"type": "run.end", "status": "done", "message": "The model finished."}
    messages, round_trips, fresh = await saved(conversation)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert "42" in messages[-1].data["content"] and fresh.status == "done" and fresh.format == "openai-responses"
    assert [rt.complete for rt in round_trips] == [True, True] and round_trips[0].wire_events
    first, second = (rt.wire_request["body"] for rt in round_trips)
    assert first["tools"][0]["type"] == "function" and "name" in first["tools"][0], "flat Responses tools"
    call = messages[1].data["tool_calls"][0]
    assert [item.get("type") for item in second["input"]] == [None, "function_call", "function_call_output"]
    assert second["input"][1]["call_id"] == second["input"][2]["call_id"] == call["id"]


async def test_reasoning_items_go_back_with_the_tool_results(
    conversation: Conversation, alice: User, headers_for: Headers
) -> None:
    text = 'What is the weather?\n/call get_weather {"city": "Oslo"}'
    frames = await run_turn(conversation, await database_sync_to_async(headers_for)(alice), text, reasoning=True)
    assert frames[-1]["status"] == "done"
    assert [f for f in of_type(frames, "rt.delta") if f["kind"] == "reasoning"], "reasoning is shown live"
    messages, round_trips, _ = await saved(conversation)
    [block] = messages[1].data["provider_data"]["blocks"]
    assert block["type"] == "reasoning" and block["encrypted_content"].startswith("gAAAAA")
    first, second = (rt.wire_request["body"] for rt in round_trips)
    assert first["store"] is False and first["include"] == ["reasoning.encrypted_content"]
    assert second["input"][1] == block and second["input"][2]["type"] == "function_call"
    assert round_trips[1].status_code == 200 and "Oslo" in messages[-1].data["content"]


async def test_a_rate_limit_ends_the_run_with_the_providers_error(
    conversation: Conversation, alice: User, headers_for: Headers
) -> None:
    frames = await run_turn(conversation, await database_sync_to_async(headers_for)(alice), "hi", model="sim-429")
    assert frames[-1]["type"] == "run.end" and frames[-1]["status"] == "error"
    assert "Rate limit reached for sim-429" in frames[-1]["message"] and "Retry after 1 s." in frames[-1]["message"]
    _, round_trips, fresh = await saved(conversation)
    assert fresh.status == "error" and round_trips[0].status_code == 429
