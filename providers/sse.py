"""Server-sent events: an incremental parser for raw response bytes, and the framing the simulator writes.

The SDKs' own decoders are private API, and httpx-sse would bring a second HTTP stack beside the SDKs' httpx2, so
the few rules of the WHATWG event-stream format live here: lines end in LF, CRLF or CR; a blank line dispatches;
``data`` lines join with LF; a leading space after the colon is dropped; lines starting with ``:`` are comments.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class SSEEvent:
    data: str
    event: str | None = None  # the ``event:`` line; None when the stream has none (OpenAI Chat)
    id: str | None = None

    def encode(self) -> bytes:
        head = f"event: {self.event}\n" if self.event is not None else ""
        body = "".join(f"data: {line}\n" for line in self.data.split("\n"))
        return f"{head}{body}\n".encode()


@dataclass
class SSEParser:
    _buffer: str = ""
    _data: list[str] = field(default_factory=list)
    _event: str | None = None
    _id: str | None = None
    _pending_cr: bool = False
    _decoder_tail: bytes = b""

    def feed(self, chunk: bytes | str) -> list[SSEEvent]:
        text = self._decode(chunk) if isinstance(chunk, bytes) else chunk
        if not text:
            return []  # an empty read (or half a UTF-8 character) must not forget a pending CR
        if self._pending_cr and text.startswith("\n"):
            text = text[1:]  # the LF of a CRLF split across two chunks
        self._pending_cr = text.endswith("\r")
        self._buffer += text
        # Providers send LF-only streams; str.split is several times faster than the regex that handles CR too.
        lines = _LINE_END.split(self._buffer) if "\r" in self._buffer else self._buffer.split("\n")
        self._buffer = lines.pop()  # an unterminated last line waits for more bytes
        out: list[SSEEvent] = []
        index, last = 0, len(lines) - 1
        while index <= last:
            line = lines[index]
            if index < last and not lines[index + 1] and line.startswith("data: ") and self._nothing_pending():
                # Nearly every event: one "data: " line, then the blank line. Made in one step, not three.
                out.append(SSEEvent(line[6:]))
                index += 2
                continue
            event = self._line(line)
            if event is not None:
                out.append(event)
            index += 1
        return out

    def close(self) -> list[SSEEvent]:
        """End of input: a trailing line without its newline still counts; an undispatched event is dropped."""
        out = self.feed("\n") if self._buffer else []
        self._data, self._event, self._id = [], None, None
        return out

    def _nothing_pending(self) -> bool:
        return not self._data and self._event is None and self._id is None

    def _decode(self, chunk: bytes) -> str:
        raw = self._decoder_tail + chunk
        try:
            self._decoder_tail = b""
            return raw.decode()
        except UnicodeDecodeError as exc:
            if exc.start >= len(raw) - 3 and exc.reason == "unexpected end of data":
                self._decoder_tail = raw[exc.start :]  # a multi-byte character split across chunks
                return raw[: exc.start].decode()
            return raw.decode(errors="replace")

    def _line(self, line: str) -> SSEEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            self._id = value
        return None

    def _dispatch(self) -> SSEEvent | None:
        if not self._data and self._event is None:
            return None
        event = SSEEvent("\n".join(self._data), self._event, self._id)
        self._data, self._event, self._id = [], None, None
        return event


def parse(chunks: Iterable[bytes | str]) -> Iterator[SSEEvent]:
    parser = SSEParser()
    for chunk in chunks:
        yield from parser.feed(chunk)
    yield from parser.close()


def looks_like_sse(body: str) -> bool:
    """Tell an SSE body from a JSON one (the CLI auto-detects which it was given)."""
    head = body.lstrip()[:200]
    return bool(re.match(r"(event|data|id|retry)\s*:|:", head))
