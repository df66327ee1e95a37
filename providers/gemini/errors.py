"""Gemini errors: Google's error body over HTTP and inside a stream, and the bodies we write for a failed result.

Body: ``{"error": {"code": 429, "message", "status": "RESOURCE_EXHAUSTED", "details": [...]}}`` (a JSON array
around it when the stream was not SSE). Quirks handled:

* The gRPC ``status`` decides the type (``INVALID_ARGUMENT``, ``NOT_FOUND``, ``RESOURCE_EXHAUSTED``,
  ``UNAVAILABLE``...), the HTTP status when there is none. A bad API key is a **400** ``INVALID_ARGUMENT`` with the
  reason ``API_KEY_INVALID`` in an ``ErrorInfo`` detail: it reads as ``authentication``.
* Retry info: a ``RetryInfo`` detail's ``retryDelay`` (``"34.4s"``) gives ``retry_after``, before any header.
* Mid-stream (after HTTP 200) the same object arrives as a ``data:`` chunk: a StreamError of the same type.
* A body that is not JSON (a proxy's HTML) still becomes a ProviderError quoting its start.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from providers.errors import RETRYABLE, ErrorType, ProviderError, plain_message, retry_after, status_type

_BY_STATUS: dict[str, ErrorType] = {
    "INVALID_ARGUMENT": "invalid_request",
    "FAILED_PRECONDITION": "invalid_request",
    "OUT_OF_RANGE": "invalid_request",
    "UNAUTHENTICATED": "authentication",
    "PERMISSION_DENIED": "permission",
    "NOT_FOUND": "not_found",
    "RESOURCE_EXHAUSTED": "rate_limit",
    "INTERNAL": "server",
    "UNKNOWN": "server",
    "DATA_LOSS": "server",
    "UNAVAILABLE": "overloaded",
    "DEADLINE_EXCEEDED": "timeout",
    "CANCELLED": "cancelled",
}
_AUTH_REASONS = frozenset({"API_KEY_INVALID", "API_KEY_EXPIRED", "API_KEY_SERVICE_BLOCKED"})
# What we write for an internal error type: (HTTP code, gRPC status).
_WIRE: dict[str, tuple[int, str]] = {
    "invalid_request": (400, "INVALID_ARGUMENT"),
    "authentication": (401, "UNAUTHENTICATED"),
    "permission": (403, "PERMISSION_DENIED"),
    "not_found": (404, "NOT_FOUND"),
    "rate_limit": (429, "RESOURCE_EXHAUSTED"),
    "overloaded": (503, "UNAVAILABLE"),
    "timeout": (504, "DEADLINE_EXCEEDED"),
    "cancelled": (499, "CANCELLED"),
}
_RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


def decode_error(status: int, body: bytes, headers: Mapping[str, str]) -> ProviderError:
    text = body.decode(errors="replace") if isinstance(body, bytes) else str(body)
    try:
        parsed: Any = json.loads(text)
    except ValueError:
        parsed = None
    obj = error_object(parsed)
    kind = classify(obj) or status_type(status) or "server"
    retryable = kind in RETRYABLE
    return ProviderError(
        type=kind,
        message=_message(obj, text, status),
        status=status,
        retryable=retryable,
        retry_after=_retry_after(obj, headers) if retryable else None,
        raw=parsed if parsed is not None else text,
    )


def stream_error(payload: dict[str, Any]) -> ProviderError:
    """An ``{"error": {...}}`` chunk inside an HTTP 200 stream."""
    obj = error_object(payload)
    kind = classify(obj) or _code_type(obj) or "stream"
    message = obj.get("message") if isinstance(obj.get("message"), str) and obj.get("message") else None
    retryable = kind in RETRYABLE
    return ProviderError(
        kind,
        message or "The stream reported an error.",
        retryable=retryable,
        retry_after=_retry_after(obj, {}) if retryable else None,
        raw=payload,
    )


def encode_error(error: ProviderError) -> dict[str, Any]:
    """Google's error body for ``error`` (the HTTP body, and the chunk a failed stream ends with)."""
    code, status = _WIRE.get(error.type, (500, "INTERNAL"))
    body: dict[str, Any] = {"code": error.status or code, "message": error.message, "status": status}
    if error.retry_after is not None:
        body["details"] = [{"@type": _RETRY_INFO, "retryDelay": f"{error.retry_after:g}s"}]
    return {"error": body}


def error_object(parsed: Any) -> dict[str, Any]:
    if isinstance(parsed, list) and parsed and isinstance(parsed[0], dict):
        parsed = parsed[0]  # the non-SSE stream wraps its chunks (and its error) in an array
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
        return parsed["error"]
    return {}


def classify(obj: dict[str, Any]) -> ErrorType | None:
    """The type the error object states: an API key reason first (a 400 that is an authentication error)."""
    for detail in _details(obj):
        if detail.get("reason") in _AUTH_REASONS:
            return "authentication"
    status = obj.get("status")
    return _BY_STATUS.get(status) if isinstance(status, str) else None


def _code_type(obj: dict[str, Any]) -> ErrorType | None:
    code = obj.get("code")
    return status_type(code) if isinstance(code, int) and not isinstance(code, bool) else None


def _details(obj: dict[str, Any]) -> list[dict[str, Any]]:
    details = obj.get("details")
    return [detail for detail in details if isinstance(detail, dict)] if isinstance(details, list) else []


def _retry_after(obj: dict[str, Any], headers: Mapping[str, str]) -> float | None:
    for detail in _details(obj):
        delay = detail.get("retryDelay")
        match = _DURATION.match(delay) if isinstance(delay, str) else None
        if detail.get("@type") == _RETRY_INFO and match:
            return float(match[1])
    return retry_after(headers)


def _message(obj: dict[str, Any], text: str, status: int) -> str:
    message = obj.get("message")
    if isinstance(message, str) and message:
        return message
    return plain_message(status, text)
