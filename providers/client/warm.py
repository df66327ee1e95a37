"""A process's first round trip, done at start-up: what it loads once would otherwise stall every socket.

The first round trip of a process builds the TLS context (it reads the CA bundle), imports the modules the SDKs and
our codecs load on first use (the SDK's resources and stream classes, anyio's asyncio backend for the SDK's platform
lookup, each wire format), and asks the SDK which platform it runs on. Done by a chat's first turn, that is 100-200 ms
in which the event loop serves no other socket; done here, before the server takes its first connection, it costs
nothing anyone waits for, and what it made lands in the heap that ``gc.freeze`` then moves out of the collector's way.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterable

import httpx2

from providers.client.run import round_trip
from providers.client.sdk import Endpoint
from providers.formats import FORMATS
from providers.strategies.capabilities import NATIVE
from providers.types import ChatRequest

logger = logging.getLogger(__name__)

# The in-process simulator's app answers at the root of this host.
ORIGIN = "http://warm-up"
# Its tool call streams arguments in fragments, so the accumulators' and codecs' whole paths run.
REQUEST: ChatRequest = {
    "model": "sim-1",
    "stream": True,
    "max_tokens": 64,
    "messages": [{"role": "user", "content": '/call warm_up {"step": 1}'}],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "warm_up",
                "description": "A call the simulator makes",
                "parameters": {"type": "object", "properties": {"step": {"type": "integer"}}},
            },
        }
    ],
}


def warm_up(formats: Iterable[str] = FORMATS) -> list[str]:
    """One streamed round trip of each format against the simulator, in process, on a loop of its own in a thread of
    its own (the caller's thread may hold a server's loop that is not running yet). Returns the formats that failed,
    each logged: a failed warm-up leaves the first turn slower, never the server unable to start."""
    failed: list[str] = []
    worker = threading.Thread(target=lambda: failed.extend(asyncio.run(_warm_up(list(formats)))), name="warm-up")
    # Its requests would each log a line at start-up about a host named warm-up: nothing a reader can act on.
    http_log = logging.getLogger("httpx2")
    level = http_log.level
    http_log.setLevel(max(level, logging.WARNING))
    try:
        worker.start()
        worker.join()
    finally:
        http_log.setLevel(level)
    return failed


async def _warm_up(formats: list[str]) -> list[str]:
    # Imported here, as the app's mount does: a deployment may leave the simulator out, and must still start.
    try:
        from providers.simulator.app import BASE_PATHS, create_app
    except ImportError:
        logger.warning("no warm-up: the simulator it answers with cannot be imported", exc_info=True)
        return formats

    transport = httpx2.ASGITransport(app=create_app())
    failed = []
    for name in formats:
        try:
            endpoint = Endpoint(name, ORIGIN + BASE_PATHS[name], "warm-up", transport=transport)
            result = (await round_trip(endpoint, REQUEST, strategy=NATIVE)).result
        except Exception:
            logger.warning("warming up %s failed; the first turn on it loads what it needs", name, exc_info=True)
            failed.append(name)
            continue
        if not result.complete:
            logger.warning("warming up %s: the simulator's answer was incomplete (%s)", name, result.error)
            failed.append(name)
    return failed
