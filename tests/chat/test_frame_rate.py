"""Frames at display rate: a fast provider's deltas reach a socket at most once per frame interval, all in order."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playground.chat.pacing import READ_LEAD_FRAMES, next_due, read_wait, slot_after
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
    assert run.frame_slack == 2, "the default: two frames of slack"
    assert len(socket.messages) <= seconds / 0.016 + 3
    # The n-th message is due n intervals after the first was: it cannot go more than the slack sooner (the first
    # may have gone up to an interval late, so one more is allowed for), whatever the loop's lateness does to a gap.
    start = socket.messages[0][0]
    assert all(sent - start >= (n - 3) * 0.016 - 0.002 for n, (sent, _) in enumerate(socket.messages))


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


async def test_a_message_sent_late_does_not_hold_back_the_next() -> None:
    """The event loop was busy (another stream) when a frame was due: the next frame, on time, is not delayed to
    keep an interval after the late send. Frames are counted from when they were due."""
    run = ActiveRun(990104, frame_interval_s=0.016)
    socket = Socket()
    run.subscribe(socket.send)
    first = time.monotonic()
    run.emit({"type": "rt.delta", "n": 0})
    time.sleep(0.014)  # the loop is held: the first message goes 14 ms late
    await asyncio.sleep(0.020 - (time.monotonic() - first))
    second = time.monotonic()
    run.emit({"type": "rt.delta", "n": 1})  # 20 ms after the first: more than an interval
    await run.flush()
    assert [message for _, message in socket.messages] == [[{"type": "rt.delta", "n": n}] for n in range(2)]
    assert socket.messages[1][0] - second < 0.006, "sent at once, not an interval after the late first send"


async def test_a_stream_just_slower_than_the_frame_rate_is_never_held_back() -> None:
    """A 50 Hz stream whose first delta comes 3 ms after the head chunk's message: every delta goes at once. Paced
    strictly one frame after the previous message, the first would wait 14 ms and each later one 3 ms less."""
    run = ActiveRun(990105, frame_interval_s=0.017)
    socket = Socket()
    run.subscribe(socket.send)
    run.emit({"type": "rt.wire", "n": -1})  # the head chunk, just before the first delta
    await asyncio.sleep(0.003)
    emitted: list[float] = []
    for n in range(8):
        emitted.append(time.monotonic())
        run.emit({"type": "rt.delta", "n": n})
        await asyncio.sleep(0.020)
    await run.flush()
    sent = [at for at, message in socket.messages if message[0]["type"] == "rt.delta"]
    assert len(sent) == 8, "one message per delta: none had to wait for another to gather with"
    waits = [at - was for at, was in zip(sent, emitted, strict=True)]
    assert max(waits) < 0.008, f"no delta waited for a frame slot: {[round(w * 1000, 1) for w in waits]} ms"


async def test_the_slack_is_two_frames_not_a_burst() -> None:
    """After an idle stretch, three messages may go back to back, the fourth waits its frame: the average stays at
    one message per frame."""
    run = ActiveRun(990106, frame_interval_s=0.030, frame_slack=2)
    socket = Socket()
    run.subscribe(socket.send)
    for n in range(4):
        run.emit({"type": "rt.delta", "n": n})
        await asyncio.sleep(0.001)  # the sender takes what is queued each time the run awaits
    await run.flush()
    times = [at for at, _ in socket.messages]
    assert [[f["n"] for f in m] for _, m in socket.messages] == [[0], [1], [2], [3]]
    assert times[2] - times[0] < 0.015, "the second and third go within the slack"
    assert times[3] - times[0] >= 0.030 - 0.002, "the fourth waits until a frame after the first"


async def stalled_stream(slack: int) -> list[float]:
    """A 50 Hz stream whose event loop was held 35 ms (a turn starting beside it): the deltas it could not read in
    time arrive together. How long each of those waited to be sent."""
    run = ActiveRun(990107, frame_interval_s=0.017, frame_slack=slack)
    socket = Socket()
    run.subscribe(socket.send)
    for n in range(2):
        run.emit({"type": "rt.delta", "n": n})
        await asyncio.sleep(0.020)
    time.sleep(0.035)  # the loop is busy elsewhere
    emitted: list[float] = []
    for n in range(2, 5):
        emitted.append(time.monotonic())
        run.emit({"type": "rt.delta", "n": n})
        await asyncio.sleep(0.001)
    await run.flush()
    sent = [at for at, message in socket.messages for frame in message if frame["n"] in (2, 3, 4)]
    return [at - was for at, was in zip(sent, emitted, strict=True)]


async def test_after_a_stall_a_stream_slower_than_the_frame_rate_catches_up_at_once() -> None:
    waits = await stalled_stream(slack=2)
    assert max(waits) < 0.006, f"no delta held for a frame slot: {[round(w * 1000, 1) for w in waits]} ms"
    # The control: with one frame of slack the third of them waited most of a frame, in every stream, at every
    # stall (the app's p99 at 30 chats was twice as high).
    assert (await stalled_stream(slack=1))[-1] > 0.010


@given(
    gaps=st.lists(st.floats(min_value=0, max_value=0.05), min_size=1, max_size=200),
    slack=st.integers(min_value=0, max_value=3),
)
def test_any_stretch_of_time_holds_at_most_its_frames_plus_the_slack(gaps: list[float], slack: int) -> None:
    """The pacing's rule alone: whatever the provider's pace, a window of t seconds sees at most t / interval +
    slack + 1 messages, and no message goes before its frames were queued."""
    interval, next_slot, now, sent = 0.017, 0.0, 0.0, []
    for gap in gaps:
        now = max(now + gap, sent[-1] if sent else 0.0)  # the next step's frames, once the last message went
        due = next_due(next_slot, now, interval, slack)
        assert due >= now
        next_slot = slot_after(next_slot, due, interval)
        sent.append(due)
    for i, first in enumerate(sent):
        for j in range(i, len(sent)):
            assert j - i + 1 <= (sent[j] - first) / interval + slack + 1 + 1e-9


async def test_reading_waits_until_shortly_before_the_next_message_may_go() -> None:
    """``read_hold``: what is read before the next message's slot would only wait in the queue."""
    interval = 0.05
    run = ActiveRun(990107, frame_interval_s=interval)
    socket = Socket()
    run.subscribe(socket.send)
    assert run.read_hold() <= 0, "nothing sent yet: what is read may go at once"
    started = time.monotonic()
    for n in range(3):  # the first message, and two frames of slack, go at once
        run.emit({"n": n})
        await run.send_queued()
    assert len(socket.messages) == 3
    run.emit({"n": 3})  # owed to the slot one frame after the first message
    lead = interval * READ_LEAD_FRAMES
    hold = run.read_hold()
    assert interval - lead - (time.monotonic() - started) - 0.001 <= hold <= interval - lead, hold
    await run.send_queued()
    assert len(socket.messages) == 4
    # The queue is empty, yet the next message could not go before the next frame: reading may wait for it too.
    assert run.read_hold() > interval / 2
    await asyncio.sleep(3 * interval)
    assert run.read_hold() <= 0, "after a quiet stretch a stream is read at once again"


async def test_reading_is_never_held_without_a_frame_interval() -> None:
    run = ActiveRun(990108, frame_interval_s=0.0)
    socket = Socket()
    run.subscribe(socket.send)
    for n in range(10):
        run.emit({"n": n})
        assert run.read_hold() <= 0
        await run.send_queued()


def test_reading_resumes_when_what_it_reads_may_go() -> None:
    interval, lead = 0.1, 0.1 * READ_LEAD_FRAMES
    # Nothing queued, the next message owed to the slot at 10.1: what is read before then would only wait.
    assert read_wait(10.1, None, 10.0, interval, 0) == pytest.approx(0.1)
    # Queued frames that go now (their slot has come): what is read next goes in the message after them.
    assert read_wait(10.0, 9.99, 10.0, interval, 0) == pytest.approx(0.1)
    # Queued frames still held for their slot: reading resumes a quarter frame before it, to go with them.
    assert read_wait(10.0, 9.9, 9.95, interval, 0) == pytest.approx(0.05 - lead)
    # Slack: a message may go that many frames early, and reading with it.
    assert read_wait(10.1, None, 10.0, interval, 1) <= 0
    assert read_wait(99.0, None, 10.0, 0.0, 2) == 0.0, "no interval, no hold"
