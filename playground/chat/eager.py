"""Running a coroutine at once, in the caller's own step, when it never has to wait.

A streaming run sends a message to each of its sockets some forty times a second per chat. The server's send for a
WebSocket is a coroutine that hands the message to the socket and returns without ever waiting (daphne's
``handle_reply``), so a task for each message (a task object, its registration, a step of the event loop, its
completion) cost more than the send itself: about 5 µs of a delta's 13 in process (docs/performance.md).
``start_now`` runs the coroutine up to its first wait instead; only one that does wait (a test's slow socket, a
send through a wrapper that queues) leaves something to finish, which the caller awaits in a task of its own.
"""

from __future__ import annotations

import types
from collections.abc import Awaitable, Generator
from typing import Any, TypeVar

T = TypeVar("T")


def start_now(awaitable: Awaitable[T]) -> Awaitable[T] | None:
    """Run ``awaitable`` until it first waits: None once it has finished, or what is left of it, to be awaited.
    An exception it raises before waiting is raised here. An awaitable that is not a coroutine is not started: it is
    returned as it is, done or not. The first step runs in the caller's step, which may be a plain callback of the
    event loop, outside any task: a coroutine that needs one there (``asyncio.timeout``, a task group) fails."""
    if not isinstance(awaitable, types.CoroutineType):
        return awaitable
    try:
        waits_on = awaitable.send(None)
    except StopIteration:
        return None
    return _rest(awaitable, waits_on)


@types.coroutine
def _rest(coroutine: types.CoroutineType[Any, Any, T], waits_on: Any) -> Generator[Any, Any, T]:
    """The rest of a started coroutine: what it waits on goes to the task that awaits this, as ``await`` would
    pass it on, and what the task sends or throws back (a result, a cancellation) goes into the coroutine."""
    while True:
        try:
            answer = yield waits_on
        except GeneratorExit:
            coroutine.close()
            raise
        except BaseException as exc:  # a cancellation thrown in must reach the coroutine
            try:
                waits_on = coroutine.throw(exc)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
        else:
            try:
                waits_on = coroutine.send(answer)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
