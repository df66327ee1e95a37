"""Which web processes are alive, so the runs of a dead one are marked interrupted at once, not after a timeout.

Each process has an id of its own (host, pid and a random part, new at every start), claims the runs it starts
with it, and beats every ``BEAT_S`` seconds. A watchdog in every process, on each beat, recovers the runs of
processes that are gone:

- at start-up, a process of the same host whose pid is not alive (or is this very pid: the previous life of a
  restarted container) is gone at once;
- any other process is gone when it has not beaten for ``GONE_AFTER_S`` (a crash on another host, a kill -9).

So after a crash the survivors show its runs as interrupted within a few seconds, and a restarted process releases
its own old claims before it serves anything.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
from datetime import timedelta
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import DatabaseError
from django.utils import timezone

from playground.chat.models import RunProcess
from playground.chat.recovery import interrupt_runs_of
from playground.chat.registry import REGISTRY
from playground.conversations.models import BUSY_STATUSES, Conversation

BEAT_S = 2.0
GONE_AFTER_S = 8.0
ORPHAN_AFTER_S = 10.0

logger = logging.getLogger(__name__)
HOST = socket.gethostname()[:200]
PROCESS_ID = f"{HOST[:60]}:{os.getpid()}:{secrets.token_hex(4)}"
_watchdog: asyncio.Task[None] | None = None


class RunWatchdog:
    """ASGI wrapper: the first connection of any kind (a health check, a page) starts this process's watchdog, since
    daphne offers no start-up hook; from then on it needs no traffic."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] in ("http", "websocket") and settings.CROSSWIRE_RUN_WATCHDOG:
            ensure_watchdog()
        return await self.application(scope, receive, send)


def ensure_watchdog() -> None:
    """Start this process's watchdog once, from inside the running event loop (the first request)."""
    global _watchdog
    if _watchdog is None or _watchdog.done():
        _watchdog = asyncio.get_running_loop().create_task(_watch())


async def _watch() -> None:
    first = True
    while True:
        try:
            await database_sync_to_async(beat)(startup=first)
            first = False
        except DatabaseError:
            # The database is away (restarting): runs go on, and so does the watchdog once it is back.
            logger.warning("the run watchdog could not reach the database; trying again", exc_info=True)
        except Exception:
            logger.exception("the run watchdog failed; trying again")
        await asyncio.sleep(BEAT_S)


def beat(*, startup: bool = False) -> list[int]:
    """Say this process is alive, then recover the runs of the processes that are gone; returns their ids."""
    now = timezone.now()
    RunProcess.objects.update_or_create(id=PROCESS_ID, defaults={"host": HOST, "pid": os.getpid(), "beat_at": now})
    gone = gone_processes(startup=startup)
    recovered: list[int] = []
    for process_id in gone:
        recovered += interrupt_runs_of(process_id)
        RunProcess.objects.filter(id=process_id).delete()
    return recovered + interrupt_runs_of(PROCESS_ID, only=orphans())


def orphans() -> list[int]:
    """Runs this process claims but no longer runs: one that could not save its own end (the database went away
    under it) would otherwise stay "running", held by a process that is alive. Only claims quiet for a while count,
    so a run between its claim and its start is never taken for one."""
    quiet = timezone.now() - timedelta(seconds=ORPHAN_AFTER_S)
    running = set(REGISTRY.runs)
    claimed = Conversation.objects.filter(run_owner=PROCESS_ID, status__in=BUSY_STATUSES, updated_at__lt=quiet)
    return [pk for pk in claimed.values_list("pk", flat=True) if pk not in running]


def gone_processes(*, startup: bool) -> list[str]:
    stale = timezone.now() - timedelta(seconds=GONE_AFTER_S)
    gone = set(RunProcess.objects.filter(beat_at__lt=stale).exclude(id=PROCESS_ID).values_list("id", flat=True))
    if startup:
        for process in RunProcess.objects.filter(host=HOST).exclude(id=PROCESS_ID):
            if process.pid == os.getpid() or not _pid_alive(process.pid):
                gone.add(process.id)
    return sorted(gone)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process with that pid: it exists
    return True


def owner_alive(owner: str) -> bool:
    """Whether the process that claimed a run still beats (the claim check of another process's run)."""
    if not owner:
        return False
    if owner == PROCESS_ID:
        return True
    stale = timezone.now() - timedelta(seconds=GONE_AFTER_S)
    return RunProcess.objects.filter(id=owner, beat_at__gte=stale).exists()
