"""The HTTP clients round trips share, one set per event loop: connections to a provider outlive a round trip.

A client made for each round trip paid, at every turn and every tool-loop step, for a new connection (a TCP
handshake, and for https a TLS one: about 5 ms of CPU on the event loop and two network round trips before the
request can leave), and for a new client, transport and pool, left to the garbage collector as reference cycles.
Shared, the round trips of a loop reuse the pool's idle connections (``netbackend`` tells a connection the server
closed or wrote to from a reusable one) and the client is built once.

What stays per round trip: the SDK client (the key, the base URL and the endpoint's headers are its own, never the
shared client's) and the request hook's recorder, which the shared client's one hook reads from ``RECORDER``, a
context variable the round trip sets around its request.

A loop's clients live as long as the loop. Clients of a loop that has closed (a test's, a CLI call's) are dropped
the next time any loop asks for one.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import httpx2

from providers.client.capture import WireRequest

OnRequest = Callable[[WireRequest], Awaitable[None]]

# The recorder of the round trip whose request is being sent, set by ``recording`` around the request and read by the
# shared client's hook (an httpx2 hook runs inside the ``send`` of the task that sends). In a list that is emptied
# when the round trip ends: a connection keeps the context it was opened or read in (asyncio copies the context into
# every callback it schedules, such as a socket's reader or a timer), and a pooled connection outlives the round trip.
RECORDER: ContextVar[list[OnRequest] | None] = ContextVar("crosswire_request_recorder", default=None)

# No cap on connections: one client serves every chat of the process, as many round trips at once as are streaming
# (a per-round-trip client never waited for a free connection either). Idle connections are kept for the next
# round trips up to the same number, and closed after keepalive_expiry seconds unused (httpx2's default).
LIMITS = httpx2.Limits(max_connections=None, max_keepalive_connections=100, keepalive_expiry=5.0)
MAX_CLIENTS_PER_LOOP = 8  # one per distinct (timeout, address policy, proxies): a handful in practice


@dataclass(eq=False)
class LoopClients:
    loop: weakref.ref[asyncio.AbstractEventLoop]
    clients: OrderedDict[Hashable, httpx2.AsyncClient] = field(default_factory=OrderedDict)
    closing: set[asyncio.Task[None]] = field(default_factory=set)  # evicted clients being closed

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
        _evict(clients)
    clients.clients.move_to_end(key)
    return client


def _evict(clients: LoopClients) -> None:
    while len(clients.clients) > MAX_CLIENTS_PER_LOOP:
        _, oldest = clients.clients.popitem(last=False)
        # A round trip still streaming on it keeps its connection until it ends: aclose waits for nothing, it closes
        # the pool's idle connections and refuses new requests.
        task = asyncio.get_running_loop().create_task(oldest.aclose())
        clients.closing.add(task)
        task.add_done_callback(clients.closing.discard)


def _forget_closed_loops() -> None:
    for loop_id, clients in list(_by_loop.items()):
        if not clients.alive():
            _by_loop.pop(loop_id, None)  # its sockets are closed as the transports are freed


async def close_loop_clients() -> None:
    """Close this loop's shared clients (their idle connections): for a program that ends its loop on purpose."""
    clients = _by_loop.pop(id(asyncio.get_running_loop()), None)
    if clients is not None:
        for client in clients.clients.values():
            await client.aclose()


@contextmanager
def recording(on_request: OnRequest) -> Iterator[None]:
    """Requests this task sends through a shared client inside the block are recorded with ``on_request``."""
    box = [on_request]
    token = RECORDER.set(box)
    try:
        yield
    finally:
        box.clear()
        RECORDER.reset(token)


def recorder() -> OnRequest | None:
    """The recorder of the round trip this task is sending for, if any."""
    box = RECORDER.get()
    return box[0] if box else None
