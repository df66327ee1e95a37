"""Gemini errors: Google's error bodies over HTTP and inside streams -> ProviderError, and the bodies we write."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from providers.errors import ProviderError
from providers.gemini import decode_error, encode_error
from providers.gemini.errors import stream_error

FIXTURES = Path(__file__).parent / "fixtures" / "gemini"


def _body(code: int, status: str, message: str = "boom", details: list[dict[str, Any]] | None = None) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message, "status": status}
    if details is not None:
        error["details"] = details
    return json.dumps({"error": error}).encode()


@pytest.mark.parametrize(
    ("status", "grpc", "internal", "retryable"),
    [
        (400, "INVALID_ARGUMENT", "invalid_request", False),
        (400, "FAILED_PRECONDITION", "invalid_request", False),
        (401, "UNAUTHENTICATED", "authentication", False),
        (403, "PERMISSION_DENIED", "permission", False),
        (404, "NOT_FOUND", "not_found", False),
        (429, "RESOURCE_EXHAUSTED", "rate_limit", True),
        (500, "INTERNAL", "server", True),
        (503, "UNAVAILABLE", "overloaded", True),
        (504, "DEADLINE_EXCEEDED", "timeout", True),
    ],
)
def test_error_bodies(status: int, grpc: str, internal: str, retryable: bool) -> None:
    error = decode_error(status, _body(status, grpc), {})
    assert (error.type, error.status, error.retryable, error.message) == (internal, status, retryable, "boom")
    assert error.raw == json.loads(_body(status, grpc))


def test_a_bad_api_key_is_a_400_that_reads_as_authentication() -> None:
    details = [
        {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "API_KEY_INVALID",
            "domain": "googleapis.com",
            "metadata": {"service": "generativelanguage.googleapis.com"},
        }
    ]
    body = _body(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", details)
    error = decode_error(400, body, {})
    assert (error.type, error.status, error.retryable) == ("authentication", 400, False)


def test_retry_info_gives_the_delay_before_any_header() -> None:
    error = decode_error(429, (FIXTURES / "error_quota.json").read_bytes(), {"retry-after": "9"})
    assert (error.type, error.retryable, error.retry_after) == ("rate_limit", True, 34.4)
    assert error.message.startswith("You exceeded your current quota")
    assert decode_error(429, _body(429, "RESOURCE_EXHAUSTED"), {"Retry-After": "9"}).retry_after == 9.0
    assert decode_error(400, _body(400, "INVALID_ARGUMENT"), {"retry-after": "9"}).retry_after is None


def test_the_status_decides_when_the_body_says_nothing() -> None:
    error = decode_error(502, b"<html><body>\n  Bad gateway  </body></html>", {})
    assert (error.type, error.message, error.retryable) == (
        "server",
        "HTTP 502: a web page (“Bad gateway”), not the API's answer.",
        True,
    )
    assert error.raw == "<html><body>\n  Bad gateway  </body></html>"
    assert decode_error(503, b"", {}).message == "HTTP 503"
    assert decode_error(404, b'{"error": {"code": 404}}', {}).type == "not_found"


def test_the_array_form_of_a_failed_stream_is_read() -> None:
    body = b"[" + _body(500, "INTERNAL", "An internal error has occurred.") + b"]"
    error = decode_error(500, body, {})
    assert (error.type, error.message) == ("server", "An internal error has occurred.")


def test_in_stream_errors_keep_their_type() -> None:
    error = stream_error(json.loads(_body(503, "UNAVAILABLE", "The model is overloaded.")))
    assert (error.type, error.retryable, error.status, error.message) == (
        "overloaded",
        True,
        None,
        "The model is overloaded.",
    )
    assert stream_error({"error": {"code": 429}}).type == "rate_limit"  # no status: the code says it
    unknown = stream_error({"error": {"status": "SOMETHING_NEW"}})
    assert (unknown.type, unknown.message, unknown.retryable) == ("stream", "The stream reported an error.", False)


@pytest.mark.parametrize(
    ("kind", "code", "status"),
    [
        ("invalid_request", 400, "INVALID_ARGUMENT"),
        ("authentication", 401, "UNAUTHENTICATED"),
        ("not_found", 404, "NOT_FOUND"),
        ("rate_limit", 429, "RESOURCE_EXHAUSTED"),
        ("overloaded", 503, "UNAVAILABLE"),
        ("server", 500, "INTERNAL"),
        ("stream", 500, "INTERNAL"),
    ],
)
def test_encoded_errors_decode_to_the_same_type(kind: str, code: int, status: str) -> None:
    body = encode_error(ProviderError(kind, "went wrong"))  # type: ignore[arg-type]
    assert body == {"error": {"code": code, "message": "went wrong", "status": status}}
    decoded = decode_error(code, json.dumps(body).encode(), {})
    assert (decoded.type, decoded.message) == ("server" if kind == "stream" else kind, "went wrong")


def test_an_encoded_retry_delay_is_read_back() -> None:
    body = encode_error(ProviderError("rate_limit", "slow down", status=429, retryable=True, retry_after=2.0))
    assert body["error"]["details"] == [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}]
    assert decode_error(429, json.dumps(body).encode(), {}).retry_after == 2.0
