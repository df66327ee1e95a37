"""Responses errors: HTTP error bodies, the in-stream ``error`` event and ``failed`` responses -> ProviderError."""

from __future__ import annotations

import json
from typing import Any

import pytest

from providers.errors import ProviderError
from providers.openai_responses import decode_error, encode_error
from providers.openai_responses.errors import error_event, failed_error, stream_error


def _body(message: str, kind: str, code: str | None = None, param: str | None = None) -> bytes:
    return json.dumps({"error": {"message": message, "type": kind, "param": param, "code": code}}).encode()


@pytest.mark.parametrize(
    ("status", "kind", "code", "internal", "retryable"),
    [
        (400, "invalid_request_error", None, "invalid_request", False),
        (401, "invalid_request_error", "invalid_api_key", "authentication", False),
        (403, "invalid_request_error", None, "permission", False),
        (404, "invalid_request_error", None, "not_found", False),
        (429, "requests", "rate_limit_exceeded", "rate_limit", True),
        (429, "insufficient_quota", "insufficient_quota", "rate_limit", False),
        (500, "server_error", None, "server", True),
        (503, "server_error", None, "overloaded", True),
    ],
)
def test_error_bodies(status: int, kind: str, code: str | None, internal: str, retryable: bool) -> None:
    error = decode_error(status, _body("boom", kind, code), {})
    assert (error.type, error.status, error.retryable, error.message) == (internal, status, retryable, "boom")
    assert error.raw == json.loads(_body("boom", kind, code))


def test_an_unknown_model_is_a_400_on_responses_but_still_not_found() -> None:
    raw = _body("The requested model 'gpt-9' does not exist.", "invalid_request_error", "model_not_found", "model")
    error = decode_error(400, raw, {})
    assert (error.type, error.status, error.retryable) == ("not_found", 400, False)


def test_bodies_that_are_not_json_are_mapped_by_status() -> None:
    error = decode_error(502, b"<html><body>\n  Bad gateway  </body></html>", {})
    assert (error.type, error.message, error.retryable) == (
        "server",
        "HTTP 502: a web page (“Bad gateway”), not the API's answer.",
        True,
    )
    assert error.raw == "<html><body>\n  Bad gateway  </body></html>"
    assert decode_error(503, b"", {}).message == "HTTP 503"


def test_retry_after_is_read_only_for_retryable_errors() -> None:
    headers = {"retry-after-ms": "1500", "Retry-After": "9"}
    assert decode_error(429, _body("x", "requests", "rate_limit_exceeded"), headers).retry_after == 1.5
    assert decode_error(429, _body("x", "insufficient_quota", "insufficient_quota"), headers).retry_after is None
    assert decode_error(500, _body("x", "server_error"), {"Retry-After": "2"}).retry_after == 2.0


@pytest.mark.parametrize(
    ("code", "internal", "retryable"),
    [
        ("insufficient_quota", "rate_limit", False),
        ("rate_limit_exceeded", "rate_limit", True),
        ("server_error", "server", True),
        ("invalid_prompt", "invalid_request", False),
        ("vector_store_timeout", "timeout", True),
        ("brand_new_code", "stream", False),
        (None, "stream", False),
    ],
)
def test_the_in_stream_error_event(code: str | None, internal: str, retryable: bool) -> None:
    event = {"type": "error", "code": code, "message": "It broke.", "param": None, "sequence_number": 3}
    error = stream_error(event)
    assert (error.type, error.retryable, error.status, error.message) == (internal, retryable, None, "It broke.")
    assert error.raw == event


def test_an_error_event_without_a_message_says_what_it_had() -> None:
    assert (
        stream_error({"type": "error", "code": "server_error"}).message == '{"type": "error", "code": "server_error"}'
    )
    assert stream_error({}).message == "The stream reported an error."


def test_a_failed_response() -> None:
    response = {"id": "resp_1", "status": "failed", "error": {"code": "server_error", "message": "Upstream failed."}}
    error = failed_error(response)
    assert (error.type, error.retryable, error.message, error.raw) == ("server", True, "Upstream failed.", response)
    assert failed_error({"status": "failed"}).message == "The response failed without saying why."


@pytest.mark.parametrize(
    ("internal", "body_type", "code"),
    [
        ("authentication", "invalid_request_error", "invalid_api_key"),
        ("not_found", "invalid_request_error", "model_not_found"),
        ("rate_limit", "requests", "rate_limit_exceeded"),
        ("overloaded", "server_error", "overloaded"),
        ("server", "server_error", None),
    ],
)
def test_encode_error_gives_the_body_openai_sends(internal: Any, body_type: str, code: str | None) -> None:
    body = encode_error(ProviderError(internal, "Nope"))
    assert body == {"error": {"message": "Nope", "type": body_type, "param": None, "code": code}}
    status = {"authentication": 401, "not_found": 400, "rate_limit": 429, "overloaded": 503, "server": 500}[internal]
    assert decode_error(status, json.dumps(body).encode(), {}).type == internal


@pytest.mark.parametrize(
    ("internal", "decoded"),
    [
        ("rate_limit", "rate_limit"),
        ("overloaded", "overloaded"),
        ("server", "server"),
        ("invalid_request", "invalid_request"),
        ("stream", "server"),  # the wire has no code for "some error": it says server_error
    ],
)
def test_an_encoded_error_event_decodes_back(internal: Any, decoded: str) -> None:
    error = stream_error(error_event(ProviderError(internal, "Nope")))
    assert (error.type, error.message) == (decoded, "Nope")
