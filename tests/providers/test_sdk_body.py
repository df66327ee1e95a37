"""The body that reaches the provider is the codec's body, key for key, whatever the SDK would make of it; and the
OpenAI SDK's type-driven transform no longer walks a conversation's messages on the event loop (providers.client.sdk).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from providers.client.capture import WireRequest
from providers.client.sdk import Endpoint, open_response
from tests.providers.test_netbackend import serve

TOOL = {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}


def bodies() -> dict[str, dict[str, Any]]:
    history = [{"role": "user", "content": f"question {n}"} for n in range(12)]
    return {
        "openai-chat": {
            "model": "m", "messages": history, "stream": True, "stream_options": {"include_usage": True},
            "tools": [{"type": "function", "function": TOOL}], "top_k": 3,
        },
        "openai-responses": {
            "model": "m", "input": history, "stream": True, "tools": [{"type": "function", **TOOL}],
            "vendor_extension": {"a": [1, 2]},
        },
        "anthropic": {
            "model": "m", "max_tokens": 64, "messages": history, "stream": True,
            "tools": [{"name": "get_weather", "input_schema": TOOL["parameters"]}], "top_k": 3,
        },
    }  # fmt: skip


async def received_body(fmt: str, body: dict[str, Any]) -> dict[str, Any]:
    got: list[dict[str, Any]] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
        )
        got.append(json.loads(await reader.readexactly(length)))
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: 0\r\n\r\n")
        await writer.drain()

    async def on_request(request: WireRequest) -> None:
        return None

    async with serve(handler) as port:
        base = f"http://127.0.0.1:{port}" + ("" if fmt == "anthropic" else "/v1")
        async with open_response(Endpoint(fmt, base, "test-key"), body, on_request) as response:
            assert response.status_code == 200
    return got[0]


@pytest.mark.parametrize("fmt", ["openai-chat", "openai-responses", "anthropic"])
async def test_the_provider_gets_the_codecs_body_unchanged(fmt: str, no_env_proxies: None) -> None:
    body = bodies()[fmt]
    assert await received_body(fmt, body) == body


@pytest.mark.parametrize(
    ("fmt", "module", "key"),
    [
        ("openai-chat", "openai.resources.chat.completions.completions", "messages"),
        ("openai-responses", "openai.resources.responses.responses", "input"),
    ],
)
async def test_the_openai_sdk_does_not_walk_the_conversation(
    fmt: str, module: str, key: str, monkeypatch: pytest.MonkeyPatch, no_env_proxies: None
) -> None:
    import importlib

    sdk_module = importlib.import_module(module)
    walked: list[Any] = []
    real = sdk_module.async_maybe_transform

    async def recorded(data: Any, expected_type: Any) -> Any:
        walked.append(data)
        return await real(data, expected_type)

    monkeypatch.setattr(sdk_module, "async_maybe_transform", recorded)
    body = bodies()[fmt]
    assert (await received_body(fmt, body))[key] == body[key], "the whole conversation is sent"
    assert walked, "the SDK's create ran its transform (the patch is in the right place)"
    assert all(not data.get(key) for data in walked), "but not over the conversation"
