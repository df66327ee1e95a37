"""Each SDK client asks the OS it runs on in a worker thread before its first request; our clients live one round
trip, so the process asks once per SDK and every later client starts with the answer (providers.client.sdk)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from providers.client import sdk
from providers.client.capture import WireRequest
from providers.client.sdk import Endpoint, open_response
from tests.providers.test_netbackend import serve

BODIES: dict[str, dict[str, Any]] = {
    "openai-chat": {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True},
    "openai-responses": {"model": "m", "input": "hi", "stream": True},
    "anthropic": {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}], "stream": True},
}


async def round_trips(fmt: str, count: int, refused: int = 0) -> list[dict[str, str]]:
    """The headers of ``count`` round trips, each through a new SDK client, as a run makes them; the first
    ``refused`` of them are answered 401."""
    heads: list[dict[str, str]] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode()
        fields = dict(line.split(": ", 1) for line in head.split("\r\n")[1:] if ": " in line)
        heads.append({name.lower(): value for name, value in fields.items()})
        await reader.readexactly(int(heads[-1]["content-length"]))
        status = b"401 Unauthorized" if len(heads) <= refused else b"200 OK"
        writer.write(b"HTTP/1.1 " + status + b"\r\ncontent-type: text/event-stream\r\ncontent-length: 0\r\n\r\n")
        await writer.drain()

    async def on_request(request: WireRequest) -> None:
        return None

    async with serve(handler) as port:
        base = f"http://127.0.0.1:{port}" + ("" if fmt == "anthropic" else "/v1")
        for n in range(count):
            try:
                async with open_response(Endpoint(fmt, base, "test-key"), BODIES[fmt], on_request) as response:
                    assert response.status_code == 200
            except sdk.sdk_exceptions(Endpoint(fmt, base, "k")).AuthenticationError:
                assert n < refused
    return heads


def thread_hops(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What ``asyncio.to_thread`` runs from now on (the SDKs ask the platform through it)."""
    monkeypatch.setattr(sdk, "_PLATFORMS", {})  # a process that has not asked yet
    hops: list[str] = []
    real = asyncio.to_thread

    async def counted(function: Any, /, *args: Any, **kwargs: Any) -> Any:
        hops.append(getattr(function, "__name__", repr(function)))
        return await real(function, *args, **kwargs)

    monkeypatch.setattr(asyncio, "to_thread", counted)
    return hops


@pytest.mark.parametrize("fmt", sorted(BODIES))
async def test_only_the_first_client_of_an_sdk_asks_the_platform_in_a_thread(
    fmt: str, monkeypatch: pytest.MonkeyPatch, no_env_proxies: None
) -> None:
    hops = thread_hops(monkeypatch)
    heads = await round_trips(fmt, 3)
    assert hops == ["get_platform"], "the first client asks (the SDK's own way); the next two are told"
    platforms = {head["x-stainless-os"] for head in heads}
    assert len(heads) == 3 and len(platforms) == 1 and "" not in platforms, "every request still names the OS"


async def test_a_refused_request_still_leaves_the_answer_for_the_next_clients(
    monkeypatch: pytest.MonkeyPatch, no_env_proxies: None
) -> None:
    hops = thread_hops(monkeypatch)
    heads = await round_trips("anthropic", 3, refused=1)  # a wrong key, then a right one
    assert hops == ["get_platform"] and len(heads) == 3
