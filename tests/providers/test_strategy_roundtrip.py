"""The round-trip layer of the strategies: the request rewritten before the codec, the reply text read back into
tool-call events while it streams, and ``RoundTripRun`` doing both against the in-process simulator."""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx2
import pytest

from providers import events as ev
from providers.client import Endpoint, RequestSent, RoundTripRun, WireEvent
from providers.simulator.app import create_server_app
from providers.strategies.apply import apply_strategy
from providers.strategies.reader import ReplyReader, finish_message
from providers.strategies.wire import apply_response_format, read_response_format
from providers.streaming import fold
from providers.types import ChatRequest

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    "required": ["city"],
}
WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA}}
BASES = {
    "openai-chat": "http://sim/sim/openai/v1",
    "openai-responses": "http://sim/sim/openai/v1",
    "anthropic": "http://sim/sim/anthropic",
    "gemini": "http://sim/sim/gemini",
}


def request(model: str = "sim-1", text: str = "What is the weather in Paris and Tokyo?", **extra: Any) -> ChatRequest:
    base: dict[str, Any] = {"model": model, "stream": True, "max_tokens": 512, "tools": [WEATHER]}
    return {**base, "messages": [{"role": "user", "content": text}], **extra}  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("fmt", "model", "strict", "expected"),
    [
        ("openai-chat", "gpt-4o", True, "strict"),
        ("openai-chat", "gpt-4o", False, "native"),
        ("anthropic", "claude-sonnet-4", False, "native"),
        ("gemini", "gemma-3-27b-it", False, "prompted"),
        ("openai-chat", "sim-prompted", False, "prompted"),
    ],
)
def test_auto_is_resolved_from_the_capability_table(fmt: str, model: str, strict: bool, expected: str) -> None:
    tool = {"type": "function", "function": {**WEATHER["function"], "strict": strict}}
    applied = apply_strategy(fmt, request(model, tools=[tool]), "auto")
    assert applied.strategy == expected
    if expected == "native":
        assert applied.notes == [], "nothing changed, nothing said"
    else:
        assert applied.notes[0].startswith(f"tool-calling strategy: {expected}. auto:")


def test_the_request_is_rewritten_and_the_original_left_alone() -> None:
    original = request()
    kept = copy.deepcopy(original)
    prompted = apply_strategy("openai-chat", original, "prompted")
    structured = apply_strategy("openai-chat", original, "structured")
    strict = apply_strategy("openai-chat", original, "strict")
    assert original == kept
    assert "tools" not in prompted.request and "tool_call" in prompted.request["messages"][0]["content"]
    assert prompted.response_format is None and prompted.tools == ("get_weather",)
    assert "tools" not in structured.request and "response_format" not in structured.request
    assert structured.response_format is not None and structured.response_format["json_schema"]["strict"] is True
    [tool] = strict.request["tools"]
    assert tool["function"]["strict"] is True and tool["function"]["parameters"]["additionalProperties"] is False
    assert any("strict: true set on 1 tool" in note for note in strict.notes)
    assert apply_strategy("openai-chat", request(tools=[]), "prompted").strategy == "native", "nothing to offer"
    with pytest.raises(ValueError, match="unknown strategy"):
        apply_strategy("openai-chat", original, "telepathy")


@pytest.mark.parametrize("fmt", list(BASES))
def test_each_format_gets_the_response_format_where_its_api_reads_it(fmt: str) -> None:
    applied = apply_strategy(fmt, request(), "structured")
    assert applied.response_format is not None
    body: dict[str, Any] = {"generationConfig": {"temperature": 0.5}} if fmt == "gemini" else {}
    notes = apply_response_format(fmt, body, applied.response_format)
    assert notes and "response format sent as" in notes[0]
    found = read_response_format(body)
    assert found is not None and found["schema"] == applied.response_format["json_schema"]["schema"]
    if fmt == "gemini":
        assert body["generationConfig"]["temperature"] == 0.5 and body["generationConfig"]["responseMimeType"]


def prompted_reader() -> ReplyReader:
    return ReplyReader(apply_strategy("openai-chat", request(), "prompted"), response_id="r1")


def test_prompted_text_becomes_call_events_and_the_calls_end_before_the_finish() -> None:
    reply = 'Checking.\n\n```tool_call\n{"name": "get_weather", "arguments": {"city": "Paris",}}\n```'
    reader = prompted_reader()
    events = [e for char in reply for e in reader.feed([ev.TextDelta(char)])]
    events += reader.feed([ev.Finish("stop", "stop"), ev.StreamEnd()])
    kinds = [e.kind for e in events]
    assert kinds.count("tool_call_start") == 1 and kinds.count("tool_call_delta") > 1, "arguments stream"
    assert kinds.index("tool_call_end") < kinds.index("finish")
    result = fold(events)
    assert result.message["content"] == "Checking." and result.finish_reason == "tool_calls"
    [call] = result.message["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == {"city": "Paris"}
    assert any("trailing comma" in note for note in reader.notes())


def test_native_events_pass_unchanged() -> None:
    reader = ReplyReader(apply_strategy("openai-chat", request(), "native"))
    events: list[ev.Event] = [ev.TextDelta("```tool_call\n{}"), ev.Finish("stop", "stop")]
    assert reader.feed(events) == events and reader.close() == [] and reader.notes() == []


def test_a_reply_that_is_no_envelope_is_kept_as_text_and_said_so() -> None:
    reader = ReplyReader(apply_strategy("openai-chat", request(), "structured"), response_id="r1")
    events = reader.feed([ev.TextDelta("Sorry, I can only talk."), ev.StreamEnd()])
    assert fold(events).message["content"] == "Sorry, I can only talk."
    assert any("not a valid envelope" in note for note in reader.notes())


def test_nulls_of_a_strict_reply_are_dropped_where_the_tool_has_an_optional_property() -> None:
    applied = apply_strategy("openai-chat", request(), "structured")
    call = {
        "id": "c",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":"Rome","unit":null}'},
    }
    message = finish_message({"role": "assistant", "content": None, "tool_calls": [call]}, applied)  # type: ignore[list-item]
    assert json.loads(message["tool_calls"][0]["function"]["arguments"]) == {"city": "Rome"}
    native = apply_strategy("openai-chat", request(), "native")
    unchanged = {"role": "assistant", "content": None, "tool_calls": [call]}
    assert finish_message(unchanged, native) is unchanged  # type: ignore[arg-type]


@pytest.mark.parametrize("fmt", list(BASES))
@pytest.mark.parametrize("strategy", ["structured", "prompted"])
async def test_a_run_streams_calls_made_from_text_while_the_wire_keeps_the_text(fmt: str, strategy: str) -> None:
    updates: list[object] = []

    async def emit(update: object) -> None:
        updates.append(update)

    endpoint = Endpoint(fmt, BASES[fmt], "key", transport=httpx2.ASGITransport(app=create_server_app()))
    run = RoundTripRun(endpoint, request(), emit, strategy)  # type: ignore[arg-type]
    round_trip = await run.run()
    [sent] = [u for u in updates if isinstance(u, RequestSent)]
    assert sent.strategy == strategy == run.used_strategy and sent.request == request()
    deltas = [u for u in updates if isinstance(u, ev.ToolCallDelta)]
    assert len({d.index for d in deltas}) == 2 and len(deltas) > 2, "two calls, their arguments in fragments"
    wire = "".join(u.data for u in updates if isinstance(u, WireEvent))
    # The provider sent text only: no native call of any format is on the wire.
    assert not any(name in wire for name in ('"tool_calls"', '"tool_use"', '"functionCall"', '"function_call"'))
    calls = round_trip.result.message["tool_calls"]
    assert [json.loads(c["function"]["arguments"])["city"] for c in calls] == ["Paris", "Tokyo"]
    assert round_trip.request == request() and round_trip.result.finish_reason == "tool_calls"
