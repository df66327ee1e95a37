"""A streaming round trip's raw events, saved a batch at a time while it streams: a crash loses at most one batch.

Saving never holds up the stream: ``add`` only appends, and a task writes what has gathered every ``EVERY_S``
(sooner once ``MAX_EVENTS`` wait), through the ORM's worker thread while the run goes on reading.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

from playground.conversations.models import RoundTrip, WireEventBatch

EVERY_S = 0.25
MAX_EVENTS = 200
Event = tuple[float, str, str | None]

logger = logging.getLogger(__name__)


@dataclass
class EventSaver:
    round_trip: RoundTrip
    every_s: float = EVERY_S
    pending: list[Event] = field(default_factory=list)
    seq: int = 0
    _task: asyncio.Task[None] | None = None
    _saving_now: bool = False  # a batch is being written: the task must finish, not be cancelled

    def add(self, event: Event) -> None:
        self.pending.append(event)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._save_soon())
        elif len(self.pending) >= MAX_EVENTS and not self._saving_now:
            self._task.cancel()
            self._task = asyncio.get_running_loop().create_task(self._save_soon(delay=0))

    async def _save_soon(self, delay: float | None = None) -> None:
        await asyncio.sleep(self.every_s if delay is None else delay)
        self._saving_now = True
        try:
            while self.pending:  # events added during a save go in the next batch
                batch, self.pending = self.pending, []
                await WireEventBatch.objects.acreate(round_trip=self.round_trip, seq=self.seq, events=batch)
                self.seq += 1
        except Exception as exc:
            # The run goes on: its events are still kept in memory and saved whole when the round trip ends.
            logger.warning("could not save a batch of raw events of round trip %s: %s", self.round_trip.pk, exc)
        finally:
            self._saving_now = False

    async def close(self) -> None:
        """The round trip is being saved whole: stop batching, but let a batch being written finish first, so no
        batch lands after the whole is saved and its batches deleted."""
        task, self._task = self._task, None
        self.pending = []
        if task is None or task.done():
            return
        if self._saving_now:
            with contextlib.suppress(Exception):
                await asyncio.shield(task)
        else:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
