"""A value a task sets for a block of its code, through a context variable, and lets go of when the block ends.

asyncio copies the current context into every callback it schedules (a socket's reader, a timer), and some of those
outlive the block: a pooled connection is read again by later round trips, a cancelled timer waits for its time. A
context variable set to the value itself would keep the value (a round trip's recorder holds the whole round trip)
for as long as they last. Set to a list that is emptied when the block ends, they keep an empty list.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")


@contextlib.contextmanager
def holding(var: ContextVar[list[T] | None], value: T | None) -> Iterator[None]:
    """``held(var)`` is ``value`` in this task inside the block, and in what it schedules there, until it ends."""
    box: list[T] = [] if value is None else [value]
    token = var.set(box)
    try:
        yield
    finally:
        box.clear()
        var.reset(token)


def held(var: ContextVar[list[T] | None]) -> T | None:
    box = var.get()
    return box[0] if box else None
