"""The browser side of the ws_stream bench: one WebSocket per chat, timing every stamped delta as it arrives.

The same code drives the real app and the bare baseline. Per message it does as little as it can (a substring
search and a split per delta, no JSON parsing of deltas), because on a 2-core machine its cycles are taken from the
server it measures. A run's frames come as JSON arrays (docs/websocket.md), so one message may hold several deltas.
``run_in_processes`` splits the chats over several client processes when one cannot keep up.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection
from ws_upstream import parse_stamp

# How a text delta's stamp starts in a message (compact JSON). Inside the rt.wire frame's ``data`` the same text sits
# in a JSON string with escaped quotes, so this matches only the rt.delta frames.
DELTA_MARK = '"kind":"text","text":"|'
END_TYPES = {"run.end", "error"}
END_MARKS = ('"run.end"', '"error"')
CONNECTS_AT_ONCE = 20  # handshakes in flight: daphne answers each after a session lookup in the database


@dataclass(frozen=True)
class Target:
    """Where the chats go and what they send; plain data, so it crosses to client processes."""

    ws_url: str  # up to the conversation id: f"{ws_url}{id}/"
    origin: str
    cookie: str
    options: dict[str, Any]
    deadline_s: float  # a chat that has not ended by then is given up (its missing deltas count as lost)


@dataclass
class ChatResult:
    key: str
    sent_at: list[float] = field(default_factory=list)  # each delta's stamp (monotonic s)...
    latencies_ms: list[float] = field(default_factory=list)  # ...and how long it took to arrive
    seqs: set[int] = field(default_factory=set)
    frames: int = 0
    chars: int = 0
    ended: str = ""  # the status of run.end, or what went wrong
    in_order: bool = True  # every delta arrived after the one written before it
    last_seq: int = -1


async def _connect(target: Target, conversation_id: int) -> ClientConnection:
    return await websockets.connect(
        f"{target.ws_url}{conversation_id}/",
        origin=target.origin,  # type: ignore[arg-type]
        additional_headers={"Cookie": f"sessionid={target.cookie}"},
        open_timeout=60,
        ping_interval=None,  # keep the wire to the measured frames
        compression=None,  # daphne does not negotiate permessage-deflate anyway
        max_size=None,
    )


async def _receive(socket: ClientConnection, result: ChatResult) -> None:
    async for message in socket:
        now = time.monotonic()
        assert isinstance(message, str)
        result.frames += 1
        result.chars += len(message)
        at = message.find(DELTA_MARK)
        while at >= 0:
            start = at + len(DELTA_MARK) - 1
            seq, sent = parse_stamp(message, start)
            if seq <= result.last_seq:
                result.in_order = False
            result.last_seq = seq
            result.sent_at.append(sent)
            result.latencies_ms.append((now - sent) * 1000)
            result.seqs.add(seq)
            at = message.find(DELTA_MARK, start)
        if not any(mark in message for mark in END_MARKS):
            continue
        content = json.loads(message)
        for frame in content if isinstance(content, list) else [content]:
            if frame.get("type") in END_TYPES:
                result.ended = str(frame.get("status") or frame.get("error"))
                return


async def _chat(socket: ClientConnection, target: Target, key: str, go: asyncio.Event) -> ChatResult:
    result = ChatResult(key)
    try:
        await go.wait()
        await socket.send(json.dumps({"type": "send", "text": key, "options": target.options}))
        await asyncio.wait_for(_receive(socket, result), timeout=target.deadline_s)
    except (TimeoutError, websockets.ConnectionClosed) as exc:
        result.ended = result.ended or f"{type(exc).__name__}"
    finally:
        await socket.close()
    return result


async def run_chats(target: Target, chats: dict[str, int], ramp_s: float) -> list[ChatResult]:
    """Open every socket (and read its snapshot), then start the chats spread evenly over ``ramp_s``."""
    limit = asyncio.Semaphore(CONNECTS_AT_ONCE)

    async def opened(conversation_id: int) -> ClientConnection:
        async with limit:
            socket = await _connect(target, conversation_id)
            await socket.recv()  # the snapshot
            return socket

    sockets = await asyncio.gather(*(opened(cid) for cid in chats.values()))
    gates = [asyncio.Event() for _ in sockets]
    tasks = [
        asyncio.create_task(_chat(s, target, key, gate)) for s, key, gate in zip(sockets, chats, gates, strict=True)
    ]
    for index, gate in enumerate(gates):
        gate.set()
        if ramp_s > 0 and index < len(gates) - 1:
            await asyncio.sleep(ramp_s / len(gates))
    return list(await asyncio.gather(*tasks))


def _worker(target: Target, chats: dict[str, int], ramp_s: float, ready: Any, go: Any, out: Any) -> None:
    ready.set()
    go.wait()
    out.send(asyncio.run(run_chats(target, chats, ramp_s)))
    out.close()


def run_in_processes(
    target: Target, chats: dict[str, int], ramp_s: float, processes: int, watch: Callable[[list[int]], None]
) -> list[ChatResult]:
    """The chats split over ``processes`` client processes, started together; results merged.

    Always in child processes, even for one, so the parent (which samples CPU) stays out of the clients' figures.
    ``watch`` gets their PIDs once they are ready, before the first handshake.
    """
    context = multiprocessing.get_context("spawn")  # a fresh interpreter: no state from the parent's threads
    keys = list(chats)
    go = context.Event()
    workers: list[tuple[Any, Any]] = []
    for index in range(processes):
        part = {key: chats[key] for key in keys[index::processes]}
        ready, (receiver, sender) = context.Event(), context.Pipe(duplex=False)
        process = context.Process(target=_worker, args=(target, part, ramp_s, ready, go, sender), daemon=True)
        process.start()
        sender.close()
        ready.wait(30)
        workers.append((process, receiver))
    watch([process.pid for process, _ in workers])
    go.set()
    results: list[ChatResult] = []
    for process, receiver in workers:
        if not receiver.poll(target.deadline_s + 120):  # bounded even if a client process died silently
            process.terminate()
            raise RuntimeError(f"client process {process.pid} sent no results")
        results.extend(receiver.recv())
        process.join(30)
        if process.is_alive():
            process.terminate()
    return results
