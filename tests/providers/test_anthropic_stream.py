"""Messages SSE streams: decoding recorded shapes into internal events, and encoding what the API sends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from providers import events as ev
from providers.anthropic import (
    AnthropicStreamState,
    decode_response,
    encode_response,
    encode_stream,
    new_stream_decoder,
)
from providers.errors import ProviderError
from providers.sse import SSEEvent, SSEParser
from providers.streaming import MessageAccumulator, StreamResult

FIXTURES = Path(__file__).parent / "fixtures" / "anthropic"


def _sse(name: str) -> list[SSEEvent]:
    parser = SSEParser()
    return [*parser.feed((FIXTURES / name).read_bytes()), *parser.close()]


def _decode(events: list[SSEEvent]) -> tuple[list[ev.Event], StreamResult]:
    decoder, acc = new_stream_decoder(), MessageAccumulator(format="anthropic")
    out: list[ev.Event] = []
    for event in events:
        out.extend(decoder.feed(event))
    out.extend(decoder.close())
    acc.extend(out)
    return out, acc.result()


def _event(payload: dict[str, Any]) -> SSEEvent:
    return SSEEvent(json.dumps(payload), payload["type"])


def _start(index: int, block: dict[str, Any]) -> SSEEvent:
    return _event({"type": "content_block_start", "index": index, "content_block": block})


def _delta(index: int, delta: dict[str, Any]) -> SSEEvent:
    return _event({"type": "content_block_delta", "index": index, "delta": delta})


def _stop(index: int) -> SSEEvent:
    return _event({"type": "content_block_stop", "index": index})


MESSAGE_START = _event(
    {"type": "message_start", "message": {"id": "msg_1", "model": "m", "content": [], "usage": {"input_tokens": 7}}}
)


# --- decoding ----------------------------------------------------------------------------------------------------


def test_text_and_two_parallel_calls() -> None:
    events, result = _decode(_sse("stream_text_two_tools.sse"))
    starts = [e for e in events if isinstance(e, ev.ToolCallStart)]
    assert starts == [
        ev.ToolCallStart(0, "toolu_015cXyPjM8bMjQ1vUu3wQ3Yv", "secret_retrieval_tool"),
        ev.ToolCallStart(1, "toolu_01XZqDh9bQ4Z2X7rGzGLtV3m", "secret_retrieval_tool", {"caller": {"type": "direct"}}),
    ]
    assert result.message["content"] == "I'll retrieve the secrets for both passwords."
    assert [c["function"]["arguments"] for c in result.message["tool_calls"]] == [
        '{"password": "mellon"}',
        '{"password": "radiance"}',
    ]
    assert result.message["tool_calls"][1]["provider_data"] == {
        "format": "anthropic",
        "fields": {"caller": {"type": "direct"}},
    }
    assert (result.finish_reason, result.raw_finish_reason, result.complete) == ("tool_calls", "tool_use", True)
    assert result.usage == {
        "prompt_tokens": 416,
        "completion_tokens": 109,
        "total_tokens": 525,
        "cached_tokens": 0,
        "cache_creation_tokens": 0,
    }


def test_block_indexes_map_to_tool_positions() -> None:
    decoder = new_stream_decoder()
    for event in _sse("stream_text_two_tools.sse"):
        decoder.feed(event)
    state = decoder.state
    assert isinstance(state, AnthropicStreamState)
    assert state.tool_positions == {1: 0, 2: 1}  # block 0 was text
    assert state.message_id == "msg_013zva2CMHLNnXjNJJKqJ2EF"
    assert state.start_usage["input_tokens"] == 416
    assert state.ended


def test_tool_positions_count_calls_even_without_block_indexes() -> None:
    events = [MESSAGE_START]
    for call_id in ("toolu_1", "toolu_2", "toolu_3"):
        events.append(
            _event({"type": "content_block_start", "content_block": {"type": "tool_use", "id": call_id, "name": "f"}})
        )
        events.append(_event({"type": "content_block_stop"}))
    _, result = _decode([*events, _event({"type": "message_stop"})])
    assert [call["id"] for call in result.message["tool_calls"]] == ["toolu_1", "toolu_2", "toolu_3"]


def test_argument_fragments_are_passed_on_raw() -> None:
    events, _ = _decode(_sse("stream_text_two_tools.sse"))
    fragments = [e.arguments for e in events if isinstance(e, ev.ToolCallDelta) and e.index == 0]
    assert fragments == ['{"passwo', 'rd": "mellon"}']


def test_thinking_with_signature_and_redacted_thinking() -> None:
    events, result = _decode(_sse("stream_thinking_tool.sse"))
    reasoning = [e.text for e in events if isinstance(e, ev.ReasoningDelta)]
    assert reasoning == ["The user wants the weather", " in Paris; call the tool."]
    assert result.message["provider_data"] == {
        "format": "anthropic",
        "blocks": [
            {
                "type": "thinking",
                "thinking": "The user wants the weather in Paris; call the tool.",
                "signature": "EtYDCkYIBxgCKkBmZXN0aW5nIHNpZ25hdHVyZQ==",
            },
            {"type": "redacted_thinking", "data": "EqkECkYIBxgCKkCredactedPayload"},
        ],
        "reasoning": "The user wants the weather in Paris; call the tool.",
    }
    assert result.message["tool_calls"][0]["function"] == {"name": "get_weather", "arguments": '{"city": "Paris"}'}
    assert [e.index for e in events if isinstance(e, ev.ToolCallStart)] == [0]


def test_the_thinking_block_is_emitted_when_it_stops() -> None:
    decoder = new_stream_decoder()
    events = [
        _start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        _delta(0, {"type": "thinking_delta", "thinking": "hm"}),
    ]
    assert [e for event in events for e in decoder.feed(event)] == [ev.ReasoningDelta("hm")]
    assert decoder.feed(_delta(0, {"type": "signature_delta", "signature": "sig"})) == []
    assert decoder.feed(_stop(0)) == [ev.ProviderBlock({"type": "thinking", "thinking": "hm", "signature": "sig"})]


def test_usage_from_message_start_survives_a_partial_message_delta() -> None:
    _, result = _decode(_sse("stream_thinking_tool.sse"))
    assert result.usage == {
        "prompt_tokens": 350,
        "completion_tokens": 87,
        "total_tokens": 437,
        "cached_tokens": 200,
        "cache_creation_tokens": 30,
    }


def test_message_delta_usage_is_authoritative_and_can_revise_input_tokens() -> None:
    ending = _event(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"input_tokens": 9, "output_tokens": 3},
        }
    )
    _, result = _decode([MESSAGE_START, ending, _event({"type": "message_stop"})])
    assert result.usage == {
        "prompt_tokens": 9,
        "completion_tokens": 3,
        "total_tokens": 12,
        "cached_tokens": 0,
        "cache_creation_tokens": 0,
    }


def test_a_call_without_arguments_sends_one_empty_fragment() -> None:
    events = [
        MESSAGE_START,
        _start(0, {"type": "tool_use", "id": "toolu_1", "name": "list_doors", "input": {}}),
        _delta(0, {"type": "input_json_delta", "partial_json": ""}),
        _stop(0),
        _event({"type": "message_stop"}),
    ]
    decoded, result = _decode(events)
    assert not [e for e in decoded if isinstance(e, ev.ToolCallDelta)]
    assert result.message["tool_calls"][0]["function"]["arguments"] == "{}"


def test_a_whole_input_in_the_block_start_is_used_when_no_fragment_follows() -> None:
    events = [MESSAGE_START, _start(0, {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}}), _stop(0)]
    _, result = _decode(events)
    assert result.message["tool_calls"][0]["function"]["arguments"] == '{"a":1}'


def test_pings_unknown_events_and_unknown_deltas_are_ignored() -> None:
    decoder = new_stream_decoder()
    decoder.feed(MESSAGE_START)
    decoder.feed(_start(0, {"type": "text", "text": ""}))
    assert decoder.feed(SSEEvent('{"type": "ping"}', "ping")) == []
    assert decoder.feed(SSEEvent('{"type": "brand_new_event", "x": 1}', "brand_new_event")) == []
    assert decoder.feed(_delta(0, {"type": "citations_delta", "citation": {"type": "char_location"}})) == []
    assert decoder.feed(_start(1, {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {}})) == []
    assert decoder.feed(_delta(1, {"type": "input_json_delta", "partial_json": '{"q"'})) == []
    assert decoder.feed(SSEEvent("", "ping")) == []


def test_the_event_type_comes_from_the_data_or_the_event_line() -> None:
    decoder = new_stream_decoder()
    assert decoder.feed(SSEEvent('{"type": "message_stop"}')) == [ev.StreamEnd()]
    assert new_stream_decoder().feed(SSEEvent("{}", "message_stop")) == [ev.StreamEnd()]


def test_a_mid_stream_error_is_a_retryable_stream_error() -> None:
    events, result = _decode(_sse("stream_overloaded.sse"))
    error = events[-1]
    assert isinstance(error, ev.StreamError)
    assert (error.error.type, error.error.message, error.error.retryable) == ("overloaded", "Overloaded", True)
    assert result.message["content"] == "Let me "
    assert (result.finish_reason, result.complete) == ("error", False)


def test_a_stream_that_stops_early_is_incomplete_and_closes_open_calls() -> None:
    events = [
        MESSAGE_START,
        _start(0, {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}),
        _delta(0, {"type": "input_json_delta", "partial_json": '{"a": '}),
    ]
    decoded, result = _decode(events)
    assert decoded[-1] == ev.ToolCallEnd(0)
    assert result.complete is False
    assert result.message["tool_calls"][0]["function"]["arguments"] == '{"a": '


def test_unreadable_data_is_an_invalid_response_error() -> None:
    (event,) = new_stream_decoder().feed(SSEEvent("{not json", "message_start"))
    assert isinstance(event, ev.StreamError)
    assert event.error.type == "invalid_response"


def test_thousands_of_fragments_are_passed_on_without_buffering() -> None:
    decoder = new_stream_decoder()
    decoder.feed(MESSAGE_START)
    decoder.feed(_start(0, {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}))
    fragment = _delta(0, {"type": "input_json_delta", "partial_json": "ab"})
    for _ in range(8000):
        assert decoder.feed(fragment) == [ev.ToolCallDelta(0, "ab")]
    opened = decoder.state.open[0]
    assert opened.thinking == [] and opened.got_input


# --- encoding ----------------------------------------------------------------------------------------------------


def _result() -> StreamResult:
    message: Any = {
        "role": "assistant",
        "content": "Checking the weather.",
        "tool_calls": [
            {"id": "toolu_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}},
            {"id": "toolu_2", "type": "function", "function": {"name": "list_doors", "arguments": "{}"}},
        ],
        "provider_data": {
            "format": "anthropic",
            "blocks": [
                {"type": "thinking", "thinking": "Weather, then doors.", "signature": "sig=="},
                {"type": "redacted_thinking", "data": "EqkE"},
            ],
            "reasoning": "Weather, then doors.",
        },
    }
    usage: Any = {
        "prompt_tokens": 30,
        "completion_tokens": 12,
        "total_tokens": 42,
        "cached_tokens": 5,
        "cache_creation_tokens": 0,
    }
    return StreamResult(message, "tool_calls", "tool_use", usage, None, True)


def _payloads(events: list[SSEEvent]) -> list[tuple[str | None, dict[str, Any]]]:
    return [(event.event, json.loads(event.data)) for event in events]


def test_encode_stream_sends_what_the_api_sends() -> None:
    events = _payloads(encode_stream(_result(), model="m", response_id="msg_9", fragment_size=8))
    assert all(name == payload["type"] for name, payload in events)
    names = [name for name, _ in events]
    assert names[:3] == ["message_start", "content_block_start", "ping"]
    assert names[-2:] == ["message_delta", "message_stop"]
    assert events[0][1]["message"] == {
        "id": "msg_9",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 25,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 5,
            "output_tokens": 1,
        },
    }
    assert events[-2][1] == {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {
            "input_tokens": 25,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 5,
            "output_tokens": 12,
        },
    }
    assert names.count("ping") == 1


def _block_events(events: list[tuple[str | None, dict[str, Any]]], index: int) -> list[dict[str, Any]]:
    return [p for _, p in events if p.get("index") == index]


def test_thinking_streams_its_text_then_one_signature_just_before_the_stop() -> None:
    events = _payloads(encode_stream(_result(), model="m", response_id="r", fragment_size=8))
    thinking = _block_events(events, 0)
    assert thinking[0]["content_block"] == {"type": "thinking", "thinking": "", "signature": ""}
    assert [p["delta"] for p in thinking[1:-1]] == [
        {"type": "thinking_delta", "thinking": "Weather,"},
        {"type": "thinking_delta", "thinking": " then do"},
        {"type": "thinking_delta", "thinking": "ors."},
        {"type": "signature_delta", "signature": "sig=="},
    ]
    assert thinking[-1] == {"type": "content_block_stop", "index": 0}
    redacted = _block_events(events, 1)
    assert [p["type"] for p in redacted] == ["content_block_start", "content_block_stop"]
    assert redacted[0]["content_block"] == {"type": "redacted_thinking", "data": "EqkE"}


def test_tool_use_starts_empty_then_sends_fragments() -> None:
    events = _payloads(encode_stream(_result(), model="m", response_id="r", fragment_size=5))
    call = _block_events(events, 3)
    assert call[0]["content_block"] == {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}
    assert [p["delta"]["partial_json"] for p in call[1:-1]] == ['{"cit', 'y":"P', 'aris"', "}"]
    no_args = _block_events(events, 4)
    assert [p["delta"] for p in no_args[1:-1]] == [{"type": "input_json_delta", "partial_json": ""}]


def test_every_encoded_event_has_its_event_line() -> None:
    for event in encode_stream(_result(), model="m", response_id="r"):
        assert event.encode().startswith(f"event: {event.event}\ndata: ".encode())


def test_encode_then_decode_a_stream_gives_the_same_result() -> None:
    result = _result()
    _, decoded = _decode(encode_stream(result, model="m", response_id="r", fragment_size=3))
    assert decoded == result


def test_a_stream_and_a_whole_response_decode_alike() -> None:
    result = _result()
    _, streamed = _decode(encode_stream(result, model="m", response_id="r"))
    assert decode_response(encode_response(result, model="m", response_id="r")) == streamed


def test_an_error_result_ends_with_an_error_event() -> None:
    result = _result()
    result.error = ProviderError("overloaded", "Overloaded", retryable=True)
    result.finish_reason, result.complete = "error", False
    events = _payloads(encode_stream(result, model="m", response_id="r"))
    assert events[-1] == ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    assert "message_stop" not in [name for name, _ in events]
    _, decoded = _decode(encode_stream(result, model="m", response_id="r"))
    assert (decoded.finish_reason, decoded.complete, decoded.error and decoded.error.type) == (
        "error",
        False,
        "overloaded",
    )


def test_an_incomplete_result_just_stops() -> None:
    result = StreamResult({"role": "assistant", "content": "Half"}, None, None, None, None, False)
    names = [event.event for event in encode_stream(result, model="m", response_id="r")]
    assert names == ["message_start", "content_block_start", "ping", "content_block_delta", "content_block_stop"]


def test_a_whole_number_beyond_64_bits_in_a_block_starts_input_stays_exact() -> None:
    big = -(2**64) - 3
    block = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"id": big}}
    _, result = _decode([MESSAGE_START, _start(0, block), _stop(0)])
    assert result.message["tool_calls"][0]["function"]["arguments"] == f'{{"id":{big}}}'
