"""One error type for everything a provider can do wrong, with a flag that says whether to retry."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Literal

ErrorType = Literal[
    "authentication",  # 401, bad or missing key
    "permission",  # 403
    "not_found",  # 404, unknown model or path
    "invalid_request",  # 400/422, the provider rejected what we sent
    "rate_limit",  # 429
    "overloaded",  # Anthropic 529, OpenAI 503
    "server",  # 5xx
    "timeout",  # no answer within the request's timeout
    "connection",  # could not connect, or the connection was cut mid-stream
    "stream",  # an error event inside an HTTP 200 stream
    "invalid_response",  # the provider sent something we cannot read
    "cancelled",  # the user stopped the run
]

RETRYABLE: frozenset[str] = frozenset({"rate_limit", "overloaded", "server", "timeout", "connection"})


@dataclass
class ProviderError(Exception):
    type: ErrorType
    message: str
    status: int | None = None
    retryable: bool = False
    retry_after: float | None = None
    raw: Any = field(default=None, repr=False)  # the provider's own error body or event, for the wire pane

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "message": self.message,
            "status": self.status,
            "retryable": self.retryable,
            "retry_after": self.retry_after,
        }


# What an HTTP status says on its own, whatever the provider: each codec reads its own error body first.
STATUS_TYPES: dict[int, ErrorType] = {
    400: "invalid_request",
    401: "authentication",
    403: "permission",
    404: "not_found",
    408: "timeout",
    413: "invalid_request",
    422: "invalid_request",
    429: "rate_limit",
    503: "overloaded",
    504: "timeout",
    529: "overloaded",
}


def status_type(status: int) -> ErrorType | None:
    if status in STATUS_TYPES:
        return STATUS_TYPES[status]
    if 500 <= status < 600:
        return "server"
    if 400 <= status < 500:
        return "invalid_request"
    return None


def retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds to wait: ``retry-after-ms`` (OpenAI, more precise) wins over ``retry-after`` (seconds or HTTP date)."""
    lowered = {key.lower(): value for key, value in headers.items()}
    millis = _non_negative(lowered.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    value = lowered.get("retry-after")
    if value is None:
        return None
    seconds = _non_negative(value)
    if seconds is not None:
        return seconds
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


def _non_negative(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if number >= 0 else None


_HTML_START = re.compile(rb"\s*<(!doctype\s+html|html)\b", re.IGNORECASE)
_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_HTML_HIDDEN = re.compile(r"<(script|style|head)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_HTML_TAG = re.compile(r"<[^>]*>")
SNIPPET_CHARS = 200
PAGE_NAME_CHARS = 80
WRONG_PATH_STATUSES = frozenset({404, 405})


def plain_message(status: int, body: bytes | str) -> str:
    """A readable message for an error body that is not the provider's JSON: its first words, or, for a web page
    (a wrong base URL that reached a site, or a proxy's own error page), what the page calls itself, not its markup."""
    raw = body.encode(errors="replace") if isinstance(body, str) else body
    text = raw.decode(errors="replace")
    if _HTML_START.match(raw):
        return f"HTTP {status}: {_page_summary(text)}" + (
            " Is the base URL right?" if status in WRONG_PATH_STATUSES else ""
        )
    snippet = " ".join(text.split())[:SNIPPET_CHARS]
    return f"HTTP {status}: {snippet}" if snippet else f"HTTP {status}"


def _page_summary(html: str) -> str:
    title = _HTML_TITLE.search(html)
    name = title[1] if title else _HTML_TAG.sub(" ", _HTML_HIDDEN.sub(" ", html))
    name = " ".join(name.split())[:PAGE_NAME_CHARS]
    return f"a web page (“{name}”), not the API's answer." if name else "a web page, not the API's answer."
