"""decode_error: OpenAI error bodies (and what proxies send instead) -> ProviderError with the right type and flags."""

from __future__ import annotations

import json
import time
from email.utils import formatdate
from typing import Any

from providers import openai_chat
from providers.openai_chat.errors import retry_after, stream_error


def body(message: str, kind: str, code: str | None = None, param: str | None = None) -> bytes:
    return json.dumps({"error": {"message": message, "type": kind, "param": param, "code": code}}).encode()


def decode(status: int, raw: bytes, headers: dict[str, str] | None = None) -> Any:
    return openai_chat.decode_error(status, raw, headers or {})


def test_401_invalid_api_key() -> None:
    raw = body("Incorrect API key provided: sk-abc***xyz.", "invalid_request_error", "invalid_api_key")
    error = decode(401, raw)
    assert error.to_dict() == {
        "type": "authentication",
        "message": "Incorrect API key provided: sk-abc***xyz.",
        "status": 401,
        "retryable": False,
        "retry_after": None,
    }
    assert error.raw == json.loads(raw)


def test_status_decides_the_type() -> None:
    cases = {
        400: "invalid_request",
        403: "permission",
        404: "not_found",
        413: "invalid_request",
        422: "invalid_request",
        409: "invalid_request",
        500: "server",
        502: "server",
        503: "overloaded",
        504: "timeout",  # Gateway Timeout: retryable, and said as what it is
    }
    for status, kind in cases.items():
        assert decode(status, body("x", "server_error")).type == kind, status


def test_404_model_not_found() -> None:
    raw = body("The model `gpt-5-nano-x` does not exist or you do not have access to it.", "invalid_request_error")
    error = decode(404, raw)
    assert (error.type, error.retryable, error.status) == ("not_found", False, 404)
    assert error.message.startswith("The model `gpt-5-nano-x`")


def test_retryable_flags_follow_the_type() -> None:
    assert [decode(status, body("x", "t")).retryable for status in (400, 401, 403, 404, 422)] == [False] * 5
    assert [decode(status, body("x", "t")).retryable for status in (429, 500, 502, 503)] == [True] * 4


def test_429_rate_limit_with_retry_after_seconds() -> None:
    raw = body("Rate limit reached for gpt-4o on tokens per min (TPM)", "tokens", "rate_limit_exceeded")
    error = decode(429, raw, {"Retry-After": "20"})
    assert (error.type, error.retryable, error.retry_after) == ("rate_limit", True, 20.0)


def test_retry_after_ms_wins_over_retry_after() -> None:
    error = decode(
        429, body("slow down", "requests", "rate_limit_exceeded"), {"retry-after": "2", "retry-after-ms": "1500"}
    )
    assert error.retry_after == 1.5


def test_retry_after_http_date() -> None:
    now = 1_800_000_000.0
    assert retry_after({"retry-after": formatdate(now + 30, usegmt=True)}, now=now) == 30.0
    assert retry_after({"retry-after": formatdate(now - 30, usegmt=True)}, now=now) == 0.0
    later = decode(503, b"", {"retry-after": formatdate(time.time() + 120, usegmt=True)}).retry_after
    assert later is not None and 100 < later <= 120


def test_unreadable_retry_after_is_ignored() -> None:
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({"retry-after": "-5"}) is None
    assert retry_after({}) is None


def test_insufficient_quota_is_not_retryable() -> None:
    raw = body(
        "You exceeded your current quota, please check your plan and billing details.",
        "insufficient_quota",
        "insufficient_quota",
    )
    error = decode(429, raw, {"retry-after": "20"})
    assert (error.type, error.retryable, error.retry_after) == ("rate_limit", False, None)


def test_503_overloaded_is_retryable() -> None:
    error = decode(503, body("The engine is currently overloaded, please try again later", "server_error"))
    assert (error.type, error.retryable) == ("overloaded", True)


def test_non_json_body_from_a_proxy() -> None:
    error = decode(502, b"<html>\n<head><title>502 Bad Gateway</title></head>\n</html>\n")
    assert (error.type, error.retryable) == ("server", True)
    assert error.message == "HTTP 502: a web page (“502 Bad Gateway”), not the API's answer."  # not its markup
    assert error.raw == "<html>\n<head><title>502 Bad Gateway</title></head>\n</html>\n"


def test_empty_body_and_long_text_body() -> None:
    assert decode(500, b"").message == "HTTP 500"
    assert len(decode(500, b"x" * 1000).message) == len("HTTP 500: ") + 200


def test_json_body_without_error_object() -> None:
    error = decode(400, b'{"detail": "bad"}')
    assert (error.type, error.message) == ("invalid_request", 'HTTP 400: {"detail": "bad"}')


def test_unusual_status_falls_back_to_the_body() -> None:
    assert decode(200, body("x", "invalid_request_error")).type == "invalid_request"
    assert decode(200, b"oops").type == "server"


def test_in_stream_error_objects() -> None:
    openrouter = stream_error({"error": {"code": 502, "message": "Provider returned error"}})
    assert (openrouter.type, openrouter.retryable, openrouter.status) == ("server", True, None)
    groq = stream_error({"error": {"message": "bad call", "type": "invalid_request_error", "code": "tool_use_failed"}})
    assert (groq.type, groq.retryable) == ("invalid_request", False)
    unknown = stream_error({"error": {"message": "something odd"}})
    assert (unknown.type, unknown.message, unknown.retryable) == ("stream", "something odd", False)
    bare = stream_error({"message": "no wrapper", "code": "server_error"})
    assert (bare.type, bare.message) == ("server", "no wrapper")
    quota = stream_error({"error": {"message": "quota", "code": "insufficient_quota"}})
    assert (quota.type, quota.retryable) == ("rate_limit", False)
