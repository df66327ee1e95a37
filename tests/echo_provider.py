"""A fake OpenAI-compatible provider on localhost that quotes back the credentials it was sent, like some real
servers do in their error messages. The model name picks what it does:

- ``echo-401``: a 401 whose message quotes the Authorization header;
- ``echo-stream``: a streamed answer whose text and final in-stream error both quote the key.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.simulator_process import free_port


def _chunk(delta: dict[str, object], finish: str | None = None) -> str:
    body = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "echo-stream",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body)}\n\n"


# Every Authorization header received, in order: tests check what reached the provider (and what never did).
RECEIVED: list[str] = []


async def _completions(request: Request) -> Response:
    body = await request.json()
    RECEIVED.append(request.headers.get("authorization", ""))
    authorization = request.headers.get("authorization", "")
    key = authorization.removeprefix("Bearer ")
    if body.get("model") == "echo-401":
        message = f"Incorrect API key provided: {authorization}. You can find your API key at https://example/keys."
        return JSONResponse({"error": {"message": message, "type": "invalid_request_error"}}, status_code=401)

    async def stream() -> AsyncIterator[str]:
        yield _chunk({"role": "assistant", "content": f"Your key is {key}, "})
        yield _chunk({"content": "isn't it?"})
        yield f"data: {json.dumps({'error': {'message': f'Quota exceeded for key {key}', 'type': 'server_error'}})}\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream")


APP = Starlette(routes=[Route("/v1/chat/completions", _completions, methods=["POST"])])


@contextmanager
def echo_provider() -> Iterator[str]:
    """``http://127.0.0.1:<port>/v1`` of a running echo provider, stopped on exit."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(APP, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the echo provider did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
