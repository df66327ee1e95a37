"""Every tool-calling strategy run through the chat service against the simulator, on each wire format.

The run is the real one: ``start_turn`` saves the message and runs the tool loop in the background, the round trips
go over HTTP to the standalone simulator, and everything is read back from the database afterwards.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from channels.db import database_sync_to_async

from playground.chat.options import ChatOptions, parse_options
from playground.chat.service import start_turn
from playground.conversations.models import Conversation, Message, RoundTrip
from providers.events import TextDelta
from providers.formats import get_format
from providers.sse import SSEEvent
from tests.chat.conftest import options
from tests.chat.saved import saved_round_trips

if TYPE_CHECKING:
    from django.contrib.auth.models import User

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]

ENDPOINTS = {
    "openai-chat": "Simulated OpenAI",
    "openai-responses": "Simulated OpenAI Responses",
    "anthropic": "Simulated Anthropic",
    "gemini": "Simulated Gemini",
}
# Where each format's body carries the structured strategy's response format.
RESPONSE_FORMAT = {
    "openai-chat": lambda body: body["response_format"]["json_schema"]["schema"],
    "openai-responses": lambda body: body["text"]["format"]["schema"],
    "anthropic": lambda body: body["output_config"]["format"]["schema"],
    "gemini": lambda body: body["generationConfig"]["responseJsonSchema"],
}
ALL = [(fmt, strategy) for fmt in ENDPOINTS for strategy in ("native", "strict", "structured", "prompted")]
FROM_TEXT = ("structured", "prompted")


async def run_turn(conversation: Conversation, fmt: str, text: str, **overrides: Any) -> Conversation:
    overrides.setdefault("tools", ["get_weather", "calculator"])
    settings = await database_sync_to_async(options)(ENDPOINTS[fmt], **overrides)
    fresh = await Conversation.objects.select_related("team").aget(pk=conversation.pk)
    run = (await start_turn(conversation=fresh, text=text, options=ChatOptions(**settings))).run
    assert run.task is not None
    await run.task
    return await Conversation.objects.aget(pk=conversation.pk)


@database_sync_to_async
def saved(conversation: Conversation) -> tuple[list[Message], list[RoundTrip]]:
    return list(conversation.messages.order_by("position")), saved_round_trips(conversation)


def wire_text(round_trip: RoundTrip) -> str:
    """The reply text as the raw events carry it (the codec decodes them again): what the calls were read from."""
    decoder = get_format(round_trip.format).new_stream_decoder()
    events = [e for raw in round_trip.wire_events for e in decoder.feed(SSEEvent(raw["data"], raw.get("event")))]
    return "".join(event.text for event in events if isinstance(event, TextDelta))


@pytest.mark.parametrize(("fmt", "strategy"), ALL)
async def test_parallel_calls_are_answered_and_the_model_finishes(
    conversation: Conversation, alice: User, fmt: str, strategy: str
) -> None:
    done = await run_turn(conversation, fmt, "What is the weather in Paris and Tokyo?", strategy=strategy)
    assert done.status == "done", done.status_message
    messages, round_trips = await saved(conversation)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "tool", "assistant"]
    calls = messages[1].data["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["get_weather", "get_weather"]
    assert [json.loads(c["function"]["arguments"])["city"] for c in calls] == ["Paris", "Tokyo"]
    assert len({c["id"] for c in calls}) == 2
    assert not any(m.data.get("is_error") for m in messages[2:4]), "both calls were valid and answered"
    assert "Paris" in messages[-1].data["content"] and "Tokyo" in messages[-1].data["content"]
    first, second = round_trips
    said = any(note.startswith(f"tool-calling strategy: {strategy}") for note in first.notes)
    assert said is (strategy != "native"), "native, the default, changes nothing and says nothing"
    assert first.request["tools"], "the internal request keeps the tools as defined"
    body = first.wire_request["body"]
    if strategy in FROM_TEXT:
        assert "tools" not in body
        assert messages[1].meta == {"strategy": strategy}
        assert "get_weather" in wire_text(first), "the raw events hold the reply text the calls were read from"
    else:
        assert body["tools"] and messages[1].meta == ({} if strategy == "native" else {"strategy": "strict"})
    if strategy == "structured":
        schema = RESPONSE_FORMAT[fmt](body)
        assert schema["properties"]["reply"]["anyOf"], "the envelope: a call or a final answer"
        assert '"reply"' in wire_text(first)
    if strategy == "prompted":
        assert "```tool_call" in wire_text(first)
        history = json.dumps(second.wire_request["body"])
        assert "Result of get_weather" in history, "the results went back as text the model reads"
        assert "tools" not in second.wire_request["body"]


@pytest.mark.parametrize(("fmt", "strategy"), ALL)
async def test_a_final_answer_without_calls(conversation: Conversation, alice: User, fmt: str, strategy: str) -> None:
    done = await run_turn(conversation, fmt, "/text Nothing to look up, thanks.", strategy=strategy)
    assert done.status == "done", done.status_message
    messages, round_trips = await saved(conversation)
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[1].data["content"] == "Nothing to look up, thanks."
    assert "tool_calls" not in messages[1].data
    assert len(round_trips) == 1


@pytest.mark.parametrize(("fmt", "strategy"), [(f, s) for f, s in ALL if s in ("native", "prompted")])
async def test_invalid_arguments_go_back_as_an_error_and_the_model_corrects_them(
    conversation: Conversation, alice: User, fmt: str, strategy: str
) -> None:
    done = await run_turn(conversation, fmt, "Weather in Oslo?", strategy=strategy, model="sim-sloppy")
    assert done.status == "done", done.status_message
    messages, round_trips = await saved(conversation)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    first, retry = messages[2], messages[4]
    assert first.data["is_error"] and "Invalid arguments for get_weather" in first.data["content"]
    assert not retry.data.get("is_error") and retry.meta["attempt"] == 2
    assert json.loads(messages[3].data["tool_calls"][0]["function"]["arguments"])["city"] == "Oslo"
    if strategy == "prompted":
        # The slips were repaired on reading (and said so); the misspelt key is what the schema check caught.
        first_try = json.loads(messages[1].data["tool_calls"][0]["function"]["arguments"])
        assert first_try["City"] == "Oslo" and "city" not in first_try
        notes = " ".join(round_trips[0].notes)
        assert "single quotes" in notes or "single-quoted" in notes
        assert "trailing comma" in notes
        assert "Result of get_weather" in json.dumps(round_trips[1].wire_request["body"])


async def test_auto_falls_back_to_prompted_when_the_model_refuses_tools(
    conversation: Conversation, alice: User
) -> None:
    done = await run_turn(conversation, "openai-chat", "Weather in Lima?", model="sim-no-tools", strategy="auto")
    assert done.status == "done", done.status_message
    messages, round_trips = await saved(conversation)
    refused, retried, final = round_trips
    assert refused.status_code == 400 and "does not support tools" in refused.error["message"]
    assert retried.notes[0].startswith("native refused by the provider (")
    assert retried.notes[0].endswith("retried with the prompted strategy")
    assert "tools" not in retried.wire_request["body"] and retried.complete
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[1].meta == {"strategy": "prompted"}
    assert "Lima" in messages[-1].data["content"] and final.complete


async def test_auto_picks_prompted_for_a_model_the_table_says_has_no_tools(
    conversation: Conversation, alice: User
) -> None:
    done = await run_turn(conversation, "anthropic", "Weather in Quito?", model="sim-prompted", strategy="auto")
    assert done.status == "done", done.status_message
    messages, round_trips = await saved(conversation)
    assert "tool-calling strategy: prompted. auto:" in round_trips[0].notes[0]
    assert messages[1].data["content"] == "I'll use a tool for that.", "the text around the call stays text"
    assert messages[1].data["tool_calls"][0]["function"]["name"] == "get_weather"


@pytest.mark.parametrize("fmt", ["openai-chat", "openai-responses"])
async def test_strict_structured_output_nulls_are_dropped_for_the_tool(
    conversation: Conversation, alice: User, fmt: str
) -> None:
    text = '/call get_weather {"city": "Rome"}'
    done = await run_turn(conversation, fmt, text, model="sim-strict", strategy="structured")
    assert done.status == "done", done.status_message
    messages, round_trips = await saved(conversation)
    [sent] = json.loads(wire_text(round_trips[0]))["reply"]["calls"]
    assert sent["arguments"] == {"city": "Rome", "unit": None}, "strict: every key sent, null for the left-out one"
    arguments = json.loads(messages[1].data["tool_calls"][0]["function"]["arguments"])
    assert arguments == {"city": "Rome"}, "the null standing for the left-out optional unit is dropped"
    assert not messages[2].data.get("is_error")


def test_the_option_is_validated_and_defaults_to_auto() -> None:
    base = {"endpoint_id": 1, "model": "sim-1"}
    parsed, errors = parse_options(base)
    assert parsed is not None and parsed.strategy == "auto" and not errors
    parsed, errors = parse_options({**base, "strategy": "prompted"})
    assert parsed is not None and parsed.strategy == "prompted"
    parsed, errors = parse_options({**base, "strategy": "telepathy"})
    assert parsed is None and "strategy" in errors
