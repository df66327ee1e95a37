"""What one model round trip looked like on the wire: the exact request sent and the raw events received.

Secrets never leave here: header values that carry credentials are replaced before anything is stored or shown.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from providers.streaming import StreamResult
from providers.types import ChatRequest

# Every header that can carry a credential, across providers and gateways (lower-case).
SECRET_HEADERS = frozenset(
    {"authorization", "x-api-key", "api-key", "x-goog-api-key", "proxy-authorization", "cookie", "openai-organization"}
)
REDACTED = "[redacted]"


def redact_headers(headers: dict[str, str]) -> dict[str, str]:
    return {name: (REDACTED if name.lower() in SECRET_HEADERS else value) for name, value in headers.items()}


@dataclass
class WireRequest:
    method: str
    url: str
    headers: dict[str, str]  # already redacted
    body: Any  # the JSON body as sent (parsed back from the exact bytes)

    @classmethod
    def from_parts(cls, method: str, url: str, headers: dict[str, str], content: bytes) -> WireRequest:
        try:
            body: Any = json.loads(content) if content else None
        except ValueError:
            body = content.decode(errors="replace")
        return cls(method, url, redact_headers(headers), body)

    def to_dict(self) -> dict[str, Any]:
        # The body is what was parsed back from the bytes sent, and nothing changes it afterwards: it is shared, not
        # copied (``asdict`` would copy every message and tool of it, for the frame and the row alike).
        return {"method": self.method, "url": self.url, "headers": dict(self.headers), "body": self.body}


@dataclass(frozen=True, slots=True)
class WireEvent:
    """One event as the provider sent it: an SSE event, or the whole body of a non-streamed response."""

    t_ms: float  # since the request started
    data: str
    event: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"t_ms": self.t_ms, "event": self.event, "data": self.data}


@dataclass
class Clock:
    started: float = field(default_factory=time.perf_counter)
    first_byte: float | None = None

    def since_start_ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 2)

    def mark_first_byte(self) -> None:
        if self.first_byte is None:
            self.first_byte = time.perf_counter()

    def ttfb_ms(self) -> float | None:
        return None if self.first_byte is None else round((self.first_byte - self.started) * 1000, 2)


# A raw event as a round trip keeps it while it streams, and as a batch saves it: (t_ms, data, event).
RawEvent = tuple[float, str, str | None]


def raw_event_dicts(events: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
    """Raw events as ``WireEvent.to_dict`` gives them, from (t_ms, data, event) tuples or a batch's lists."""
    return [{"t_ms": t_ms, "event": event, "data": data} for t_ms, data, event in events]


@dataclass
class RoundTrip:
    """Everything about one model round trip, as the panes and the saved conversation need it."""

    format: str
    request: ChatRequest
    notes: list[str]
    wire_request: WireRequest | None
    # The raw events as the stream kept them: a long answer has thousands, and its end is saved as dicts, so they
    # become ``WireEvent`` objects only if someone reads ``wire_events`` (building them cost more than the dicts).
    raw_events: list[RawEvent]
    status: int | None
    result: StreamResult
    ttfb_ms: float | None
    total_ms: float

    @cached_property
    def wire_events(self) -> list[WireEvent]:
        return [WireEvent(*event) for event in self.raw_events]

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "request": self.request,
            "notes": self.notes,
            "wire_request": None if self.wire_request is None else self.wire_request.to_dict(),
            "wire_events": raw_event_dicts(self.raw_events),
            "status": self.status,
            "result": self.result.to_dict(),
            "raw_finish_reason": self.result.raw_finish_reason,
            "complete": self.result.complete,
            "ttfb_ms": self.ttfb_ms,
            "total_ms": self.total_ms,
        }
