"""Holding reads (providers.client.holds): while a caller's next message is held, the connection reads nothing, and
the read after takes everything that came meanwhile at once. Real sockets on 127.0.0.1 and the real SDK."""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from providers.client import Endpoint, RoundTripRun
from providers.client.holds import MAX_HOLD_S, holding_reads, read_hold
from providers.client.netbackend import AsyncioBackend, AsyncioStream
from tests.providers.test_netbackend import read_request, serve

CHUNKS = 8
GAP_S = 0.005


def drip(first: bytes, chunks: int = CHUNKS, gap_s: float = GAP_S) -> Callable[..., Awaitable[None]]:
    """A server that writes ``first``, then ``chunks`` numbered chunks ``gap_s`` apart, then waits for the client."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(first)
        await writer.drain()
        await asyncio.sleep(0.02)  # the client has read ``first`` and starts its next read
        for n in range(chunks):
            writer.write(b"<%d>" % n)
            await writer.drain()
            await asyncio.sleep(gap_s)
        await reader.read()  # until the client hangs up

    return handler


def buffered(stream: AsyncioStream) -> bytes:
    return bytes(stream._reader._buffer)  # what asyncio's transport already took from the kernel


def every_chunk(chunks: int = CHUNKS) -> bytes:
    return b"".join(b"<%d>" % n for n in range(chunks))


async def test_a_held_read_leaves_the_bytes_in_the_kernel_and_takes_them_all_at_once() -> None:
    async with serve(drip(b"hello")) as port:
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port)
        assert await stream.read(65536) == b"hello"
        with holding_reads(lambda: 0.09):
            read = asyncio.ensure_future(stream.read(65536))
            await asyncio.sleep(0.07)  # every chunk has been written by now
            assert isinstance(stream, AsyncioStream)
            assert buffered(stream) == b"", "paused: nothing is read from the socket while the read is held"
            assert not stream._writer.transport.is_reading()
            assert await read == every_chunk(), "the read after the hold takes all that came meanwhile"
        assert stream._writer.transport.is_reading(), "reading resumes after the hold"
        await stream.aclose()


async def test_without_a_hold_the_transport_reads_each_chunk_as_it_comes() -> None:
    # The control of the test above: the same server, no hold, and asyncio has read every chunk off the socket.
    async with serve(drip(b"hello")) as port:
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port)
        assert await stream.read(65536) == b"hello"
        await asyncio.sleep(0.07)
        assert isinstance(stream, AsyncioStream)
        assert buffered(stream) == every_chunk()
        assert await stream.read(65536) == every_chunk()
        await stream.aclose()


async def test_a_hold_does_not_count_against_the_read_timeout() -> None:
    # The chunks start 20 ms after "hello" and the read's timeout is 10 ms: the timeout counts from after the hold.
    async with serve(drip(b"hello", chunks=1)) as port:
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port)
        assert await stream.read(65536) == b"hello"
        with holding_reads(lambda: 0.05):
            assert await stream.read(65536, timeout=0.01) == b"<0>"
        await stream.aclose()


async def test_a_cancelled_held_read_resumes_the_connection() -> None:
    async with serve(drip(b"hello", chunks=2)) as port:
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port)
        assert isinstance(stream, AsyncioStream)
        assert await stream.read(65536) == b"hello"
        with holding_reads(lambda: 0.09):
            read = asyncio.ensure_future(stream.read(65536))
            await asyncio.sleep(0.01)
            read.cancel()
            with pytest.raises(asyncio.CancelledError):
                await read
        assert stream._writer.transport.is_reading()
        await asyncio.sleep(0.05)
        assert await stream.read(65536) == every_chunk(2), "nothing was lost to the cancelled read"
        await stream.aclose()


async def test_a_hold_is_bounded_and_belongs_to_the_block_that_set_it() -> None:
    assert read_hold() == 0.0, "no hold outside a block"
    with holding_reads(lambda: 60.0):
        assert read_hold() == MAX_HOLD_S, "a hold that misjudges cannot stall a stream"
        with holding_reads(lambda: -1.0):
            assert read_hold() == 0.0
        with holding_reads(None):
            assert read_hold() == 0.0
        assert read_hold() == MAX_HOLD_S, "the outer hold is back"
    assert read_hold() == 0.0


async def test_other_tasks_do_not_see_a_tasks_hold() -> None:
    seen: list[float] = []

    async def elsewhere() -> None:
        seen.append(read_hold())

    with holding_reads(lambda: 0.05):
        task = asyncio.get_running_loop().create_task(elsewhere(), context=contextvars.Context())
        await task
        assert read_hold() == 0.05
    assert seen == [0.0]


def sse_server(events: int, gap_s: float) -> Callable[..., Awaitable[None]]:
    """An OpenAI-compatible stream of ``events`` text deltas ``gap_s`` apart, each in its own write."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        body = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
        return b"data: " + json.dumps(body).encode() + b"\n\n"

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n")
        writer.write(chunk({"role": "assistant", "content": ""}))
        await writer.drain()
        for n in range(events):
            await asyncio.sleep(gap_s)
            writer.write(chunk({"content": f"w{n} "}))
            await writer.drain()
        writer.write(chunk({}, "stop") + b"data: [DONE]\n\n")
        await writer.drain()
        writer.close()

    return handler


async def stream_through_the_sdk(
    monkeypatch: pytest.MonkeyPatch, hold: Callable[[], float] | None, events: int = 60
) -> tuple[str, int]:
    """The answer's text and how many reads the connection made, for a run through the real SDK."""
    reads = 0
    real_read = AsyncioStream.read

    async def counted(self: AsyncioStream, max_bytes: int, timeout: float | None = None) -> bytes:
        nonlocal reads
        reads += 1
        return await real_read(self, max_bytes, timeout)

    monkeypatch.setattr(AsyncioStream, "read", counted)
    async with serve(sse_server(events, 0.004)) as port:
        endpoint = Endpoint("openai-chat", f"http://127.0.0.1:{port}/v1", "test-key")
        request = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}
        trip = await RoundTripRun(endpoint, request, read_hold=hold).run()  # type: ignore[arg-type]
    assert trip.result.error is None
    return str(trip.result.message.get("content")), reads


async def test_a_run_with_a_hold_reads_a_fast_stream_in_few_reads_and_loses_nothing(
    monkeypatch: pytest.MonkeyPatch, no_env_proxies: None
) -> None:
    text, reads = await stream_through_the_sdk(monkeypatch, lambda: 0.05)
    assert text == "".join(f"w{n} " for n in range(60))
    # 60 deltas 4 ms apart with reads held 50 ms: about one read per twelve deltas, and the head's and the end's.
    assert reads <= 20, reads


async def test_a_run_without_a_hold_reads_as_the_chunks_come(
    monkeypatch: pytest.MonkeyPatch, no_env_proxies: None
) -> None:
    text, reads = await stream_through_the_sdk(monkeypatch, None)
    assert text == "".join(f"w{n} " for n in range(60))
    assert reads > 30, "the control: unheld, the same stream takes a read per chunk or so"
