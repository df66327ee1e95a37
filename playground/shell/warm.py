"""A server process's start-up, finished before its first connection: what a first request or turn would load.

Whatever a process loads on first use it loads on the event loop (or holding the interpreter's lock in the ORM's
thread), and every socket of the process waits: 100-200 ms per wire format for a first round trip (the SDKs'
resources, the TLS context, anyio's backend), 400 ms more for the mounted simulator, and about 200 ms for the first
page (every view module, imported with the URL configuration). Loaded here, at import, it also lands in the heap that
``gc.freeze`` then moves out of the collector's way (see ``playground.asgi``).
"""

from __future__ import annotations

import contextlib

from django.core.cache import cache
from django.urls import Resolver404, resolve

from providers.client.warm import warm_up as warm_up_round_trips


def warm_up() -> None:
    warm_up_round_trips()
    with contextlib.suppress(Resolver404):  # the patterns are loaded whether "/" is one of them or not
        resolve("/")  # the URL configuration, and with it every view module and form
    cache.get("warm-up")  # the cache backend, imported on first use (a turn's end clears the search menus)
