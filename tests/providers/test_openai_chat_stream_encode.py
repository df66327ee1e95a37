"""encode_stream writes what api.openai.com sends (wire-formats.md §1.3; stack-notes §6)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from providers import openai_chat
from providers.errors import ProviderError
from providers.sse import SSEEvent, parse
from providers.streaming import StreamResult, fold
from providers.types import Message

TWO_CALLS: Message = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "call_A", "type": "function", "function": {"name": "add", "arguments": '{"a":2,"b":3}'}},
        {"id": "call_B", "type": "function", "function": {"name": "multiply", "arguments": "{}"}},
    ],
}
USAGE = {"prompt_tokens": 106, "completion_tokens": 50, "total_tokens": 156, "cached_tokens": 6, "reasoning_tokens": 4}


def result_of(message: Message, reason: str = "tool_calls", **changes: Any) -> StreamResult:
    values: dict[str, Any] = {
        "message": message,
        "finish_reason": reason,
        "raw_finish_reason": None,
        "usage": USAGE,
        "error": None,
        "complete": True,
        **changes,
    }
    return StreamResult(**values)


def encode(result: StreamResult, **options: Any) -> list[SSEEvent]:
    return openai_chat.encode_stream(result, model="gpt-4o", response_id="chatcmpl-1", created=1700000000, **options)


def bodies(events: list[SSEEvent]) -> list[dict[str, Any]]:
    assert events[-1] == SSEEvent("[DONE]")
    return [json.loads(event.data) for event in events[:-1]]


def deltas(events: list[SSEEvent]) -> list[dict[str, Any]]:
    return [body["choices"][0]["delta"] for body in bodies(events) if body["choices"]]


def test_two_parallel_calls_exact_chunks() -> None:
    events = encode(result_of(TWO_CALLS), fragment_size=5)
    assert all(event.event is None for event in events)
    assert deltas(events) == [
        {"role": "assistant", "content": None, "refusal": None},
        {
            "tool_calls": [
                {"index": 0, "id": "call_A", "type": "function", "function": {"name": "add", "arguments": ""}}
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"a":'}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": '2,"b"'}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": ":3}"}}]},
        {
            "tool_calls": [
                {"index": 1, "id": "call_B", "type": "function", "function": {"name": "multiply", "arguments": ""}}
            ]
        },
        {"tool_calls": [{"index": 1, "function": {"arguments": "{}"}}]},
        {},
    ]


def test_every_chunk_has_the_header_and_usage_null_until_the_usage_chunk() -> None:
    chunks = bodies(encode(result_of(TWO_CALLS)))
    for body in chunks:
        assert (body["id"], body["object"], body["created"], body["model"]) == (
            "chatcmpl-1",
            "chat.completion.chunk",
            1700000000,
            "gpt-4o",
        )
    assert all(body["usage"] is None for body in chunks[:-1])
    assert [body["choices"][0]["finish_reason"] for body in chunks[:-1]] == [None] * (len(chunks) - 2) + ["tool_calls"]
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"] == {
        "prompt_tokens": 106,
        "completion_tokens": 50,
        "total_tokens": 156,
        "prompt_tokens_details": {"cached_tokens": 6, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 4,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def test_without_include_usage_there_is_no_usage_at_all() -> None:
    chunks = bodies(encode(result_of(TWO_CALLS), include_usage=False))
    assert all("usage" not in body for body in chunks)
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_text_is_cut_like_arguments_and_role_chunk_has_empty_content() -> None:
    message: Message = {"role": "assistant", "content": "Hello, world"}
    assert deltas(encode(result_of(message, "stop"), fragment_size=5)) == [
        {"role": "assistant", "content": "", "refusal": None},
        {"content": "Hello"},
        {"content": ", wor"},
        {"content": "ld"},
        {},
    ]


def test_reasoning_is_streamed_first_under_the_recorded_key() -> None:
    message: Message = {
        "role": "assistant",
        "content": "4",
        "provider_data": {"format": "openai-chat", "reasoning": "two and two", "fields": {"reasoning": "two and two"}},
    }
    assert deltas(encode(result_of(message, "stop"), fragment_size=8))[1:4] == [
        {"reasoning": "two and "},
        {"reasoning": "two"},
        {"content": "4"},
    ]


def test_reasoning_without_a_recorded_key_is_reasoning_content() -> None:
    message: Message = {"role": "assistant", "content": "4", "provider_data": {"format": "anthropic", "reasoning": "r"}}
    assert deltas(encode(result_of(message, "stop")))[1] == {"reasoning_content": "r"}


def test_call_fields_of_this_format_go_in_the_first_fragment() -> None:
    message: Message = {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "c",
                "type": "function",
                "function": {"name": "f", "arguments": "{}"},
                "provider_data": {"format": "openai-chat", "fields": {"extra_content": {"google": {"x": 1}}}},
            }
        ],
    }
    first = deltas(encode(result_of(message)))[1]["tool_calls"][0]
    assert first["extra_content"] == {"google": {"x": 1}}


def test_provider_finish_reason_is_replayed_when_it_is_an_openai_one() -> None:
    named_choice = result_of(TWO_CALLS, raw_finish_reason="stop")
    assert deltas(encode(named_choice))[-1] == {}
    assert bodies(encode(named_choice))[-2]["choices"][0]["finish_reason"] == "stop"
    from_anthropic = result_of(TWO_CALLS, raw_finish_reason="tool_use")
    assert bodies(encode(from_anthropic))[-2]["choices"][0]["finish_reason"] == "tool_calls"


def test_failed_result_ends_with_an_error_chunk_and_no_done() -> None:
    error = ProviderError("overloaded", "Overloaded", retryable=True)
    events = encode(result_of({"role": "assistant", "content": "Hi"}, "error", error=error, complete=False))
    last = json.loads(events[-1].data)
    assert last["error"] == {"message": "Overloaded", "type": "server_error", "param": None, "code": "overloaded"}
    assert SSEEvent("[DONE]") not in events
    decoded = decode(events)
    assert decoded.error is not None and (decoded.error.type, decoded.error.retryable) == ("overloaded", True)
    assert decoded.message["content"] == "Hi"


def test_incomplete_result_is_a_stream_cut_after_its_content() -> None:
    events = encode(result_of({"role": "assistant", "content": "Hi"}, None, complete=False))
    assert [json.loads(event.data)["choices"][0]["delta"] for event in events] == [
        {"role": "assistant", "content": "", "refusal": None},
        {"content": "Hi"},
    ]
    assert decode(events).complete is False


def test_encoded_stream_decodes_to_the_same_message() -> None:
    for size in (1, 3, 8, 1000):
        decoded = decode(encode(result_of(TWO_CALLS), fragment_size=size))
        assert decoded.message == TWO_CALLS
        assert (decoded.finish_reason, decoded.usage, decoded.complete) == ("tool_calls", USAGE, True)


def test_fragment_size_must_be_positive() -> None:
    with pytest.raises(ValueError, match="fragment_size"):
        encode(result_of(TWO_CALLS), fragment_size=0)


def test_created_defaults_to_now() -> None:
    events = openai_chat.encode_stream(result_of(TWO_CALLS), model="m", response_id="r")
    assert json.loads(events[0].data)["created"] > 1_700_000_000


def decode(events: list[SSEEvent]) -> StreamResult:
    decoder = openai_chat.new_stream_decoder()
    out = []
    for event in parse([b"".join(event.encode() for event in events)]):
        out.extend(decoder.feed(event))
    return fold(out + decoder.close(), "openai-chat")
