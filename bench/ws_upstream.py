"""The upstream model of the ws_stream bench: an OpenAI-compatible server whose text deltas carry their send time.

Run by bench/ws_stream.py as its own process:  python bench/ws_upstream.py --port P --rate 50 --seconds 10

``POST /v1/chat/completions`` (stream) answers with ``rate`` text deltas per second for ``seconds``, each text being
``|<seq>|<time.monotonic() when written>|`` padded to ``chars`` characters, then the finish, usage and ``[DONE]``
chunks. The bytes come from the app's own encoder (providers.openai_chat ``encode_stream``), so the app decodes
exactly what api.openai.com would send. ``GET /stats`` returns how many deltas were written per chat (keyed by the
last user message) and how late the writes were against their schedule.

Plain asyncio rather than Starlette + uvicorn: on a 2-core machine every cycle the upstream spends is taken from
the daphne process under test, and a raw protocol writes a delta for a fraction of what a framework would cost.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from providers.formats import get_format
from providers.streaming import StreamResult

PLACEHOLDER = "\x00"  # never produced by the encoder itself, so it marks where the stamp goes
HEADERS = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n"


WARM_UP_KEY = "warm-up"  # a chat the bench runs first, so imports and first connections are not measured
WARM_UP_DELTAS = 5


def deltas_for(key: str, rate: float, seconds: float) -> int:
    return WARM_UP_DELTAS if key == WARM_UP_KEY else round(rate * seconds)


def stamp_text(seq: int, chars: int) -> str:
    """A delta's text: its number and its send time, padded so every delta has the same size."""
    return f"|{seq}|{time.monotonic():.6f}|".ljust(chars, ".")


def parse_stamp(text: str, start: int) -> tuple[int, float]:
    """``(seq, sent)`` from a frame holding a stamp whose first ``|`` is at ``start``."""
    seq, sent, _ = text[start + 1 :].split("|", 2)
    return int(seq), float(sent)


@dataclass(frozen=True)
class StreamTemplate:
    """The SSE bytes of one answer, cut around the text of a single delta."""

    head: bytes  # the role chunk
    prefix: bytes  # a text chunk up to its text...
    suffix: bytes  # ...and after it
    tail: bytes  # finish, usage and [DONE]
    data_prefix: str  # the same text chunk as its ``data:`` JSON string, for the bare baseline's rt.wire frames
    data_suffix: str

    @classmethod
    def build(cls) -> StreamTemplate:
        message = {"role": "assistant", "content": PLACEHOLDER}
        result = StreamResult(message, "stop", None, {"prompt_tokens": 10, "completion_tokens": 10}, None, True)
        events = get_format("openai-chat").encode_stream(result, model="bench-1", response_id="chatcmpl-bench")
        escaped = json.dumps(PLACEHOLDER)[1:-1]  # the JSON text carries the placeholder escaped
        position = next(i for i, e in enumerate(events) if escaped in e.data)
        prefix, suffix = events[position].encode().decode().split(escaped)
        data_prefix, data_suffix = events[position].data.split(escaped)
        return cls(
            head=b"".join(e.encode() for e in events[:position]),
            prefix=prefix.encode(),
            suffix=suffix.encode(),
            tail=b"".join(e.encode() for e in events[position + 1 :]),
            data_prefix=data_prefix,
            data_suffix=data_suffix,
        )

    def chunk(self, text: str) -> bytes:
        return self.prefix + text.encode() + self.suffix  # stamps are ASCII without quotes: no JSON escaping needed

    def data(self, text: str) -> str:
        return self.data_prefix + text + self.data_suffix


@dataclass
class Upstream:
    rate: float
    seconds: float
    chars: int
    first_byte_delay: float = 0.0  # seconds before an answer starts: lets a client open its sockets first
    template: StreamTemplate = field(default_factory=StreamTemplate.build)
    sent: dict[str, int] = field(default_factory=dict)
    late_ms: list[float] = field(default_factory=list)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            request_line, *header_lines = head.decode("latin-1").split("\r\n")
            headers = dict(line.lower().split(": ", 1) for line in header_lines if ": " in line)
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            if request_line.startswith("GET /stats"):
                await self._send_json(writer, self.stats())
            elif request_line.startswith("POST") and request_line.split()[1].endswith("/chat/completions"):
                await self._stream(writer, _chat_key(body))
            else:
                writer.write(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            pass  # the app cancelled or the bench is shutting down
        finally:
            writer.close()

    async def _stream(self, writer: asyncio.StreamWriter, key: str) -> None:
        loop = asyncio.get_running_loop()
        if self.first_byte_delay and key != WARM_UP_KEY:
            await asyncio.sleep(self.first_byte_delay)
        writer.write(HEADERS + self.template.head)
        # A random phase: real chats do not all emit in the same millisecond, and aligned bursts would measure
        # the bench's synchrony rather than the server.
        start, count = loop.time() + random.random() / self.rate, deltas_for(key, self.rate, self.seconds)
        self.sent[key] = 0
        for seq in range(count):
            due = start + seq / self.rate  # an absolute schedule: a late write does not delay the next ones
            delay = due - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            self.late_ms.append(max(0.0, loop.time() - due) * 1000)
            writer.write(self.template.chunk(stamp_text(seq, self.chars)))
            self.sent[key] += 1
            await writer.drain()
        writer.write(self.template.tail)
        await writer.drain()

    def stats(self) -> dict[str, object]:
        late = sorted(self.late_ms)
        p99 = late[int(0.99 * (len(late) - 1))] if late else 0.0
        return {"sent": self.sent, "late_p99_ms": p99, "late_max_ms": late[-1] if late else 0.0}

    @staticmethod
    async def _send_json(writer: asyncio.StreamWriter, payload: object) -> None:
        body = json.dumps(payload).encode()
        head = f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
        writer.write(head.encode() + b"connection: close\r\n\r\n" + body)
        await writer.drain()


def _chat_key(body: bytes) -> str:
    """The chat a request belongs to: the bench sends a distinct first message per chat, or (the columns of a
    comparison share their message) a distinct model name per column, ``col-N``."""
    request = json.loads(body)
    messages = request.get("messages") or [{}]
    user = [m for m in messages if m.get("role") == "user"] or [{}]
    text = str(user[-1].get("content", ""))
    model = str(request.get("model", ""))
    return f"{model}/{text}" if model.startswith("col-") else text


async def serve(port: int, upstream: Upstream) -> None:
    server = await asyncio.start_server(upstream.handle, "127.0.0.1", port, backlog=1024)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--rate", type=float, default=50.0, help="deltas per second per chat")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long each answer streams")
    parser.add_argument("--chars", type=int, default=32, help="characters per delta")
    parser.add_argument("--first-byte-delay", type=float, default=0.0, help="seconds before each answer starts")
    args = parser.parse_args()
    asyncio.run(serve(args.port, Upstream(args.rate, args.seconds, args.chars, args.first_byte_delay)))


if __name__ == "__main__":
    main()
