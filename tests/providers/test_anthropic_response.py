"""Whole Messages responses: decoding through the shared accumulator, and the bodies encode_response builds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from providers import events as ev
from providers.anthropic import decode_response, encode_request, encode_response, response_events
from providers.streaming import StreamResult

FIXTURES = Path(__file__).parent / "fixtures" / "anthropic"


def _fixture() -> dict[str, Any]:
    return json.loads((FIXTURES / "response_thinking_tools.json").read_text())


def _body(content: list[dict[str, Any]], stop_reason: str | None = "end_turn", **usage: int) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-20250514",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5, **usage},
    }


def test_a_recorded_response_decodes_to_the_internal_message() -> None:
    result = decode_response(_fixture())
    assert result.message == {
        "role": "assistant",
        "content": "I'll check both.",
        "tool_calls": [
            {
                "id": "toolu_015cXyPjM8bMjQ1vUu3wQ3Yv",
                "type": "function",
                "function": {"name": "secret_retrieval_tool", "arguments": '{"password":"mellon"}'},
                "provider_data": {"format": "anthropic", "fields": {"caller": {"type": "direct"}}},
            },
            {
                "id": "toolu_01XZqDh9bQ4Z2X7rGzGLtV3m",
                "type": "function",
                "function": {"name": "secret_retrieval_tool", "arguments": '{"password":"radiance"}'},
            },
        ],
        "provider_data": {
            "format": "anthropic",
            "blocks": [
                {"type": "thinking", "thinking": "I need both secrets.", "signature": "EtYDCkYIBxgCKkBresponseSig"}
            ],
            "reasoning": "I need both secrets.",
        },
    }
    assert (result.finish_reason, result.raw_finish_reason, result.complete) == ("tool_calls", "tool_use", True)


def test_usage_counts_the_cache_in_the_prompt() -> None:
    assert decode_response(_fixture()).usage == {
        "prompt_tokens": 526,
        "completion_tokens": 109,
        "total_tokens": 635,
        "cached_tokens": 100,
        "cache_creation_tokens": 10,
    }


@pytest.mark.parametrize(
    ("raw", "internal"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("pause_turn", "stop"),
        ("max_tokens", "length"),
        ("model_context_window_exceeded", "length"),
        ("refusal", "content_filter"),
        ("a_future_reason", "stop"),
    ],
)
def test_stop_reasons(raw: str, internal: str) -> None:
    result = decode_response(_body([{"type": "text", "text": "Hi"}], raw))
    assert (result.finish_reason, result.raw_finish_reason) == (internal, raw)


def test_the_events_of_a_response_are_those_of_a_stream() -> None:
    kinds = [event.kind for event in response_events(_fixture())]
    assert kinds == [
        "reasoning",
        "provider_block",
        "text",
        "tool_call_start",
        "tool_call_delta",
        "tool_call_end",
        "tool_call_start",
        "tool_call_delta",
        "tool_call_end",
        "usage",
        "finish",
        "end",
    ]


def test_an_error_body_is_an_error_event() -> None:
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_1"}
    (event,) = response_events(body)
    assert isinstance(event, ev.StreamError)
    assert (event.error.type, event.error.retryable, event.error.message) == ("overloaded", True, "Overloaded")
    assert decode_response(body).finish_reason == "error"


def test_an_empty_end_turn() -> None:
    result = decode_response(_body([]))
    assert result.message == {"role": "assistant", "content": None}
    assert (result.finish_reason, result.complete) == ("stop", True)


def test_encode_response_builds_a_messages_body() -> None:
    body = encode_response(
        decode_response(_fixture()), model="claude-sonnet-4-20250514", response_id="msg_01Aq9w938a90dw8q"
    )
    expected = _fixture()
    expected["usage"].pop("service_tier")
    assert body == expected


def test_encode_then_decode_gives_the_same_result() -> None:
    result = decode_response(_fixture())
    again = decode_response(encode_response(result, model="m", response_id="msg_2"))
    assert again == result


def test_the_raw_stop_reason_is_sent_back_when_it_still_applies() -> None:
    result = decode_response(_body([{"type": "text", "text": "Hi"}], "stop_sequence"))
    assert encode_response(result, model="m", response_id="r")["stop_reason"] == "stop_sequence"
    result.raw_finish_reason = "stop"  # an OpenAI reason: mapped instead
    assert encode_response(result, model="m", response_id="r")["stop_reason"] == "end_turn"


def test_a_result_from_another_format_gets_plain_blocks() -> None:
    message: Any = {
        "role": "assistant",
        "content": "Hi",
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": ""}}],
        "provider_data": {"format": "openai-chat", "reasoning": "thinking aloud", "fields": {"reasoning_content": "x"}},
    }
    result = StreamResult(message, "tool_calls", "tool_calls", None, None, True)
    body = encode_response(result, model="m", response_id="r")
    assert body["content"] == [
        {"type": "text", "text": "Hi"},
        {"type": "tool_use", "id": "call_1", "name": "f", "input": {}},
    ]
    assert body["stop_reason"] == "tool_use"
    assert body["usage"] == {
        "input_tokens": 0,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 0,
    }


def test_citations_and_server_tool_blocks_of_a_response_go_back_in_the_next_request() -> None:
    content = [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "grass colour"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
        {"type": "text", "text": "Grass is green.", "citations": [{"type": "web_search_result_location", "url": "u"}]},
    ]
    result = decode_response(_body(content))
    assert result.message["content"] == "Grass is green."
    request: Any = {"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "?"}, result.message]}
    assert encode_request(request).value["messages"][1]["content"] == content
    assert encode_response(result, model="m", response_id="r")["content"] == content
