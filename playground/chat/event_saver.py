"""A streaming round trip's raw events, saved a batch at a time while it streams: a crash loses at most one batch.

The batches are where those events stay (``playground.conversations.raw_events`` reads them): the round trip's end
saves only what no batch holds yet, with its record (``close``), instead of every event again in the row.

Saving never holds up the stream: ``EventSaver.add`` only appends. One writer per process (per event loop) gathers
what every streaming round trip has added and writes it every ``EVERY_S`` (sooner once ``MAX_EVENTS`` wait for one
round trip) in one transaction, through the ORM's worker thread, while the runs go on reading. With a hundred
chats streaming that is four writes a second instead of four hundred: a commit, a thread hop and a connection
check each, which took a third of the server's CPU and showed as stalls of every stream (docs/performance.md). The
rows are plain values, written by a statement built once (``PreparedInsert``): the ORM's model instances and its
statement as long as all the rows held the interpreter long enough to stall every stream four times a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from dataclasses import dataclass, field

from playground.chat.orm import orm_thread
from playground.conversations.models import RoundTrip, WireEventBatch
from playground.prepared import PreparedInsert

EVERY_S = 0.25
MAX_EVENTS = 200
Event = tuple[float, str, str | None]
Batch = tuple[int, int, list[Event]]  # a WireEventBatch row: round trip id, seq, events
INSERT_BATCHES = PreparedInsert(WireEventBatch, ("round_trip", "seq", "events"))

logger = logging.getLogger(__name__)


@dataclass(eq=False)
class EventSaver:
    """The raw events of one round trip that are not saved yet."""

    round_trip: RoundTrip
    pending: list[Event] = field(default_factory=list)
    seq: int = 0
    added: int = 0  # events handed in, saved or not: the round trip's end checks it holds them all
    failed: list[Batch] = field(default_factory=list)  # batches whose write failed, for the round trip's end
    closed: bool = False
    _writer: BatchWriter | None = None  # this loop's, looked up once: ``add`` runs for every event of the stream

    def add(self, event: Event) -> None:
        if self.closed:
            return
        self.pending.append(event)
        self.added += 1
        if self._writer is None:
            self._writer = writer_for_loop()
        self._writer.want(self)

    async def close(self) -> Unsaved:
        """The round trip ended: stop batching, let a batch being written finish (its failure comes back here), and
        return what is still to save: the batches whose write failed, then the events no batch took."""
        self.closed = True
        await (self._writer or writer_for_loop()).settled(self)
        rest, self.pending = self.pending, []
        return Unsaved(self.failed, (self.round_trip.pk, self.seq, rest) if rest else None)


@dataclass(frozen=True)
class Unsaved:
    """A round trip's raw events that its end saves: batches whose write failed (in order; one may have landed after
    all, its commit's answer lost, so each is written only if its number is free), then the events no batch took."""

    failed: list[Batch]
    rest: Batch | None


@dataclass(eq=False)
class BatchWriter:
    """Writes the pending events of every round trip of this process together, every ``EVERY_S``."""

    waiting: dict[int, EventSaver] = field(default_factory=dict)  # savers with events to write, by identity
    _task: asyncio.Task[None] | None = None
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _writing: set[int] = field(default_factory=set)  # savers whose events the write in progress holds
    _written: asyncio.Future[None] | None = None  # done when the write in progress is

    def want(self, saver: EventSaver) -> None:
        self.waiting[id(saver)] = saver
        if self._task is None or self._task.done():
            self._wake = asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._write_soon())
        elif len(saver.pending) >= MAX_EVENTS:
            self._wake.set()

    async def settled(self, saver: EventSaver) -> None:
        """Return once no write holding this saver's events is in progress (it is closed: it gets no new one)."""
        self.waiting.pop(id(saver), None)
        while id(saver) in self._writing and self._written is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._written)

    async def _write_soon(self) -> None:
        while self.waiting:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), EVERY_S)
            self._wake.clear()
            await self._write(self._take())

    def _take(self) -> list[tuple[EventSaver, Batch]]:
        batches = []
        for saver in self.waiting.values():
            if saver.closed or not saver.pending:
                continue
            batches.append((saver, (saver.round_trip.pk, saver.seq, saver.pending)))
            saver.pending, saver.seq = [], saver.seq + 1
        self.waiting.clear()
        return batches

    async def _write(self, batches: list[tuple[EventSaver, Batch]]) -> None:
        if not batches:
            return
        self._writing = {id(saver) for saver, _ in batches}
        self._written = asyncio.get_running_loop().create_future()
        try:
            await orm_thread(INSERT_BATCHES.run)([batch for _, batch in batches])
        except Exception as exc:
            # The runs go on; each round trip's end saves its failed batch with its record, in its own transaction:
            # a batch put back here would fail every later write with it if it can never be written (its round trip
            # deleted), taking the other round trips' batches down too.
            logger.warning("could not save %d batch(es) of raw events: %s", len(batches), exc)
            for saver, batch in batches:
                saver.failed.append(batch)
        finally:
            self._writing = set()
            self._written.set_result(None)


# One writer per event loop: a test's loop ends with the test, a server's lives as long as the process.
_writers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, BatchWriter] = weakref.WeakKeyDictionary()


def writer_for_loop() -> BatchWriter:
    loop = asyncio.get_running_loop()
    writer = _writers.get(loop)
    if writer is None:
        writer = _writers[loop] = BatchWriter()
    return writer
