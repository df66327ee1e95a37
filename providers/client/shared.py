"""The HTTP clients round trips share, one set per event loop: connections to a provider outlive a round trip.

A client made for each round trip paid, at every turn and every tool-loop step, for a new connection (a TCP
handshake, and for https a TLS one: about 5 ms of CPU on the event loop and two network round trips before the
request can leave), and for a new client, transport and pool, left to the garbage collector as reference cycles.
Shared, the round trips of a loop reuse the pool's idle connections (``netbackend`` tells a connection the server
closed or wrote to from a reusable one) and the client is built once.

What stays per round trip: the SDK client (the key, the base URL and the endpoint's headers are its own, never the
shared client's) and the recorder of its request, which the shared client's hook finds through ``RECORDER``, a
context variable the round trip sets around its request (``recording``).

A loop's clients live as long as the loop: one per distinct key (timeout, address policy, proxies), a handful that
the configuration bounds, so none is ever closed under a round trip still streaming on it. Clients of a loop that
has closed (a test's, a CLI call's) are dropped the next time any loop asks for one.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Awaitable, Callable, Hashable
from contextvars import ContextVar
from dataclasses import dataclass, field

import httpx2

from providers.client.capture import WireRequest
from providers.client.taskvalue import held, holding

OnRequest = Callable[[WireRequest], Awaitable[None]]

# The recorder of the round trip whose request is being sent, set by ``recording`` around the request and read by the
# shared client's hook (an httpx2 hook runs inside the ``send`` of the task that sends). Set with
# ``taskvalue.holding``: a pooled connection keeps the context it was opened or read in, and outlives the round trip.
RECORDER: ContextVar[list[OnRequest] | None] = ContextVar("crosswire_request_recorder", default=None)

# No cap on connections: one client serves every chat of the process, as many round trips at once as are streaming
# (a per-round-trip client never waited for a free connection either). Idle connections are kept for the next round
# trips, up to the same number. One idle longer than KEEPALIVE_S is closed instead of reused (when the pool is next
# used): under the 5 s after which uvicorn (vLLM, LiteLLM), Node and llama.cpp's server close an idle connection, so
# a request is not sent on a connection the server is closing at that moment; that would fail the round trip.
KEEPALIVE_S = 3.0
LIMITS = httpx2.Limits(max_connections=None, max_keepalive_connections=100, keepalive_expiry=KEEPALIVE_S)


@dataclass(eq=False)
class LoopClients:
    """One event loop's shared clients, by key."""

    loop: weakref.ref[asyncio.AbstractEventLoop]
    clients: dict[Hashable, httpx2.AsyncClient] = field(default_factory=dict)

    def alive(self) -> bool:
        loop = self.loop()
        return loop is not None and not loop.is_closed()


# By the loop's id, not a weak dictionary keyed by the loop: a client's connections hold their loop, so a loop kept
# as a key of a weak dictionary whose values hold it would never be freed. ``alive`` checks the id's loop is the same.
_by_loop: dict[int, LoopClients] = {}


def shared_client(key: Hashable, make: Callable[[], httpx2.AsyncClient]) -> httpx2.AsyncClient:
    """This loop's client for ``key``, made with ``make`` the first time (or after it was closed)."""
    loop = asyncio.get_running_loop()
    clients = _by_loop.get(id(loop))
    if clients is None or clients.loop() is not loop:
        _forget_closed_loops()
        clients = _by_loop[id(loop)] = LoopClients(weakref.ref(loop))
    client = clients.clients.get(key)
    if client is None or client.is_closed:
        client = clients.clients[key] = make()
    return client


def _forget_closed_loops() -> None:
    for loop_id, clients in list(_by_loop.items()):
        if not clients.alive():
            _by_loop.pop(loop_id, None)  # its sockets are closed as the transports are freed


def recording(on_request: OnRequest) -> contextlib.AbstractContextManager[None]:
    """Requests this task sends through a shared client inside the block are recorded with ``on_request``."""
    return holding(RECORDER, on_request)


async def record_for_round_trip(request: WireRequest) -> None:
    """The shared client's recorder: the one of the round trip this task is sending for (``recording``)."""
    record = held(RECORDER)
    if record is not None:
        await record(request)
