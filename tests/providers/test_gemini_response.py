"""Whole Gemini responses: decoding through the shared accumulator, and the bodies encode_response builds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from providers import events as ev
from providers.errors import ProviderError
from providers.gemini import decode_response, encode_response, response_events
from providers.gemini.wire import synthetic_call_id
from providers.streaming import StreamResult

FIXTURES = Path(__file__).parent / "fixtures" / "gemini"
NAME = "gemini"


def _fixture() -> dict[str, Any]:
    return json.loads((FIXTURES / "response_gemini3_calls.json").read_text())


def _body(*parts: dict[str, Any], finish: str | None = "STOP", **extra: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": list(parts), "role": "model"}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash", "responseId": "resp_1", **extra}


def _fc(name: str, args: dict[str, Any] | None = None, **part: Any) -> dict[str, Any]:
    return {"functionCall": {"name": name, "args": args or {}}, **part}


def test_a_recorded_gemini_3_response_decodes_to_the_internal_message() -> None:
    result = decode_response(_fixture())
    message = result.message
    assert message["content"] is None
    assert message["tool_calls"] == [
        {
            "id": "8hd01vsf",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city":"Zürich"}'},
            "provider_data": {
                "format": NAME,
                "fields": {"thoughtSignature": "EsINCr8NAdHtim9+kP1x/qvG0sig==", "functionCall": {"id": "8hd01vsf"}},
            },
        },
        {
            "id": "k0srpqrc",
            "type": "function",
            "function": {"name": "list_doors", "arguments": "{}"},
            "provider_data": {"format": NAME, "fields": {"functionCall": {"id": "k0srpqrc"}}},
        },
    ]
    data = message["provider_data"]
    assert data["blocks"] == [_fixture()["candidates"][0]["content"]["parts"][0]]
    assert data["reasoning"].startswith("**Looking up the weather**")
    assert data["fields"] == {"candidate": {"finishMessage": "Model generated function call(s)."}}
    assert (result.finish_reason, result.raw_finish_reason, result.complete) == ("tool_calls", "STOP", True)


def test_usage_counts_thoughts_as_completion_and_reasoning() -> None:
    assert decode_response(_fixture()).usage == {
        "prompt_tokens": 157,
        "completion_tokens": 470,
        "total_tokens": 627,
        "reasoning_tokens": 438,
    }
    usage = {"promptTokenCount": 1200, "cachedContentTokenCount": 1024, "candidatesTokenCount": 30}
    assert decode_response(_body({"text": "hi"}, usageMetadata=usage)).usage == {
        "prompt_tokens": 1200,
        "completion_tokens": 30,
        "total_tokens": 1230,
        "cached_tokens": 1024,
    }


def test_calls_without_ids_get_ids_from_the_response_id_and_their_position() -> None:
    body = _body(_fc("add", {"a": 2}, thoughtSignature="c2ln"), _fc("add", {"a": 2}))
    calls = decode_response(body).message["tool_calls"]
    assert [call["id"] for call in calls] == [
        synthetic_call_id("resp_1", 0, "add", '{"a":2}'),
        synthetic_call_id("resp_1", 1, "add", '{"a":2}'),
    ]
    assert calls[0]["provider_data"] == {"format": NAME, "fields": {"thoughtSignature": "c2ln"}}
    assert "provider_data" not in calls[1]
    other = decode_response({**body, "responseId": "resp_2"}).message["tool_calls"]
    assert {call["id"] for call in other}.isdisjoint(call["id"] for call in calls)
    assert decode_response(body).message == decode_response(body).message  # deterministic


@pytest.mark.parametrize(
    ("raw", "internal"),
    [
        ("STOP", "stop"),
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("BLOCKLIST", "content_filter"),
        ("PROHIBITED_CONTENT", "content_filter"),
        ("SPII", "content_filter"),
        ("IMAGE_SAFETY", "content_filter"),
        ("LANGUAGE", "content_filter"),
        ("MALFORMED_FUNCTION_CALL", "error"),
        ("UNEXPECTED_TOOL_CALL", "error"),
        ("OTHER", "stop"),
        ("A_REASON_FROM_THE_FUTURE", "stop"),
    ],
)
def test_finish_reasons(raw: str, internal: str) -> None:
    result = decode_response(_body({"text": "hi"}, finish=raw))
    assert (result.finish_reason, result.raw_finish_reason, result.complete, result.error) == (
        internal,
        raw,
        True,
        None,
    )


def test_calls_decide_tool_calls_except_when_cut_by_the_token_limit() -> None:
    assert decode_response(_body(_fc("add"), finish="STOP")).finish_reason == "tool_calls"
    assert decode_response(_body(_fc("add"), finish="SAFETY")).finish_reason == "tool_calls"
    assert decode_response(_body(_fc("add"), finish="MAX_TOKENS")).finish_reason == "length"


def test_a_malformed_function_call_is_an_error_finish_with_its_message() -> None:
    body = _body(finish="MALFORMED_FUNCTION_CALL")
    body["candidates"][0]["finishMessage"] = "Malformed function call: print(default_api.add(a=2"
    result = decode_response(body)
    assert (result.finish_reason, result.message["content"], result.complete) == ("error", None, True)
    assert result.message["provider_data"]["fields"]["candidate"]["finishMessage"].startswith("Malformed")
    assert result.finish_detail == "Malformed function call: print(default_api.add(a=2", "the model's own words"


def test_only_an_error_finish_carries_its_finish_message() -> None:
    # Gemini says "Model generated function call(s)." on an ordinary finish too: that is no error's detail.
    body = _body(_fc("add"), finish="STOP")
    body["candidates"][0]["finishMessage"] = "Model generated function call(s)."
    assert decode_response(body).finish_detail is None


def test_text_parts_are_joined_and_empty_ones_dropped() -> None:
    body = _body({"text": "Hello"}, {"text": ""}, {"text": ", world"}, {"text": "think", "thought": True})
    message = decode_response(body).message
    assert message["content"] == "Hello, world"
    assert message["provider_data"]["fields"]["parts"] == [{"text": "Hello, world"}, {"text": "think", "thought": True}]


def test_a_signed_text_part_keeps_the_turn_whole() -> None:
    part = {"text": "The answer is 5.", "thoughtSignature": "Ep4B"}
    message = decode_response(_body(part)).message
    assert message["content"] == "The answer is 5."
    assert message["provider_data"] == {"format": NAME, "fields": {"parts": [part]}}


def test_unknown_candidate_and_response_fields_are_kept_and_written_back() -> None:
    ratings = [{"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"}]
    body = _body({"text": "hi"}, createTime="2025-07-01T10:00:00Z")
    body["candidates"][0].update(safetyRatings=ratings, avgLogprobs=-0.25)
    result = decode_response(body)
    assert result.message["provider_data"]["fields"] == {
        "candidate": {"safetyRatings": ratings, "avgLogprobs": -0.25},
        "response": {"createTime": "2025-07-01T10:00:00Z"},
    }
    encoded = encode_response(result, model="gemini-2.5-flash", response_id="resp_1")
    assert encoded == {**body, "candidates": [{**body["candidates"][0]}]}


def test_a_blocked_prompt_is_a_content_filter_finish_without_candidates() -> None:
    body = {
        "promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
        "usageMetadata": {"promptTokenCount": 12, "totalTokenCount": 12},
        "modelVersion": "gemini-2.5-flash",
        "responseId": "resp_1",
    }
    result = decode_response(body)
    assert (result.finish_reason, result.raw_finish_reason, result.message["content"]) == (
        "content_filter",
        "PROHIBITED_CONTENT",
        None,
    )
    assert encode_response(result, model="gemini-2.5-flash", response_id="resp_1") == body


def test_error_bodies_and_bodies_without_candidates_are_errors() -> None:
    error = {"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}
    [event] = response_events(error)
    assert isinstance(event, ev.StreamError) and event.error.type == "invalid_request"
    result = decode_response({"usageMetadata": {"promptTokenCount": 3}})
    assert result.error is not None and result.error.type == "invalid_response"
    assert (result.finish_reason, result.complete) == ("error", False)


def test_whole_and_streamed_shapes_give_the_same_events_order() -> None:
    kinds = [event.kind for event in response_events(_fixture())]
    assert kinds == [
        *["reasoning", "provider_block"],
        *["tool_call_start", "tool_call_delta", "tool_call_end"] * 2,
        *["message_fields", "usage", "finish", "end"],
    ]


# --- encoding ----------------------------------------------------------------------------------------------------


def test_the_recorded_response_encodes_back_as_it_came() -> None:
    result = decode_response(_fixture())
    encoded = encode_response(result, model="gemini-3-pro-preview", response_id="c2ZqaNv1Bo6Vz7IPq4Sc0Qc")
    expected = _fixture()
    del expected["usageMetadata"]["promptTokensDetails"]  # modality details have no internal slot
    assert encoded == expected
    assert decode_response(json.loads(json.dumps(encoded))) == result


def test_a_result_from_another_format_encodes_with_a_thought_part_and_no_ids() -> None:
    message = {
        "role": "assistant",
        "content": "Adding.",
        "tool_calls": [{"id": "toolu_1", "type": "function", "function": {"name": "add", "arguments": '{"a":1}'}}],
        "provider_data": {"format": "anthropic", "reasoning": "Think first.", "blocks": [{"type": "thinking"}]},
    }
    usage = {"prompt_tokens": 10, "completion_tokens": 7, "total_tokens": 17, "reasoning_tokens": 3}
    result = StreamResult(message, "tool_calls", "tool_use", usage, None, True)  # type: ignore[arg-type]
    assert encode_response(result, model="gemini-2.5-flash", response_id="r9") == {
        "candidates": [
            {
                "content": {
                    "parts": [
                        {"text": "Think first.", "thought": True},
                        {"text": "Adding."},
                        {"functionCall": {"name": "add", "args": {"a": 1}}},
                    ],
                    "role": "model",
                },
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 10,
            "candidatesTokenCount": 4,
            "totalTokenCount": 17,
            "thoughtsTokenCount": 3,
        },
        "modelVersion": "gemini-2.5-flash",
        "responseId": "r9",
    }


@pytest.mark.parametrize(
    ("finish", "raw", "wire"),
    [
        ("stop", None, "STOP"),
        ("length", "max_tokens", "MAX_TOKENS"),
        ("content_filter", "refusal", "SAFETY"),
        ("content_filter", "RECITATION", "RECITATION"),
        ("tool_calls", "SAFETY", "SAFETY"),
        ("error", "MALFORMED_FUNCTION_CALL", "MALFORMED_FUNCTION_CALL"),
    ],
)
def test_finish_reasons_are_encoded_back(finish: str, raw: str | None, wire: str) -> None:
    result = StreamResult({"role": "assistant", "content": "x"}, finish, raw, None, None, True)
    assert encode_response(result, model="m", response_id="r")["candidates"][0]["finishReason"] == wire


def test_a_failed_result_encodes_as_the_error_body() -> None:
    error = ProviderError("rate_limit", "Quota exceeded.", status=429, retryable=True, retry_after=12.5)
    result = StreamResult({"role": "assistant", "content": None}, "error", None, None, error, False)
    assert encode_response(result, model="m", response_id="r") == {
        "error": {
            "code": 429,
            "message": "Quota exceeded.",
            "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "12.5s"}],
        }
    }
