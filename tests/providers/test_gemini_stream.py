"""Gemini SSE streams: decoding recorded shapes into internal events, and encoding what the API sends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from providers import events as ev
from providers.errors import ProviderError
from providers.gemini import GeminiStreamState, decode_response, encode_response, encode_stream, new_stream_decoder
from providers.gemini.wire import synthetic_call_id
from providers.sse import SSEEvent, SSEParser
from providers.streaming import MessageAccumulator, StreamResult

FIXTURES = Path(__file__).parent / "fixtures" / "gemini"
NAME = "gemini"


def _sse(name: str) -> list[SSEEvent]:
    parser = SSEParser()
    return [*parser.feed((FIXTURES / name).read_bytes()), *parser.close()]


def _decode(events: list[SSEEvent], close: bool = True) -> tuple[list[ev.Event], StreamResult]:
    decoder, acc = new_stream_decoder(), MessageAccumulator(format=NAME)
    out: list[ev.Event] = []
    for event in events:
        out.extend(decoder.feed(event))
    if close:
        out.extend(decoder.close())
    acc.extend(out)
    return out, acc.result()


def _chunk(*parts: dict[str, Any], finish: str | None = None, usage: dict[str, Any] | None = None) -> SSEEvent:
    candidate: dict[str, Any] = {"content": {"parts": list(parts), "role": "model"}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    body: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-2.5-flash", "responseId": "resp_s"}
    if usage:
        body["usageMetadata"] = usage
    return SSEEvent(json.dumps(body))


# --- decoding ----------------------------------------------------------------------------------------------------


def test_gemini_25_parallel_calls_arrive_whole_in_one_chunk_without_ids() -> None:
    events, result = _decode(_sse("stream_gemini25_parallel.sse"))
    first, second = (
        synthetic_call_id("Hc1xaK3bL9Wn1dkPzOCk2A0", 0, "add", '{"a":2,"b":3}'),
        synthetic_call_id("Hc1xaK3bL9Wn1dkPzOCk2A0", 1, "multiply", '{"a":2,"b":3}'),
    )
    assert events == [
        ev.UsageUpdate({"prompt_tokens": 106, "total_tokens": 106}),
        ev.TextDelta("I will compute both"),
        ev.UsageUpdate({"prompt_tokens": 106, "total_tokens": 106}),
        ev.TextDelta(" at once."),
        ev.UsageUpdate({"prompt_tokens": 106, "completion_tokens": 86, "total_tokens": 192, "reasoning_tokens": 50}),
        ev.ToolCallStart(0, first, "add", {"thoughtSignature": "CiQB0e2Kb7xq9m+/sig25=="}),
        ev.ToolCallDelta(0, '{"a":2,"b":3}'),
        ev.ToolCallEnd(0),
        ev.ToolCallStart(1, second, "multiply", None),
        ev.ToolCallDelta(1, '{"a":2,"b":3}'),
        ev.ToolCallEnd(1),
        ev.MessageFields({"candidate": {"finishMessage": "Model generated function call(s)."}}),
        ev.Finish("stop", "STOP"),
        ev.StreamEnd(),
    ]
    assert (result.finish_reason, result.raw_finish_reason, result.complete) == ("tool_calls", "STOP", True)
    assert result.message["content"] == "I will compute both at once."


def test_gemini_3_calls_come_one_per_chunk_with_ids_thoughts_and_a_trailing_empty_text() -> None:
    events, result = _decode(_sse("stream_gemini3_calls.sse"))
    assert [e for e in events if isinstance(e, ev.ReasoningDelta)] == [
        ev.ReasoningDelta("**Planning**\n\nTwo independent "),
        ev.ReasoningDelta("operations."),
    ]
    assert [e for e in events if isinstance(e, ev.ToolCallStart)] == [
        ev.ToolCallStart(
            0,
            "8hd01vsf",
            "add",
            {"thoughtSignature": "EsINCr8NAdHtim9+kP1x/qvG0sig==", "functionCall": {"id": "8hd01vsf"}},
        ),
        ev.ToolCallStart(1, "k0srpqrc", "multiply", {"functionCall": {"id": "k0srpqrc"}}),
    ]
    # the joined thought part is passed on once the turn is over, not piece by piece
    assert [e for e in events if isinstance(e, ev.ProviderBlock)] == [
        ev.ProviderBlock({"text": "**Planning**\n\nTwo independent operations.", "thought": True})
    ]
    kinds = [e.kind for e in events]
    assert kinds.index("provider_block") > kinds.index("tool_call_end", kinds.index("tool_call_end") + 1)
    assert result.message["content"] is None and "fields" not in result.message["provider_data"]
    assert result.usage == {
        "prompt_tokens": 157,
        "completion_tokens": 470,
        "total_tokens": 627,
        "reasoning_tokens": 438,
    }


def test_a_signature_on_an_empty_text_part_keeps_the_turn_whole() -> None:
    _, result = _decode(_sse("stream_text_signature.sse"))
    assert result.message == {
        "role": "assistant",
        "content": "2 + 3 = 5 and 2 times 3 = 6.",
        "provider_data": {
            "format": NAME,
            "fields": {
                "parts": [
                    {"text": "2 + 3 = 5 and 2 times 3 = 6."},
                    {"text": "", "thoughtSignature": "Ep4BCpsBAdHtim8+text/sig=="},
                ]
            },
        },
    }


@pytest.mark.parametrize(
    "name", ["stream_gemini25_parallel.sse", "stream_gemini3_calls.sse", "stream_text_signature.sse"]
)
def test_a_streamed_turn_equals_the_same_turn_as_a_whole_response(name: str) -> None:
    chunks = [json.loads(event.data) for event in _sse(name)]
    parts = [part for chunk in chunks for part in chunk["candidates"][0]["content"]["parts"]]
    whole = {
        **chunks[-1],
        "candidates": [{**chunks[-1]["candidates"][0], "content": {"parts": parts, "role": "model"}}],
    }
    assert _decode(_sse(name))[1] == decode_response(whole)


def test_a_stream_cut_before_its_finish_reason_is_incomplete_but_keeps_what_arrived() -> None:
    events = _sse("stream_gemini3_calls.sse")[:3]
    decoded, result = _decode(events)
    assert (result.complete, result.raw_finish_reason, result.error) == (False, None, None)
    assert [call["id"] for call in result.message["tool_calls"]] == ["8hd01vsf"]
    assert result.message["provider_data"]["blocks"] == [
        {"text": "**Planning**\n\nTwo independent operations.", "thought": True}
    ]
    assert decoded[-1] == ev.ProviderBlock({"text": "**Planning**\n\nTwo independent operations.", "thought": True})


def test_close_after_the_finish_adds_nothing() -> None:
    decoder = new_stream_decoder()
    for event in _sse("stream_gemini25_parallel.sse"):
        decoder.feed(event)
    assert decoder.close() == []
    assert isinstance(decoder.state, GeminiStreamState) and decoder.state.finished


def test_an_error_chunk_mid_stream_is_a_retryable_stream_error() -> None:
    _, result = _decode(_sse("stream_error.sse"))
    assert result.error is not None
    assert (result.error.type, result.error.retryable, result.error.message) == (
        "overloaded",
        True,
        "The model is overloaded. Please try again later.",
    )
    assert (result.finish_reason, result.complete, result.message["content"]) == ("error", False, "Let me ")
    decoder = new_stream_decoder()
    for event in _sse("stream_error.sse"):
        decoder.feed(event)
    assert decoder.feed(_chunk({"text": "more"}, finish="STOP")) == []  # nothing after the error


def test_a_chunk_that_is_not_json_is_an_invalid_response() -> None:
    _, result = _decode([_chunk({"text": "Hi"}), SSEEvent("<html>502 Bad Gateway</html>")])
    assert result.error is not None and result.error.type == "invalid_response"
    assert result.message["content"] == "Hi"


def test_usage_repeats_on_every_chunk_and_the_last_one_wins() -> None:
    stream = [
        _chunk({"text": "a"}, usage={"promptTokenCount": 10, "totalTokenCount": 10}),
        _chunk(
            {"text": "b"},
            finish="STOP",
            usage={"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12},
        ),
        SSEEvent(
            json.dumps({"usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 3, "totalTokenCount": 13}})
        ),
    ]
    _, result = _decode(stream)
    assert result.usage == {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}
    assert result.message["content"] == "ab"


def test_a_malformed_call_finishes_with_the_models_own_words() -> None:
    chunk = _chunk(finish="MALFORMED_FUNCTION_CALL")
    body = json.loads(chunk.data)
    body["candidates"][0]["finishMessage"] = "Malformed function call: get_weather(city=Paris"
    events, result = _decode([SSEEvent(json.dumps(body))])
    [finish] = [event for event in events if isinstance(event, ev.Finish)]
    assert finish == ev.Finish("error", "MALFORMED_FUNCTION_CALL", "Malformed function call: get_weather(city=Paris")
    assert (result.finish_reason, result.finish_detail) == ("error", finish.detail)
    assert ev.event_to_dict(finish)["detail"] == finish.detail, "the live pane's finish line has them too"


def test_content_after_the_finish_is_ignored() -> None:
    _, result = _decode([_chunk({"text": "a"}, finish="STOP"), _chunk({"text": "late"})])
    assert result.message == {"role": "assistant", "content": "a"}


def test_a_blocked_prompt_ends_the_stream_as_content_filter() -> None:
    chunk = {
        "promptFeedback": {"blockReason": "SAFETY"},
        "usageMetadata": {"promptTokenCount": 8, "totalTokenCount": 8},
    }
    _, result = _decode([SSEEvent(json.dumps(chunk))])
    assert (result.finish_reason, result.raw_finish_reason, result.complete) == ("content_filter", "SAFETY", True)


def test_the_array_form_of_a_stream_is_read_too() -> None:
    chunks = [json.loads(event.data) for event in _sse("stream_gemini3_calls.sse")]
    _, result = _decode([SSEEvent(json.dumps(chunks))])
    assert result == _decode(_sse("stream_gemini3_calls.sse"))[1]


# --- encoding ----------------------------------------------------------------------------------------------------


def test_encoded_text_is_cut_and_calls_arrive_whole() -> None:
    result = decode_response(
        {
            "candidates": [
                {
                    "content": {
                        "parts": [
                            {"text": "Thinking hard", "thought": True},
                            {"text": "Adding now."},
                            {"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}, "thoughtSignature": "c2ln"},
                            {"functionCall": {"name": "multiply", "args": {"a": 2, "b": 3}}},
                        ],
                        "role": "model",
                    },
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 9, "totalTokenCount": 14},
            "responseId": "resp_e",
        }
    )
    events = encode_stream(result, model="gemini-2.5-flash", response_id="resp_e", fragment_size=6)
    assert all(event.event is None for event in events)
    chunks = [json.loads(event.data) for event in events]
    parts = [chunk["candidates"][0]["content"]["parts"] for chunk in chunks]
    assert parts == [
        [{"text": "Thinki", "thought": True}],
        [{"text": "ng har", "thought": True}],
        [{"text": "d", "thought": True}],
        [{"text": "Adding"}],
        [{"text": " now."}],
        [{"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}, "thoughtSignature": "c2ln"}],
        [{"functionCall": {"name": "multiply", "args": {"a": 2, "b": 3}}}],
    ]
    assert [chunk["candidates"][0].get("finishReason") for chunk in chunks] == [None] * 6 + ["STOP"]
    assert chunks[0]["usageMetadata"] == {"promptTokenCount": 5, "totalTokenCount": 5}
    assert chunks[-1]["usageMetadata"] == {"promptTokenCount": 5, "candidatesTokenCount": 9, "totalTokenCount": 14}
    assert {(chunk["modelVersion"], chunk["responseId"]) for chunk in chunks} == {("gemini-2.5-flash", "resp_e")}
    assert _decode(events)[1] == result


def test_an_encoded_failure_ends_with_the_error_chunk_and_an_incomplete_result_without_a_finish() -> None:
    error = ProviderError("overloaded", "The model is overloaded.", retryable=True)
    message = {"role": "assistant", "content": "Let me "}
    failed = encode_stream(StreamResult(message, "error", None, None, error, False), model="m", response_id="r")  # type: ignore[arg-type]
    assert json.loads(failed[-1].data) == {
        "error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}
    }
    cut = encode_stream(StreamResult(message, None, None, None, None, False), model="m", response_id="r")  # type: ignore[arg-type]
    assert all("finishReason" not in json.loads(event.data)["candidates"][0] for event in cut)
    assert _decode(cut)[1].complete is False


def test_an_empty_complete_result_still_sends_its_finish() -> None:
    result = StreamResult({"role": "assistant", "content": None}, "length", "MAX_TOKENS", None, None, True)
    [event] = encode_stream(result, model="m", response_id="r")
    assert json.loads(event.data)["candidates"] == [
        {"content": {"role": "model"}, "finishReason": "MAX_TOKENS", "index": 0}
    ]
    assert _decode([event])[1] == decode_response(encode_response(result, model="m", response_id="r"))


def test_fragment_size_must_be_positive() -> None:
    result = StreamResult({"role": "assistant", "content": "x"}, "stop", "STOP", None, None, True)
    with pytest.raises(ValueError):
        encode_stream(result, model="m", response_id="r", fragment_size=0)


def test_a_whole_call_is_serialised_and_hashed_once_though_the_turn_end_needs_it_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from providers.gemini import assistant, stream_decode, wire

    counts = {"compact": 0, "ids": 0}
    real_compact, real_id = wire.compact, wire.synthetic_call_id

    def compact(value: Any) -> str:
        counts["compact"] += 1
        return real_compact(value)

    def call_id(*args: Any) -> str:
        counts["ids"] += 1
        return real_id(*args)

    big = {"rows": [{"n": n, "label": f"row {n}"} for n in range(200)]}
    stream = [
        _chunk({"functionCall": {"name": "store", "args": big}}, {"functionCall": {"name": "ping"}}),
        _chunk({"functionCall": {"name": "store", "args": {"rows": []}}}, finish="STOP"),
    ]
    expected = _decode(stream)[1]  # unpatched: every call worked out from scratch at the turn's end
    monkeypatch.setattr(wire, "compact", compact)
    for module in (assistant, stream_decode):
        monkeypatch.setattr(module, "synthetic_call_id", call_id)
    result = _decode(stream)[1]
    assert result == expected
    calls = result.message["tool_calls"]
    assert [c["function"]["arguments"] for c in calls] == [real_compact(big), "{}", '{"rows":[]}']
    assert counts == {"compact": 2, "ids": 3}, "each call serialised and hashed once, if at all"


def test_the_ids_announced_as_calls_arrive_are_the_ids_of_the_final_message() -> None:
    first = SSEEvent(json.dumps({"candidates": [{"content": {"parts": [{"functionCall": {"name": "a"}}]}}]}))
    last = _chunk({"functionCall": {"name": "b", "args": {"x": 1}}}, finish="STOP")
    events, result = _decode([first, last])
    starts = [e.id for e in events if isinstance(e, ev.ToolCallStart)]
    # The first chunk had no responseId: it seeds every id of the turn, as announced and as kept.
    assert [c["id"] for c in result.message["tool_calls"]] == starts
    assert starts == [synthetic_call_id("", 0, "a", "{}"), synthetic_call_id("", 1, "b", '{"x":1}')]


def test_a_whole_number_beyond_64_bits_in_a_calls_arguments_stays_exact() -> None:
    big = 2**70 + 1  # a float would change its last digits
    events = [_chunk({"functionCall": {"name": "f", "args": {"id": big, "n": 1.5}}}, finish="STOP")]
    _, result = _decode(events)
    assert json.loads(result.message["tool_calls"][0]["function"]["arguments"]) == {"id": big, "n": 1.5}
    assert str(big) in result.message["tool_calls"][0]["function"]["arguments"]
