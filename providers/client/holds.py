"""Reading a provider's stream no more often than what is read can be sent on.

A caller that passes on a stream at a bounded pace (a page gets at most one message per display frame) gains nothing
from reading a fast stream the moment each chunk lands: what it reads while its next message is held only waits in
its queue. Each read costs the event loop a wake-up, a ``recv`` and a step through the whole HTTP stack, about as much
as decoding the chunk itself. So while the caller holds, the connection stops reading (``pause_reading``: the bytes
wait in the kernel) and the next read takes everything that came meanwhile at once. At 500 chunks a second and
60 messages, that is one read in place of eight (docs/performance.md).

The hold is set for the task that reads (a context variable), so it crosses the SDK and httpx2 untouched and
reaches the network backend (``netbackend.AsyncioStream.read``), the one place that can pause a connection.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar

ReadHold = Callable[[], float]  # seconds a read would wait before what it reads can go on; 0 or less: read now

# A read never waits longer than this, whatever a hold answers: a hold that misjudges must not stall a stream.
MAX_HOLD_S = 0.1

# A list holding the hold, emptied when the block ends: a connection keeps the context it was used in (asyncio
# copies the context into every callback it schedules, such as a socket's reader), and a pooled connection outlives
# the round trip; emptied, what it keeps no longer holds the run (``shared.recording`` does the same).
_hold: ContextVar[list[ReadHold] | None] = ContextVar("read_hold", default=None)


@contextlib.contextmanager
def holding_reads(hold: ReadHold | None) -> Iterator[None]:
    """Reads made by this task inside the block ask ``hold`` how long to wait first."""
    box = [] if hold is None else [hold]
    token = _hold.set(box)
    try:
        yield
    finally:
        box.clear()
        _hold.reset(token)


def read_hold() -> float:
    """How long the read about to be made should wait, in seconds (0: at once)."""
    box = _hold.get()
    if not box:
        return 0.0
    return min(max(box[0](), 0.0), MAX_HOLD_S)
