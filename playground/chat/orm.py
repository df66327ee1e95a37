"""The ORM's thread, for work that must run there: one trip holds as many statements as a step needs."""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async


def orm_thread(function: Any) -> Any:
    """Run on the ORM's own thread, as the async ORM calls do. Not Channels' wrapper: that one closes the thread's
    connection before and after each call, and on SQLite each close checkpoints the whole WAL, a stall of every
    stream of the process when runs start and end by the dozen (docs/performance.md).

    Each trip costs about 90 µs of CPU in thread hand-offs alone (a future, a wake-up of each side), beside every
    stream of the process: a step that needs several statements sends them in one trip."""
    return sync_to_async(function, thread_sensitive=True)
