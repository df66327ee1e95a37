"""The second floor of the ws_stream bench: the least an app can do with the same parts, under daphne.

Run by bench/ws_stream.py:  python -m daphne -b 127.0.0.1 -p PORT ws_relay:application  (bench/ and the project on
PYTHONPATH), with WS_RELAY_UPSTREAM set to the upstream's ``/v1`` URL.

Per chat it does what the app must do at the least, with the parts the app must use: the request goes out through
the official SDK on the app's own HTTP client (``providers.client.sdk.open_response``), and each SSE event read
from the raw stream is forwarded as one message holding an ``rt.wire`` and an ``rt.delta`` frame, the shapes the
app sends. No Django, no Channels, no database, no accumulator, no replay buffer. The gap between this and the bare
send is the cost of reading a provider's stream in the same process; the gap between the app and this is ours.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from providers.client.capture import WireRequest
from providers.client.sdk import Endpoint, open_response

Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

ENDPOINT = Endpoint("openai-chat", os.environ.get("WS_RELAY_UPSTREAM", ""), "bench")


async def application(scope: Message, receive: Receive, send: Send) -> None:
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": b'{"ok": true}'})
    elif scope["type"] == "websocket":
        await _chat(receive, send)


async def _chat(receive: Receive, send: Send) -> None:
    if (await receive())["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await _send_json(send, {"type": "snapshot", "running": False, "frames": [], "waiting": []})
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            return
        content = json.loads(message.get("text") or "{}")
        if content.get("type") == "send":
            await _send_json(send, {"type": "turn.started", "message_count": 1})
            await _relay(send, str(content.get("text", "")))


async def _ignore(request: WireRequest) -> None:
    return None


async def _relay(send: Send, key: str) -> None:
    body = {"model": "bench-1", "messages": [{"role": "user", "content": key}], "stream": True}
    started, pending = time.perf_counter(), b""
    async with open_response(ENDPOINT, body, _ignore) as response:
        async for chunk in response.iter_bytes():
            *events, pending = (pending + chunk).split(b"\n\n")  # the upstream writes LF-only SSE
            for event in events:
                data = event.removeprefix(b"data: ").decode()
                if data == "[DONE]":
                    continue
                t_ms = round((time.perf_counter() - started) * 1000, 2)
                frames: list[Message] = [{"type": "rt.wire", "rt": 0, "t_ms": t_ms, "event": None, "data": data}]
                delta = (json.loads(data).get("choices") or [{}])[0].get("delta", {})
                if delta.get("content"):
                    frames.append({"type": "rt.delta", "rt": 0, "kind": "text", "text": delta["content"]})
                await send({"type": "websocket.send", "text": json.dumps(frames, separators=(",", ":"))})
    await _send_json(send, {"type": "run.end", "status": "done", "message": "The model finished."})


async def _send_json(send: Send, frame: Message) -> None:
    await send({"type": "websocket.send", "text": json.dumps(frame)})
