"""When a run's next message to its local sockets may go: at most one per display frame on average.

A fast provider's deltas gather into one message instead of costing the server a send and the browser a redraw each;
a slow one's go out at once. The rule is a cell-rate check (GCRA) with ``slack`` frames of slack: a message may go
that many frames before its slot. One frame lets a stream paced a little slower than the frame rate follow its head
chunk unheld (without it, a 50 Hz stream behind a message 3 ms earlier started 14 ms late and caught up 3 ms a
delta); the second lets it catch up after the event loop was busy (a turn starting beside it) with two deltas back
to back instead of holding the second a frame, which was most of the app's p99 at 30 chats (docs/performance.md).
Slots are counted from when each message was due, not from when it went: a message the event loop sent late must
not hold the next one back. Over any stretch of time, at most its frames plus the slack (plus one) messages go.
"""

from __future__ import annotations

READ_LEAD_FRAMES = 0.25  # how early, in frames, reading the provider resumes before a held message's slot


def next_due(next_slot: float, first_queued: float, interval_s: float, slack: int) -> float:
    """When the message holding frames queued since ``first_queued`` may go, ``next_slot`` being the slot it owes."""
    return max(first_queued, next_slot - slack * interval_s)


def slot_after(next_slot: float, due: float, interval_s: float) -> float:
    """The slot the message after one due at ``due`` owes."""
    return max(next_slot, due) + interval_s


def read_wait(next_slot: float, first_queued: float | None, now: float, interval_s: float, slack: int) -> float:
    """How long reading the provider's stream may wait, ``first_queued`` being None when nothing is queued: what is
    read before the next message may go would only wait in the queue. A stream slower than the frame rate is never
    held: its next message may always go at once.

    When reading resumes at the slot itself, what it reads is queued and sent in the same turn of the event loop, so
    a run has one timer per frame, not one for reading and one for sending. Frames queued by other means and held
    for a slot of their own are the exception: reading then resumes a quarter frame before that slot, so what came
    meanwhile is decoded in time to go with them."""
    if not interval_s:
        return 0.0
    if first_queued is not None:
        due = next_due(next_slot, first_queued, interval_s, slack)
        if due > now:
            return due - interval_s * READ_LEAD_FRAMES - now
        next_slot = slot_after(next_slot, due, interval_s)  # the queued frames go now: what is read goes after them
    return next_due(next_slot, now, interval_s, slack) - now
