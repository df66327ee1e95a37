"""The sockets of this process that show a run, and the run's frames on their way to them.

``queue_local`` only queues; a callback of the event loop sends whatever has queued, serialised once as one JSON
array (fanout.py), as soon as the run awaits (the next chunk from the provider), and never more than one message
per display frame on average (pacing.py). The server's send never waits, so it runs in that callback, not in a task
per message (eager.py); a send that does wait is finished in a task, and no message overtakes it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field

from django.conf import settings

from playground.chat.fanout import Frame, Subscriber, fan_out
from playground.chat.pacing import next_due, read_wait, slot_after

logger = logging.getLogger(__name__)


@dataclass
class LocalFeed:
    conversation_id: int
    # Each local socket's sender, with how many of the queued frames it must skip: those were queued before it
    # joined, so they are in its snapshot (or, not being replayable, were never its to get).
    subscribers: dict[Subscriber, int] = field(default_factory=dict)
    _queued: list[Frame] = field(default_factory=list)  # for local sockets, sent when the run next awaits
    _step: asyncio.Handle | None = None  # the send of what is queued, scheduled: at once, or at its slot
    _finishing: asyncio.Task[None] | None = None  # a message whose send had to wait, being finished
    _drained: asyncio.Future[None] | None = None  # for ``send_queued``: done once nothing is queued or being sent
    _next_slot: float = 0.0  # the frame the next message is owed to (it may go ``frame_slack`` frames sooner)
    _first_queued: float = 0.0  # when the oldest frame waiting for local sockets was emitted
    frame_interval_s: float = field(default_factory=lambda: settings.CROSSWIRE_FRAME_INTERVAL_MS / 1000)
    frame_slack: int = field(default_factory=lambda: settings.CROSSWIRE_FRAME_SLACK)
    _subscribers_version: int = 0
    _skipping: bool = False  # some socket still has queued frames to skip

    def subscribe(self, send: Subscriber) -> None:
        """Feed a local socket every frame emitted from now on (a socket already fed keeps what it is owed)."""
        self._subscribers_version += 1
        self._skipping = self.subscribers.setdefault(send, len(self._queued)) > 0 or self._skipping

    def unsubscribe(self, send: Subscriber) -> None:
        self._subscribers_version += 1
        self.subscribers.pop(send, None)

    def is_fed(self, send: Subscriber) -> bool:
        return send in self.subscribers

    def queue_local(self, frame: Frame) -> None:
        """Queue a frame for the local sockets: it goes with the others of the run's step, as soon as it awaits."""
        if not self._queued:
            self._first_queued = time.monotonic()
        self._queued.append(frame)
        if self._step is None and self._finishing is None:
            self._step = asyncio.get_running_loop().call_soon(self._send_step)

    def _send_step(self) -> None:
        """Send what is queued as one message, unless its slot is still to come: then at the slot. At most one
        message per display frame on average, with some frames of slack (pacing.py). Whatever happens, the queue
        is settled after: a run's closing flush waits for it to drain."""
        self._step = None
        try:
            self._send_due()
        except Exception:  # a bug: its frames are dropped (sent again, they would fail again), the run goes on
            logger.exception("frames of conversation %s could not be sent", self.conversation_id)
            self._queued = []
        finally:
            if self._step is None and self._finishing is None:
                self._settle()

    def _send_due(self) -> None:
        if not self._queued:
            return
        due = next_due(self._next_slot, self._first_queued, self.frame_interval_s, self.frame_slack)
        wait = due - time.monotonic()
        if wait > 0:
            self._step = asyncio.get_running_loop().call_later(wait, self._send_step)
            return
        self._next_slot = slot_after(self._next_slot, due, self.frame_interval_s)
        frames, self._queued = self._queued, []
        skips: dict[Subscriber, int] = {}
        if self._skipping:  # a socket joined while frames were queued: once per join, not per message
            skips = {send: skip for send, skip in self.subscribers.items() if skip}
            for send in self.subscribers:
                self.subscribers[send] = 0
            self._skipping = False
        waiting = self._deliver(frames, skips)
        if waiting:
            self._finishing = asyncio.get_running_loop().create_task(self._finish(waiting))

    async def _finish(self, waiting: list[tuple[Subscriber, Awaitable[None]]]) -> None:
        """The sends that had to wait, in turn; every socket's next message waits for them (none overtakes)."""
        try:
            for send, rest in waiting:
                try:
                    await rest
                except (Exception, asyncio.CancelledError) as exc:  # a socket closing mid-send costs only itself
                    task = asyncio.current_task()
                    if isinstance(exc, asyncio.CancelledError) and task is not None and task.cancelling():
                        raise
                    self.unsubscribe(send)
        finally:
            self._finishing = None
            self._settle()

    def _settle(self) -> None:
        """After a send: the next one if frames are queued, else whoever waits for the queue to drain goes on."""
        if self._queued:
            if self._step is None:
                self._step = asyncio.get_running_loop().call_soon(self._send_step)
        elif self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

    def read_hold(self) -> float:
        """How long reading the provider's stream may wait (``providers.client.holds``; the rule: ``read_wait``)."""
        first = self._first_queued if self._queued else None
        return read_wait(self._next_slot, first, time.monotonic(), self.frame_interval_s, self.frame_slack)

    def _deliver(self, frames: list[Frame], skips: dict[Subscriber, int]) -> list[tuple[Subscriber, Awaitable[None]]]:
        """Send ``frames`` to every local socket now; what is left of the sends that had to wait, by socket."""
        sent = fan_out(frames, list(self.subscribers), skips, self.conversation_id)
        for send in sent.failed:
            self.unsubscribe(send)
        return sent.waiting

    async def send_queued(self) -> None:
        """Send what local sockets have queued before going on. A stream's last chunk and its end arrive together,
        and the work of ending a round trip (its whole record, saved) never awaits before it is done: without this,
        the answer's last delta would wait for all of it. Shielded, like ``flush``."""
        while self._queued or self._finishing is not None:
            if self._drained is None or self._drained.done():
                self._drained = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._drained)

    async def send_queued_now(self) -> None:
        """``send_queued``, then two turns of the event loop: the server (Twisted) writes a message to the socket
        only when the loop next polls it, one turn after the send (the second turn runs that write before this
        task goes on)."""
        await self.send_queued()
        for _ in range(2):
            await asyncio.sleep(0)
