"""Frames at display rate: a fast provider's deltas reach a socket at most once per frame interval, all in order."""

from __future__ import annotations

import asyncio
import json
import time

from playground.chat.registry import ActiveRun

DELTAS = 300
PACE_S = 0.001  # a provider streaming about 500-1000 deltas a second


class Socket:
    def __init__(self) -> None:
        self.messages: list[tuple[float, list[dict[str, object]]]] = []

    async def send(self, text: str) -> None:
        self.messages.append((time.monotonic(), json.loads(text)))


async def stream(run: ActiveRun) -> tuple[Socket, float]:
    socket = Socket()
    run.subscribe(socket.send)
    started = time.monotonic()
    for n in range(DELTAS):
        run.emit({"type": "rt.delta", "n": n})
        await asyncio.sleep(PACE_S)  # the run awaits the next chunk: the sender may go now
    await run.flush()
    return socket, time.monotonic() - started


async def test_a_fast_stream_is_sent_at_most_once_per_frame_interval_in_order() -> None:
    run = ActiveRun(990101, frame_interval_s=0.016)
    socket, seconds = await stream(run)
    frames = [frame["n"] for _, message in socket.messages for frame in message]
    assert frames == list(range(DELTAS)), "every delta, once, in order"
    assert len(socket.messages) <= seconds / 0.016 + 2
    gaps = [later - earlier for (earlier, _), (later, _) in zip(socket.messages, socket.messages[1:], strict=False)]
    assert min(gaps) >= 0.014  # the interval, less the event loop's clock resolution


async def test_without_an_interval_every_step_is_its_own_message() -> None:
    run = ActiveRun(990102, frame_interval_s=0.0)
    socket, _ = await stream(run)
    assert [frame["n"] for _, message in socket.messages for frame in message] == list(range(DELTAS))
    assert len(socket.messages) > DELTAS / 2, "the control: uncoalesced, the same stream is many more messages"


async def test_a_slow_stream_is_not_held_back_to_gather() -> None:
    run = ActiveRun(990103, frame_interval_s=0.016)
    socket = Socket()
    run.subscribe(socket.send)
    for n in range(3):
        run.emit({"type": "rt.delta", "n": n})
        await asyncio.sleep(0.05)  # 20 deltas a second: slower than the interval
    await run.flush()
    assert [message for _, message in socket.messages] == [[{"type": "rt.delta", "n": n}] for n in range(3)]
