"""One error type for everything a provider can do wrong, with a flag that says whether to retry."""

from __future__ import annotations

from dataclasses import dataclass, field
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
