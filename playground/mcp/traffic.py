"""The JSON-RPC traffic of one MCP exchange, recorded for the pane beside a tool result.

The SDK's transports hand ``ClientSession`` a pair of message streams (``mcp.client.stdio``,
``mcp.client.streamable_http``), the one seam every transport shares: wrapping that pair records each message the
session sends and each one it receives, as JSON, with its time, whatever carried it. Two consequences of recording
there rather than on the socket: HTTP headers (the auth header among them) never pass through, and when an HTTP
response breaks off, the error the SDK stands in for the server's answer (``"SSE stream ended without a response"``)
is recorded as received, which is what the session acted on.

Every text received passes through a ``Scrubber`` first, so a server that quotes the auth value back cannot put it
into the record.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Literal

import anyio
from mcp.shared.message import SessionMessage

from providers.client.scrub import Scrubber

Direction = Literal["sent", "received"]


@dataclass(frozen=True, slots=True)
class TrafficEntry:
    direction: Direction
    at: str  # wall clock, ISO 8601 in UTC
    t_ms: float  # since the exchange started
    message: dict[str, Any] | None  # the JSON-RPC message; None when the transport reported an error instead
    error: str = ""  # what the transport reported (a line that is no JSON-RPC, a broken stream)

    def to_dict(self) -> dict[str, Any]:
        return {
            "direction": self.direction,
            "at": self.at,
            "t_ms": self.t_ms,
            "message": self.message,
            "error": self.error,
        }


@dataclass
class Recorder:
    scrubber: Scrubber = field(default_factory=Scrubber)
    entries: list[TrafficEntry] = field(default_factory=list)
    _started: float = field(default_factory=time.perf_counter)

    def reading(self, stream: Any) -> RecordingReadStream:
        return RecordingReadStream(stream, self)

    def writing(self, stream: Any) -> RecordingWriteStream:
        return RecordingWriteStream(stream, self)

    def note(self, direction: Direction, item: SessionMessage | Exception) -> None:
        if isinstance(item, SessionMessage):
            message = item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
            self._add(direction, self.scrubber.value(message), "")
        else:
            self._add(direction, None, self.scrubber.text(f"{type(item).__name__}: {item}"))

    def _add(self, direction: Direction, message: dict[str, Any] | None, error: str) -> None:
        t_ms = round((time.perf_counter() - self._started) * 1000, 1)
        at = datetime.now(UTC).isoformat(timespec="milliseconds")
        self.entries.append(TrafficEntry(direction, at, t_ms, message, error))


class RecordingReadStream:
    """The transport's read stream as the session sees it, noting each item on its way in."""

    def __init__(self, inner: Any, recorder: Recorder) -> None:
        self._inner = inner
        self._recorder = recorder

    @property
    def last_context(self) -> Any:
        # The dispatcher runs each message in its sender's context when the stream carries one (streamable HTTP).
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        item = await self._inner.receive()
        self._recorder.note("received", item)
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> RecordingReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:  # the transports' streams end with anyio's EndOfStream, as the SDK's own iterators expect
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> RecordingReadStream:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


class RecordingWriteStream:
    """The transport's write stream as the session sees it, noting each message on its way out."""

    def __init__(self, inner: Any, recorder: Recorder) -> None:
        self._inner = inner
        self._recorder = recorder

    async def send(self, item: SessionMessage, /) -> None:
        self._recorder.note("sent", item)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> RecordingWriteStream:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
