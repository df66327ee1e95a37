"""The floor for the ws_stream bench: a raw ASGI WebSocket app under daphne that only sends stamped frames.

Run by bench/ws_stream.py:  python -m daphne -b 127.0.0.1 -p PORT ws_bare:application  (bench/ on PYTHONPATH),
configured by WS_BARE_RATE, WS_BARE_SECONDS and WS_BARE_CHARS.

It speaks just enough of the chat protocol for the same client code: a snapshot on connect, "turn.started" on
"send", then per delta the message the app sends (a JSON array of an ``rt.wire`` frame holding the same SSE chunk
the upstream writes and an ``rt.delta`` frame with the stamped text), byte for byte the same shapes and sizes, at
the same rate and phase rule, then "run.end". No Django, no Channels, no upstream: what is left is daphne, autobahn
and the client, so its latency is what this machine can do at best for the same traffic.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ws_upstream import StreamTemplate, deltas_for, stamp_text

from providers import jsontext

Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

RATE = float(os.environ.get("WS_BARE_RATE", "50"))
SECONDS = float(os.environ.get("WS_BARE_SECONDS", "10"))
CHARS = int(os.environ.get("WS_BARE_CHARS", "32"))
TEMPLATE = StreamTemplate.build()
SENT: dict[str, int] = {}


async def application(scope: Message, receive: Receive, send: Send) -> None:
    if scope["type"] == "http":
        await _http(scope, send)
    elif scope["type"] == "websocket":
        await _chat(receive, send)


async def _http(scope: Message, send: Send) -> None:
    body = json.dumps({"sent": SENT} if scope["path"] == "/stats" else {"ok": True}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


async def _chat(receive: Receive, send: Send) -> None:
    await serve_chat(receive, send, _stream)


async def serve_chat(receive: Receive, send: Send, answer: Callable[[Send, str], Awaitable[None]]) -> None:
    """Just enough of the chat protocol for the bench's client: a snapshot, then ``answer`` for every "send"."""
    if (await receive())["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send_json(send, {"type": "snapshot", "running": False, "frames": [], "waiting": []})
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            return
        content = json.loads(message.get("text") or "{}")
        if content.get("type") == "send":
            await send_json(send, {"type": "turn.started", "message_count": 1})
            await answer(send, str(content.get("text", "")))


async def _stream(send: Send, key: str) -> None:
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    start, count = loop.time() + random.random() / RATE, deltas_for(key, RATE, SECONDS)  # the upstream's rule
    SENT[key] = 0
    for seq in range(count):
        delay = start + seq / RATE - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        text = stamp_text(seq, CHARS)
        t_ms = round((time.perf_counter() - started) * 1000, 2)
        wire = {"type": "rt.wire", "rt": 0, "t_ms": t_ms, "event": None, "data": TEMPLATE.data(text)}
        await send_frames(send, [wire, {"type": "rt.delta", "rt": 0, "kind": "text", "text": text}])
        SENT[key] += 1
    await send_frames(send, [{"type": "run.end", "status": "done", "message": "The model finished."}])


async def send_json(send: Send, frame: Message) -> None:
    await send({"type": "websocket.send", "text": json.dumps(frame)})  # json.dumps as Channels' send_json does


async def send_frames(send: Send, frames: list[Message]) -> None:
    """A run's frames as the app sends them: one compact JSON array per message, with the app's encoder
    (playground/chat/registry.py), so the floors and the app differ by what the app does, not how it writes JSON."""
    await send({"type": "websocket.send", "text": jsontext.dumps(frames)})
