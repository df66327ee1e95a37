"""Whole Responses bodies: decoding through the shared accumulator, and the bodies encode_response builds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from providers import events as ev
from providers.errors import ProviderError
from providers.openai_responses import decode_response, encode_request, encode_response, response_events
from providers.streaming import StreamResult

FIXTURES = Path(__file__).parent / "fixtures" / "openai_responses"
NAME = "openai-responses"


def _fixture() -> dict[str, Any]:
    return json.loads((FIXTURES / "response_reasoning_tools.json").read_text())


def _body(output: list[dict[str, Any]], status: str = "completed", **extra: Any) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "status": status, "model": "gpt-5", "output": output, **extra}


def _text(text: str, item_id: str = "msg_1") -> dict[str, Any]:
    part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
    return {"id": item_id, "type": "message", "status": "completed", "content": [part], "role": "assistant"}


def test_a_recorded_response_decodes_to_the_internal_message() -> None:
    fixture = _fixture()
    result = decode_response(fixture)
    message = result.message
    assert message["content"] == "Let me check the weather in Zürich."
    assert [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in message["tool_calls"]] == [
        ("call_Wx9", "get_weather", '{"city":"Zürich"}'),
        ("call_Yz0", "list_doors", "{}"),
    ]
    assert [c["provider_data"] for c in message["tool_calls"]] == [
        {"format": NAME, "fields": {"id": "fc_07e3"}},  # the item id; status is the response's lifecycle
        {"format": NAME, "fields": {"id": "fc_07e4"}},
    ]
    data = message["provider_data"]
    assert data["blocks"] == [fixture["output"][0]]
    assert data["reasoning"] == "**Checking the weather**\n\nThe user wants Paris.\n\nCall the tool."
    assert data["fields"]["message"]["id"] == "msg_07e2"
    assert (result.finish_reason, result.raw_finish_reason, result.complete) == ("tool_calls", "completed", True)


def test_usage_counts_cached_and_reasoning_tokens() -> None:
    body = _body([_text("hi")])
    body["usage"] = {
        "input_tokens": 1200,
        "input_tokens_details": {"cached_tokens": 1024, "cache_write_tokens": 100},
        "output_tokens": 300,
        "output_tokens_details": {"reasoning_tokens": 256},
        "total_tokens": 1500,
    }
    assert decode_response(body).usage == {
        "prompt_tokens": 1200,
        "completion_tokens": 300,
        "total_tokens": 1500,
        "cached_tokens": 1024,
        "cache_creation_tokens": 100,
        "reasoning_tokens": 256,
    }


@pytest.mark.parametrize(
    ("status", "details", "internal", "raw"),
    [
        ("completed", None, "stop", "completed"),
        ("incomplete", {"reason": "max_output_tokens"}, "length", "max_output_tokens"),
        ("incomplete", {"reason": "content_filter"}, "content_filter", "content_filter"),
        ("incomplete", {"reason": "brand_new_reason"}, "length", "brand_new_reason"),
        ("incomplete", None, "length", "incomplete"),
    ],
)
def test_status_and_incomplete_details_give_the_finish(
    status: str, details: dict[str, Any] | None, internal: str, raw: str
) -> None:
    result = decode_response(_body([_text("partial")], status, incomplete_details=details))
    assert (result.finish_reason, result.raw_finish_reason, result.complete) == (internal, raw, True)


def test_a_call_cut_by_max_output_tokens_is_length_not_tool_calls() -> None:
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": '{"a":'}
    result = decode_response(_body([call], "incomplete", incomplete_details={"reason": "max_output_tokens"}))
    assert result.finish_reason == "length"


def test_a_failed_response_is_an_error() -> None:
    body = _body([], "failed", error={"code": "rate_limit_exceeded", "message": "Slow down."})
    result = decode_response(body)
    assert result.error is not None
    assert (result.error.type, result.error.retryable, result.error.message) == ("rate_limit", True, "Slow down.")
    assert (result.finish_reason, result.complete) == ("error", False)


def test_a_cancelled_response_is_a_cancelled_error() -> None:
    result = decode_response(_body([], "cancelled"))
    assert result.error is not None and result.error.type == "cancelled"


def test_a_background_response_still_in_progress_is_incomplete() -> None:
    result = decode_response(_body([], "in_progress"))
    assert (result.finish_reason, result.complete, result.error) == (None, False, None)


def test_an_http_error_body_is_a_stream_error() -> None:
    body = {
        "error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}
    }
    (event,) = response_events(body)
    assert isinstance(event, ev.StreamError)
    assert (event.error.type, event.error.message) == ("authentication", "Incorrect API key provided")


def test_a_body_without_output_is_an_invalid_response() -> None:
    (event,) = response_events({"id": "resp_1", "status": "completed"})
    assert isinstance(event, ev.StreamError) and event.error.type == "invalid_response"


def test_a_call_without_a_call_id_gets_a_stable_synthetic_one() -> None:
    call = {"type": "function_call", "id": "fc_1", "name": "f", "arguments": "{}"}
    first = decode_response(_body([call])).message["tool_calls"][0]["id"]
    assert first.startswith("call_") and first == decode_response(_body([call])).message["tool_calls"][0]["id"]
    assert first != decode_response({**_body([call]), "id": "resp_2"}).message["tool_calls"][0]["id"]


def test_a_refusal_is_kept_whole_and_resent() -> None:
    refusal = {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant"}
    refusal["content"] = [{"type": "refusal", "refusal": "I can't help with that."}]
    message = decode_response(_body([refusal])).message
    assert message["content"] is None
    assert message["provider_data"]["fields"]["items"] == [refusal]
    history = [{"role": "user", "content": "x"}, message]
    assert encode_request({"model": "m", "messages": history}).value["input"][1] == refusal  # type: ignore[typeddict-item]


def test_the_decoded_message_goes_back_as_the_same_items() -> None:
    fixture = _fixture()
    message = decode_response(fixture).message
    tools = [{"type": "function_call_output", "call_id": c["id"], "output": "ok"} for c in message["tool_calls"]]
    history: list[Any] = [
        {"role": "user", "content": "x"},
        message,
        *({"role": "tool", "tool_call_id": c["id"], "content": "ok"} for c in message["tool_calls"]),
    ]
    body = encode_request({"model": "gpt-5", "messages": history}).value
    without_status = [
        {k: v for k, v in item.items() if k != "status" or item["type"] != "function_call"}
        for item in fixture["output"]
    ]
    assert body["input"][1:] == [*without_status, *tools]


# --- encoding ----------------------------------------------------------------------------------------------------


def test_encode_response_writes_what_the_api_returns() -> None:
    result = decode_response(_fixture())
    body = encode_response(result, model="gpt-5", response_id="resp_9", created=1700000000)
    assert {key: body[key] for key in ("id", "object", "created_at", "status", "model", "error")} == {
        "id": "resp_9",
        "object": "response",
        "created_at": 1700000000,
        "status": "completed",
        "model": "gpt-5",
        "error": None,
    }
    assert body["output"] == _fixture()["output"]
    assert body["usage"] == _fixture()["usage"]


def test_encode_response_of_a_length_finish_is_incomplete() -> None:
    result = StreamResult({"role": "assistant", "content": "Half"}, "length", None, None, None, True)
    body = encode_response(result, model="m", response_id="resp_1")
    assert (body["status"], body["incomplete_details"]) == ("incomplete", {"reason": "max_output_tokens"})
    assert body["output"][0]["content"][0]["text"] == "Half"


def test_encode_response_of_an_error_is_the_http_error_body() -> None:
    result = StreamResult(
        {"role": "assistant", "content": None}, "error", None, None, ProviderError("rate_limit", "Slow"), False
    )
    assert encode_response(result, model="m", response_id="r") == {
        "error": {"message": "Slow", "type": "requests", "param": None, "code": "rate_limit_exceeded"}
    }


def test_a_whole_response_round_trips() -> None:
    result = decode_response(_fixture())
    assert (
        decode_response(json.loads(json.dumps(encode_response(result, model="m", response_id="resp_07e0")))) == result
    )
