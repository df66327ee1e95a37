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
from collections.abc import Callable
from contextvars import ContextVar

from providers.client.taskvalue import held, holding

ReadHold = Callable[[], float]  # seconds a read would wait before what it reads can go on; 0 or less: read now

# A read never waits longer than this, whatever a hold answers: a hold that misjudges must not stall a stream.
MAX_HOLD_S = 0.1

# Set with ``taskvalue.holding``: a pooled connection keeps the context it was read in, and with it the run's hold.
_hold: ContextVar[list[ReadHold] | None] = ContextVar("read_hold", default=None)


def holding_reads(hold: ReadHold | None) -> contextlib.AbstractContextManager[None]:
    """Reads made by this task inside the block ask ``hold`` how long to wait first."""
    return holding(_hold, hold)


def read_hold() -> float:
    """How long the read about to be made should wait, in seconds (0: at once)."""
    hold = held(_hold)
    if hold is None:
        return 0.0
    return min(max(hold(), 0.0), MAX_HOLD_S)
