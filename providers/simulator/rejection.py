"""A request the simulated API refuses: the status and the words; each vendor server writes its own body."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rejection:
    message: str
    status: int = 400
    param: str | None = None  # OpenAI names the offending field; Anthropic puts the path in the message
    code: str | None = None
    kind: str = "invalid_request"  # the vendor module maps it to its own error type


def rejected(message: str, *, param: str | None = None, code: str | None = None) -> Rejection:
    return Rejection(message, param=param, code=code)
