"""Whole (non-streamed) chat.completion bodies: decode_response, response_events, encode_response."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from providers import events as ev
from providers import openai_chat
from providers.errors import ProviderError
from providers.sse import parse
from providers.streaming import StreamResult, fold
from providers.types import Message

FIXTURES = Path(__file__).parent / "fixtures" / "openai_chat"


def completion(message: dict[str, Any], finish: str | None = "tool_calls", **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-C1",
        "object": "chat.completion",
        "created": 1752000000,
        "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": 106,
            "completion_tokens": 50,
            "total_tokens": 156,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
        },
        **extra,
    }


OPENAI_TWO_CALLS = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "call_ehIW", "type": "function", "function": {"name": "add", "arguments": '{"a":2,"b":3}'}},
        {"id": "call_fBSg", "type": "function", "function": {"name": "multiply", "arguments": '{"a":2,"b":3}'}},
    ],
    "refusal": None,
    "annotations": [],
}


def test_openai_tool_call_response() -> None:
    result = openai_chat.decode_response(completion(OPENAI_TWO_CALLS))
    assert result.message == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_ehIW", "type": "function", "function": {"name": "add", "arguments": '{"a":2,"b":3}'}},
            {"id": "call_fBSg", "type": "function", "function": {"name": "multiply", "arguments": '{"a":2,"b":3}'}},
        ],
    }
    assert (result.finish_reason, result.raw_finish_reason, result.complete) == ("tool_calls", "tool_calls", True)
    assert result.usage == {
        "prompt_tokens": 106,
        "completion_tokens": 50,
        "total_tokens": 156,
        "cached_tokens": 0,
        "reasoning_tokens": 0,
    }


def test_response_gives_the_same_events_as_a_stream() -> None:
    events = openai_chat.response_events(completion(OPENAI_TWO_CALLS))
    assert [event.kind for event in events] == [
        "tool_call_start",
        "tool_call_delta",
        "tool_call_end",
        "tool_call_start",
        "tool_call_delta",
        "tool_call_end",
        "finish",
        "usage",
        "end",
    ]
    assert events[3] == ev.ToolCallStart(1, "call_fBSg", "multiply")


def test_same_message_streamed_or_whole() -> None:
    decoder = openai_chat.new_stream_decoder()
    streamed: list[ev.Event] = []
    for event in parse([(FIXTURES / "deepseek_reasoning.sse").read_bytes()]):
        streamed.extend(decoder.feed(event))
    whole = {
        "role": "assistant",
        "content": "",
        "reasoning_content": "The user wants 2+3. I should call add.",
        "tool_calls": [
            {
                "index": 0,
                "id": "call_00_Qp3Vx9Lm2Kd8Rt5Ws1Yz",
                "type": "function",
                "function": {"name": "add", "arguments": '{"a":2,"b":3}'},
            }
        ],
    }
    assert openai_chat.decode_response(completion(whole)).message == fold(streamed, "openai-chat").message


def test_deepseek_reasoning_kept_and_call_index_not_kept() -> None:
    message = {
        "role": "assistant",
        "content": "",
        "reasoning_content": "Think.",
        "tool_calls": [
            {"index": 0, "id": "call_00_x", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    }
    events = openai_chat.response_events(completion(message))
    assert events[0] == ev.ReasoningDelta("Think.")
    result = openai_chat.decode_response(completion(message))
    assert result.message["provider_data"] == {
        "format": "openai-chat",
        "reasoning": "Think.",
        "fields": {"reasoning_content": "Think."},
    }
    assert "provider_data" not in result.message["tool_calls"][0]


def test_arguments_null_empty_or_object() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": None}},
            {"id": "b", "type": "function", "function": {"name": "f", "arguments": ""}},
            {"id": "c", "type": "function", "function": {"name": "f"}},
            {"id": "d", "type": "function", "function": {"name": "f", "arguments": {"q": "é"}}},
            {"id": "e", "type": "function", "function": {"name": "f", "arguments": "{not json"}},
        ],
    }
    calls = openai_chat.decode_response(completion(message)).message["tool_calls"]
    assert [call["function"]["arguments"] for call in calls] == ["{}", "{}", "{}", '{"q": "é"}', "{not json"]


def test_missing_id_gets_the_same_synthetic_id_as_in_a_stream() -> None:
    message = {"role": "assistant", "tool_calls": [{"id": "", "function": {"name": "f", "arguments": "{}"}}]}
    call_id = openai_chat.decode_response(completion(message)).message["tool_calls"][0]["id"]
    decoder = openai_chat.new_stream_decoder()
    chunk = {"id": "chatcmpl-C1", "choices": [{"delta": {"tool_calls": [{"id": "", "function": {"name": "f"}}]}}]}
    (start,) = decoder.feed(next(parse([f"data: {json.dumps(chunk)}\n\n"])))
    assert isinstance(start, ev.ToolCallStart) and start.id == call_id != ""


def test_named_tool_choice_stop_still_means_tool_calls() -> None:
    result = openai_chat.decode_response(completion(OPENAI_TWO_CALLS, "stop"))
    assert (result.finish_reason, result.raw_finish_reason) == ("tool_calls", "stop")


def test_legacy_function_call_message() -> None:
    message = {"role": "assistant", "content": None, "function_call": {"name": "lookup", "arguments": '{"k":1}'}}
    result = openai_chat.decode_response(completion(message, "function_call"))
    call = result.message["tool_calls"][0]
    assert call["function"] == {"name": "lookup", "arguments": '{"k":1}'}
    assert call["id"].startswith("call_")
    assert result.finish_reason == "tool_calls"


def test_text_response_and_refusal_value_kept() -> None:
    message = {"role": "assistant", "content": "No.", "refusal": "I can't help with that.", "annotations": []}
    result = openai_chat.decode_response(completion(message, "stop"))
    assert result.message == {
        "role": "assistant",
        "content": "No.",
        "provider_data": {"format": "openai-chat", "fields": {"refusal": "I can't help with that."}},
    }
    assert result.finish_reason == "stop"


def test_content_parts_are_joined() -> None:
    message = {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    assert openai_chat.decode_response(completion(message, "stop")).message["content"] == "ab"


def test_error_body_decodes_to_an_error() -> None:
    body = {
        "error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}
    }
    result = openai_chat.decode_response(body)
    assert result.error is not None
    assert (result.error.type, result.error.message, result.error.retryable) == (
        "authentication",
        "Incorrect API key provided",
        False,
    )
    assert (result.finish_reason, result.complete) == ("error", False)


def test_body_without_choices_is_an_invalid_response() -> None:
    result = openai_chat.decode_response({"id": "x", "choices": []})
    assert result.error is not None and result.error.type == "invalid_response"


def test_missing_finish_reason_and_usage() -> None:
    body = completion({"role": "assistant", "content": "hi"}, None)
    del body["usage"]
    result = openai_chat.decode_response(body)
    assert (result.finish_reason, result.usage, result.complete) == ("stop", None, True)


def test_encode_response_is_a_real_chat_completion() -> None:
    message: Message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_A", "type": "function", "function": {"name": "add", "arguments": '{"a":2}'}}],
    }
    result = StreamResult(message, "tool_calls", None, {"prompt_tokens": 9, "completion_tokens": 3}, None, True)
    body = openai_chat.encode_response(result, model="gpt-4o", response_id="chatcmpl-9", created=1700000000)
    assert body == {
        "id": "chatcmpl-9",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "refusal": None,
                    "annotations": [],
                    "tool_calls": [
                        {"id": "call_A", "type": "function", "function": {"name": "add", "arguments": '{"a":2}'}}
                    ],
                },
                "logprobs": None,
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {
            "prompt_tokens": 9,
            "completion_tokens": 3,
            "total_tokens": 12,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
    }
    assert openai_chat.decode_response(body).message == message


def test_encode_response_round_trips_reasoning_and_fields() -> None:
    message: Message = {
        "role": "assistant",
        "content": "5",
        "provider_data": {"format": "openai-chat", "reasoning": "add", "fields": {"reasoning": "add", "refusal": "r"}},
    }
    result = StreamResult(message, "stop", "stop", None, None, True)
    body = openai_chat.encode_response(result, model="m", response_id="r")
    assert body["choices"][0]["message"]["reasoning"] == "add"
    assert "reasoning_content" not in body["choices"][0]["message"]
    assert openai_chat.decode_response(body).message == message


def test_encode_response_of_a_failed_result_is_an_error_body() -> None:
    error = ProviderError("rate_limit", "Rate limit reached", status=429, retryable=True)
    result = StreamResult({"role": "assistant", "content": None}, "error", None, None, error, False)
    body = openai_chat.encode_response(result, model="m", response_id="r")
    assert body == {
        "error": {"message": "Rate limit reached", "type": "requests", "param": None, "code": "rate_limit_exceeded"}
    }
    decoded = openai_chat.decode_error(429, json.dumps(body).encode(), {})
    assert (decoded.type, decoded.message, decoded.retryable) == ("rate_limit", "Rate limit reached", True)
