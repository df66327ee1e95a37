"""Anthropic error bodies and in-stream error events -> ProviderError."""

from __future__ import annotations

import json

import pytest

from providers.anthropic import decode_error, encode_error
from providers.anthropic.errors import error_from_event
from providers.errors import ProviderError


def _body(kind: str, message: str = "boom") -> bytes:
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_011C"}).encode()


@pytest.mark.parametrize(
    ("status", "kind", "internal", "retryable"),
    [
        (400, "invalid_request_error", "invalid_request", False),
        (401, "authentication_error", "authentication", False),
        (403, "permission_error", "permission", False),
        (404, "not_found_error", "not_found", False),
        (413, "request_too_large", "invalid_request", False),
        (429, "rate_limit_error", "rate_limit", True),
        (500, "api_error", "server", True),
        (529, "overloaded_error", "overloaded", True),
    ],
)
def test_error_bodies(status: int, kind: str, internal: str, retryable: bool) -> None:
    error = decode_error(status, _body(kind), {})
    assert (error.type, error.status, error.retryable, error.message) == (internal, status, retryable, "boom")
    assert error.raw == json.loads(_body(kind))  # the body, request_id included, for the wire pane


@pytest.mark.parametrize(
    ("status", "internal"),
    [
        (400, "invalid_request"),
        (401, "authentication"),
        (403, "permission"),
        (404, "not_found"),
        (413, "invalid_request"),
        (429, "rate_limit"),
        (500, "server"),
        (502, "server"),
        (529, "overloaded"),
        (418, "invalid_request"),
    ],
)
def test_bodies_that_are_not_json_are_mapped_by_status(status: int, internal: str) -> None:
    error = decode_error(status, b"<html><body>\n  Bad gateway  </body></html>", {})
    assert error.type == internal
    hint = " Is the base URL right?" if status == 404 else ""
    assert error.message == f"HTTP {status}: a web page (“Bad gateway”), not the API's answer.{hint}"
    assert error.raw == "<html><body>\n  Bad gateway  </body></html>"


def test_an_empty_body() -> None:
    error = decode_error(503, b"", {})
    assert (error.type, error.message, error.retryable) == ("overloaded", "HTTP 503", True)


def test_json_without_an_error_object_is_mapped_by_status() -> None:
    error = decode_error(401, b'{"detail": "no key"}', {})
    assert error.type == "authentication"
    assert error.raw == {"detail": "no key"}


def test_retry_after_is_read_from_the_header_whatever_its_case() -> None:
    assert decode_error(429, _body("rate_limit_error"), {"retry-after": "12"}).retry_after == 12.0
    assert decode_error(429, _body("rate_limit_error"), {"Retry-After": "1.5"}).retry_after == 1.5
    # An HTTP date already past means "retry now".
    past = decode_error(429, _body("rate_limit_error"), {"Retry-After": "Wed, 21 Oct 2026 07:28:00 GMT"})
    assert past.retry_after == 0.0
    assert decode_error(429, _body("rate_limit_error"), {}).retry_after is None


def test_a_mid_stream_error_event() -> None:
    error = error_from_event({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    assert (error.type, error.retryable, error.status, error.message) == ("overloaded", True, None, "Overloaded")


def test_a_mid_stream_error_of_unknown_type_is_a_stream_error() -> None:
    error = error_from_event({"type": "error", "error": {"type": "brand_new_error"}})
    assert (error.type, error.retryable, error.message) == ("stream", False, "The stream reported an error.")


@pytest.mark.parametrize(
    ("internal", "wire"),
    [
        ("overloaded", "overloaded_error"),
        ("rate_limit", "rate_limit_error"),
        ("server", "api_error"),
        ("stream", "api_error"),
    ],
)
def test_encode_error_gives_the_body_anthropic_sends(internal: str, wire: str) -> None:
    body = encode_error(ProviderError(internal, "Nope"))  # type: ignore[arg-type]
    assert body == {"type": "error", "error": {"type": wire, "message": "Nope"}}
    assert decode_error(400, json.dumps(body).encode(), {}).message == "Nope"
