"""How answers leave the simulator: paced SSE streams, whole JSON bodies, a cut connection, no answer at all."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import anyio
from sse_starlette.sse import EventSourceResponse
from starlette.responses import Response
from starlette.types import Receive, Scope, Send


class ConnectionCut(anyio.EndOfStream):
    """Raised after a partial body on purpose: the server drops the connection without finishing the response.

    Over a socket the client sees the connection close mid-body. In-process transports (httpx2's ASGITransport)
    hand the app's exception to the client instead, and SDKs read ``EndOfStream`` as exactly that: the other end
    closed the stream. So both paths end in the SDK's connection error.
    """


def json_response(
    payload: bytes | dict[str, Any], status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    body = payload if isinstance(payload, bytes) else compact_json(payload)
    return Response(body, status_code=status, headers=dict(headers or {}), media_type="application/json")


def compact_json(payload: dict[str, Any]) -> bytes:
    """Without spaces, as the APIs send it: what ``Content-Length`` and a byte-for-byte replay see."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def sse_response(events: list[bytes], tail: bytes | None, *, pace_s: float) -> EventSourceResponse:
    """``events`` already framed by ``SSEEvent.encode``; a ``tail`` (a partial event) means: send it, then cut."""
    # No keep-alive pings: their timestamps would make two identical requests differ byte for byte.
    return EventSourceResponse(_paced(events, tail, pace_s), ping=0)


async def _paced(events: list[bytes], tail: bytes | None, pace_s: float) -> AsyncIterator[bytes]:
    for position, event in enumerate(events):
        if position and pace_s:
            await asyncio.sleep(pace_s)
        yield event
    if tail is not None:
        if pace_s:
            await asyncio.sleep(pace_s)
        yield tail
        raise ConnectionCut("sim-cut: the connection is closed mid-stream on purpose")


def cut_response(partial: bytes, declared_length: int) -> CutResponse:
    return CutResponse(partial, declared_length)


class CutResponse(Response):
    """A JSON response that announces its full length, sends half, and drops the connection."""

    def __init__(self, partial: bytes, declared_length: int) -> None:
        super().__init__(media_type="application/json")
        self.partial = partial
        self.declared_length = declared_length

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(b"content-type", b"application/json"), (b"content-length", str(self.declared_length).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": self.partial, "more_body": True})
        raise ConnectionCut("sim-cut: the connection is closed mid-body on purpose")


class HangResponse(Response):
    """Never answers; returns as soon as the client gives up (its disconnect is the only way out)."""

    def __init__(self) -> None:
        super().__init__()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        while (await receive())["type"] != "http.disconnect":
            continue
