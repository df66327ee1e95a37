"""OpenAI Chat errors: HTTP error bodies, error objects inside a 200 stream, and the body we write for a failed run.

Quirks handled:

* The body is ``{"error": {"message", "type", "param", "code"}}``; proxies in front of compat servers send HTML or
  plain text instead, which still becomes a ProviderError carrying the start of that text.
* The HTTP status decides the type (401 authentication, 403 permission, 404 not_found, 400/413/422
  invalid_request, 429 rate_limit, 503 overloaded, other 5xx server). A 429 with ``insufficient_quota`` is a
  billing problem, so it is not retryable although rate limits are.
* ``retry-after-ms`` (OpenAI, more precise) wins over ``retry-after``, which is seconds or an HTTP date.
* In-stream errors (OpenRouter's ``{"error": {...}}`` chunk, Groq's ``event: error``) have no HTTP status; their
  ``code``/``type`` decide the type (OpenRouter's numeric ``code`` is an HTTP-like status), else ``stream``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from providers.errors import RETRYABLE, ErrorType, ProviderError, plain_message, retry_after, status_type

_BY_CODE: dict[str, ErrorType] = {
    "invalid_api_key": "authentication",
    "authentication_error": "authentication",
    "permission_error": "permission",
    "permission_denied": "permission",
    "model_not_found": "not_found",
    "not_found_error": "not_found",
    "invalid_request_error": "invalid_request",
    "rate_limit_exceeded": "rate_limit",
    "rate_limit_error": "rate_limit",
    "insufficient_quota": "rate_limit",
    "overloaded": "overloaded",
    "overloaded_error": "overloaded",
    "server_error": "server",
    "api_error": "server",
}

# What encode_response / encode_stream write for an internal error type: (type, code) as OpenAI spells them.
_WIRE: dict[str, tuple[str, str | None]] = {
    "authentication": ("invalid_request_error", "invalid_api_key"),
    "permission": ("invalid_request_error", "permission_denied"),
    "not_found": ("invalid_request_error", "model_not_found"),
    "invalid_request": ("invalid_request_error", None),
    "rate_limit": ("requests", "rate_limit_exceeded"),
    "overloaded": ("server_error", "overloaded"),
}


def decode_error(status: int, body: bytes, headers: Mapping[str, str]) -> ProviderError:
    parsed = _parse(body)
    obj = _error_object(parsed)
    kind = status_type(status) or classify(obj) or "server"
    retryable = kind in RETRYABLE and not _is_quota(obj)
    return ProviderError(
        type=kind,
        message=_message(obj, body, status),
        status=status,
        retryable=retryable,
        retry_after=retry_after(headers) if retryable else None,
        raw=parsed if parsed is not None else body.decode(errors="replace"),
    )


def stream_error(payload: dict[str, Any]) -> ProviderError:
    """An error object that arrived inside an HTTP 200 stream (or as a whole JSON body without a status)."""
    obj = _error_object(payload) or payload
    kind = classify(obj) or "stream"
    message = obj.get("message") if isinstance(obj.get("message"), str) else json.dumps(obj)[:300]
    return ProviderError(
        type=kind,
        message=message or "error event without a message",
        retryable=kind in RETRYABLE and not _is_quota(obj),
        raw=payload,
    )


def error_body(error: ProviderError) -> dict[str, Any]:
    kind, code = _WIRE.get(error.type, ("server_error", None))
    return {"error": {"message": error.message, "type": kind, "param": None, "code": code}}


def classify(obj: dict[str, Any]) -> ErrorType | None:
    """The type an error object states by itself: its ``code`` first (more specific), then its ``type``."""
    code = obj.get("code")
    if isinstance(code, int) and not isinstance(code, bool):
        return status_type(code)
    for key in ("code", "type"):
        value = obj.get(key)
        if isinstance(value, str) and value in _BY_CODE:
            return _BY_CODE[value]
    return None


def _parse(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def _error_object(parsed: Any) -> dict[str, Any]:
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
        return parsed["error"]
    return {}


def _is_quota(obj: dict[str, Any]) -> bool:
    return "insufficient_quota" in (obj.get("code"), obj.get("type"))


def _message(obj: dict[str, Any], body: bytes, status: int) -> str:
    message = obj.get("message")
    if isinstance(message, str) and message:
        return message
    return plain_message(status, body)
