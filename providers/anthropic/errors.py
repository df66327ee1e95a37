"""Anthropic errors: HTTP error bodies, in-stream ``error`` events, and the bodies the simulator sends.

Body shape: ``{"type": "error", "error": {"type", "message"}, "request_id"}``. 529 ``overloaded_error`` and
mid-stream ``error`` events (after an HTTP 200) must stay retryable and visible.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from providers.errors import RETRYABLE, ErrorType, ProviderError, plain_message, retry_after, status_type

ERROR_TYPES: dict[str, ErrorType] = {
    "invalid_request_error": "invalid_request",
    "authentication_error": "authentication",
    "permission_error": "permission",
    "billing_error": "permission",
    "not_found_error": "not_found",
    "request_too_large": "invalid_request",
    "rate_limit_error": "rate_limit",
    "api_error": "server",
    "overloaded_error": "overloaded",
    "timeout_error": "timeout",
}
WIRE_ERROR_TYPES: dict[str, str] = {
    "invalid_request": "invalid_request_error",
    "authentication": "authentication_error",
    "permission": "permission_error",
    "not_found": "not_found_error",
    "rate_limit": "rate_limit_error",
    "overloaded": "overloaded_error",
    "timeout": "timeout_error",
}


def decode_error(status: int, body: bytes, headers: Mapping[str, str]) -> ProviderError:
    text = body.decode(errors="replace") if isinstance(body, bytes) else str(body)
    try:
        raw: Any = json.loads(text)
    except ValueError:
        raw = None
    error = raw.get("error") if isinstance(raw, dict) else None
    if not isinstance(error, dict):
        return _error(_status_type(status), _plain_message(status, text), status, headers, raw if raw else text)
    kind = ERROR_TYPES.get(str(error.get("type")), _status_type(status))
    message = str(error.get("message") or f"HTTP {status} ({error.get('type', 'error')})")
    return _error(kind, message, status, headers, raw)


def error_from_event(data: dict[str, Any]) -> ProviderError:
    """An ``error`` event inside an HTTP 200 stream (e.g. overloaded): keeps its type, so it can be retried."""
    error = data.get("error") if isinstance(data.get("error"), dict) else {}
    kind: ErrorType = ERROR_TYPES.get(str(error.get("type")), "stream")
    message = str(error.get("message") or "The stream reported an error.")
    return ProviderError(kind, message, None, kind in RETRYABLE, None, data)


def encode_error(error: ProviderError) -> dict[str, Any]:
    """The body (or ``error`` event data) Anthropic would send for ``error``."""
    return {"type": "error", "error": {"type": WIRE_ERROR_TYPES.get(error.type, "api_error"), "message": error.message}}


def _status_type(status: int) -> ErrorType:
    return status_type(status) or ("server" if status >= 500 else "invalid_request")


def _plain_message(status: int, text: str) -> str:
    return plain_message(status, text)


def _error(kind: ErrorType, message: str, status: int, headers: Mapping[str, str], raw: Any) -> ProviderError:
    return ProviderError(kind, message, status, kind in RETRYABLE, retry_after(headers), raw)
