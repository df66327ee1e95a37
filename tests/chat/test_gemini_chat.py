"""A chat over the WebSocket with the Simulated Gemini endpoint: the real ASGI stack, the service, the database and
the standalone simulator, the codec's body posted by ``gemini_http`` to ``:streamGenerateContent?alt=sse``."""

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
ENDPOINT = "Simulated Gemini"


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


@pytest.mark.parametrize(("stream", "method"), [(True, ":streamGenerateContent?alt=sse"), (False, ":generateContent")])
async def test_a_builtin_tool_loop_runs_to_a_final_answer(
    conversation: Conversation, alice: User, headers_for: Headers, stream: bool, method: str
) -> None:
    text = '/call calculator {"expression": "6 * 7"}'
    frames = await run_turn(conversation, await database_sync_to_async(headers_for)(alice), text, stream=stream)
    starts = of_type(frames, "rt.start")
    assert len(starts) == 2
    assert all(s["wire_request"]["url"].endswith(f"/sim/gemini/v1beta/models/sim-1{method}") for s in starts)
    assert starts[0]["request"]["messages"][-1] == {"role": "user", "content": text}
    [result] = of_type(frames, "tool.result")
    assert json.loads(result["content"])["result"] == 42 and result["source"] == "builtin:calculator"
    assert frames[-1] == {"type": "run.end", "status": "done", "message": "The model finished."}
    messages, round_trips, fresh = await saved(conversation)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert "42" in messages[-1].data["content"] and fresh.status == "done" and fresh.format == "gemini"
    assert [rt.complete for rt in round_trips] == [True, True] and round_trips[0].wire_events
    first, second = (rt.wire_request["body"] for rt in round_trips)
    assert "functionDeclarations" in first["tools"][0] and "model" not in first
    call, response = second["contents"][1]["parts"][0], second["contents"][2]["parts"][0]
    assert call["functionCall"]["name"] == "calculator" and call["thoughtSignature"], "the signature goes back"
    assert response["functionResponse"]["name"] == "calculator"
    assert response["functionResponse"]["id"] == call["functionCall"]["id"] == messages[1].data["tool_calls"][0]["id"]
    assert all(rt.wire_request["headers"]["x-goog-api-key"] == "[redacted]" for rt in round_trips)


async def test_thoughts_stream_live_and_go_back_with_the_tool_results(
    conversation: Conversation, alice: User, headers_for: Headers
) -> None:
    text = 'What is the weather?\n/call get_weather {"city": "Oslo"}'
    frames = await run_turn(conversation, await database_sync_to_async(headers_for)(alice), text, reasoning=True)
    assert frames[-1]["status"] == "done"
    assert [f for f in of_type(frames, "rt.delta") if f["kind"] == "reasoning"], "thoughts are shown live"
    messages, round_trips, _ = await saved(conversation)
    [thought] = messages[1].data["provider_data"]["blocks"]
    assert thought["thought"] is True
    first, second = (rt.wire_request["body"] for rt in round_trips)
    assert first["generationConfig"]["thinkingConfig"] == {"includeThoughts": True}
    assert second["contents"][1]["parts"][0] == thought and "thoughtSignature" in second["contents"][1]["parts"][1]
    assert round_trips[1].status_code == 200 and "Oslo" in messages[-1].data["content"]


async def test_a_malformed_call_ends_the_run_with_an_error(
    conversation: Conversation, alice: User, headers_for: Headers
) -> None:
    headers = await database_sync_to_async(headers_for)(alice)
    frames = await run_turn(conversation, headers, "weather in Paris", model="sim-badjson")
    assert frames[-1]["type"] == "run.end" and frames[-1]["status"] == "error"
    assert "MALFORMED_FUNCTION_CALL" in frames[-1]["message"]
    assert of_type(frames, "tool.result") == [], "nothing is run"
    # The round trip says so itself, as any failed round trip does: its end frame (the live card), its saved row
    # (the pane and the transcript's card after a reload).
    [end] = of_type(frames, "rt.end")
    assert end["error"]["type"] == "invalid_response" and "MALFORMED_FUNCTION_CALL" in end["error"]["message"]
    assert "It said: Malformed function call: get_weather(" in end["error"]["message"], "what the model tried"
    messages, round_trips, fresh = await saved(conversation)
    assert [m.role for m in messages] == ["user"], "the model wrote nothing to keep"
    assert round_trips[0].error is not None and "MALFORMED_FUNCTION_CALL" in round_trips[0].error["message"]
    assert fresh.status == "error" and fresh.status_message == end["error"]["message"]


async def test_a_malformed_calls_error_card_stays_in_the_saved_transcript(
    conversation: Conversation, alice: User, headers_for: Headers, client: Any
) -> None:
    headers = await database_sync_to_async(headers_for)(alice)
    await run_turn(conversation, headers, "weather in Paris", model="sim-badjson")
    html = (await database_sync_to_async(client.get)(f"/c/{conversation.pk}/")).content.decode()
    transcript = html.split('id="transcript"', 1)[1].split('id="live"', 1)[0]
    assert 'data-testid="error"' in transcript
    assert "The model ended its answer with an error (MALFORMED_FUNCTION_CALL). It said: Malformed" in transcript


async def test_a_rate_limit_ends_the_run_with_the_providers_error(
    conversation: Conversation, alice: User, headers_for: Headers
) -> None:
    frames = await run_turn(conversation, await database_sync_to_async(headers_for)(alice), "hi", model="sim-429")
    assert frames[-1]["type"] == "run.end" and frames[-1]["status"] == "error"
    assert "You exceeded your current quota" in frames[-1]["message"] and "Retry after 1 s." in frames[-1]["message"]
    _, round_trips, fresh = await saved(conversation)
    assert fresh.status == "error" and round_trips[0].status_code == 429
