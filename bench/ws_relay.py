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

import os
import time

from ws_bare import Message, Receive, Send, send_frames, serve_chat

from providers import jsontext
from providers.client.capture import WireRequest
from providers.client.sdk import Endpoint, open_response

ENDPOINT = Endpoint("openai-chat", os.environ.get("WS_RELAY_UPSTREAM", ""), "bench")


async def application(scope: Message, receive: Receive, send: Send) -> None:
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": b'{"ok": true}'})
    elif scope["type"] == "websocket":
        await serve_chat(receive, send, _relay)


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
                delta = (jsontext.loads(data).get("choices") or [{}])[0].get("delta", {})
                if delta.get("content"):
                    frames.append({"type": "rt.delta", "rt": 0, "kind": "text", "text": delta["content"]})
                await send_frames(send, frames)
    await send_frames(send, [{"type": "run.end", "status": "done", "message": "The model finished."}])
