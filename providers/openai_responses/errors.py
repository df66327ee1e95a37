"""OpenAI Responses errors: HTTP error bodies, the in-stream ``error`` event, a ``failed`` response, and the bodies
and events we write for a failed result.

Quirks handled:

* HTTP errors use the Chat error object ``{"error": {"message", "type", "param", "code"}}``; a body that is not JSON
  (a proxy's HTML) still becomes a ProviderError quoting its start.
* The HTTP status decides the type, except that an unknown model is a **400** with code ``model_not_found`` on
  Responses (404 on Chat): the code wins there, so it still reads as ``not_found``.
* A 429 ``insufficient_quota`` is a billing problem: a rate_limit, but not retryable.
* Mid-stream (after HTTP 200): an ``{"type": "error", "code", "message", "param"}`` event, then
  ``response.failed`` whose ``response.error`` holds ``{code, message}``. Both are decoded by their ``code``
  (``server_error``, ``rate_limit_exceeded``, ``insufficient_quota``, ``invalid_prompt``, the image errors...);
  an unknown code is a ``stream`` error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from providers.errors import RETRYABLE, ErrorType, ProviderError, plain_message, retry_after, status_type

_BY_CODE: dict[str, ErrorType] = {
    "invalid_api_key": "authentication",
    "authentication_error": "authentication",
    "permission_denied": "permission",
    "permission_error": "permission",
    "model_not_found": "not_found",
    "not_found_error": "not_found",
    "invalid_request_error": "invalid_request",
    "invalid_prompt": "invalid_request",
    "context_length_exceeded": "invalid_request",
    "rate_limit_exceeded": "rate_limit",
    "insufficient_quota": "rate_limit",
    "server_error": "server",
    "api_error": "server",
    "overloaded": "overloaded",
    "vector_store_timeout": "timeout",
}
# Codes that say more than any status: an unknown model is a 400 on Responses, but it is not the request's fault.
_CODE_WINS: frozenset[str] = frozenset({"model_not_found"})

# What we write for an internal error type: (HTTP body type, code), and the code of a failed response's error.
_WIRE: dict[str, tuple[str, str | None]] = {
    "authentication": ("invalid_request_error", "invalid_api_key"),
    "permission": ("invalid_request_error", "permission_denied"),
    "not_found": ("invalid_request_error", "model_not_found"),
    "invalid_request": ("invalid_request_error", None),
    "rate_limit": ("requests", "rate_limit_exceeded"),
    "overloaded": ("server_error", "overloaded"),
}
_FAILED_CODES: dict[str, str] = {"rate_limit": "rate_limit_exceeded", "invalid_request": "invalid_prompt"}


def decode_error(status: int, body: bytes, headers: Mapping[str, str]) -> ProviderError:
    parsed = _parse(body)
    obj = _error_object(parsed)
    code = obj.get("code")
    by_code = classify(obj) if code in _CODE_WINS else None
    kind = by_code or status_type(status) or classify(obj) or "server"
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
    """The ``error`` event (flat ``code``/``message``), or an error object nested under ``error``."""
    obj = payload["error"] if isinstance(payload.get("error"), dict) else payload
    return _in_stream(obj, payload, "The stream reported an error.")


def failed_error(response: dict[str, Any]) -> ProviderError:
    """A ``failed`` response: its ``error`` object says why."""
    obj = response.get("error") if isinstance(response.get("error"), dict) else {}
    return _in_stream(obj, response, "The response failed without saying why.")


def cancelled_error(response: dict[str, Any]) -> ProviderError:
    return ProviderError("cancelled", "The response was cancelled.", raw=response)


def encode_error(error: ProviderError) -> dict[str, Any]:
    """The HTTP error body OpenAI sends for ``error`` (what a failed non-streamed request gets)."""
    kind, code = _WIRE.get(error.type, ("server_error", None))
    return {"error": {"message": error.message, "type": kind, "param": None, "code": code}}


def failed_code(error: ProviderError) -> str:
    """A code of the ``response.error`` enumeration (the SDK's ``ResponseError.code``)."""
    return _FAILED_CODES.get(error.type, "server_error")


def error_event(error: ProviderError) -> dict[str, Any]:
    """The in-stream ``error`` event for ``error`` (the code as a Chat error body would carry it)."""
    _, code = _WIRE.get(error.type, ("server_error", None))
    return {"type": "error", "code": code or failed_code(error), "message": error.message, "param": None}


def classify(obj: dict[str, Any]) -> ErrorType | None:
    """The type an error object states by itself: its ``code`` first (more specific), then its ``type``."""
    for key in ("code", "type"):
        value = obj.get(key)
        if isinstance(value, str) and value in _BY_CODE:
            return _BY_CODE[value]
    return None


def _in_stream(obj: dict[str, Any], raw: dict[str, Any], fallback: str) -> ProviderError:
    kind = classify(obj) or "stream"
    message = obj.get("message")
    if not isinstance(message, str) or not message:
        message = json.dumps(obj)[:300] if obj else fallback
    return ProviderError(kind, message, retryable=kind in RETRYABLE and not _is_quota(obj), raw=raw)


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
