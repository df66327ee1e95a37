"""Two daphne processes behind one Redis: a session from one works on the other, and events cross processes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import websockets

from tests.conftest import Services
from tests.helpers import DaphneServer, login, manage, prepare_database, server_env, start_daphne

pytestmark = pytest.mark.services

CONVERSATION_ID = 4242


@dataclass(frozen=True)
class Cluster:
    first: DaphneServer
    second: DaphneServer
    session: str


@pytest.fixture(scope="module")
def cluster(services: Services, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two web processes with the same secret key, database and Redis, as two containers behind a proxy."""
    data_dir: Path = tmp_path_factory.mktemp("scale-out")
    env = server_env(data_dir, REDIS_URL=services.redis_url)
    password = prepare_database(env)
    first = start_daphne(env, data_dir / "first.log")
    try:
        second = start_daphne(env, data_dir / "second.log")
    except Exception:
        first.stop()
        raise
    try:
        yield Cluster(first=first, second=second, session=login(first.url, "demo", password))
    finally:
        first.stop()
        second.stop()


def connect(server: DaphneServer, session: str) -> websockets.asyncio.client.connect:
    return websockets.connect(
        f"{server.ws_url}/ws/conversations/{CONVERSATION_ID}/",
        origin=server.url,
        additional_headers={"Cookie": f"sessionid={session}"},
        open_timeout=10,
    )


async def receive(socket: websockets.ClientConnection) -> dict[str, object]:
    return json.loads(await asyncio.wait_for(socket.recv(), timeout=10))


async def test_a_session_made_on_one_process_opens_sockets_on_both(cluster: Cluster) -> None:
    for server in (cluster.first, cluster.second):
        async with connect(server, cluster.session) as socket:
            await socket.send(json.dumps({"type": "ping"}))
            assert await receive(socket) == {"type": "pong"}


async def test_an_event_published_elsewhere_reaches_sockets_on_both_processes(cluster: Cluster) -> None:
    first, second = connect(cluster.first, cluster.session), connect(cluster.second, cluster.session)
    async with first as on_first, second as on_second:
        # A third process publishes: only the shared Redis layer can carry the event to either server.
        event = {"type": "notice", "text": "from another process"}
        await asyncio.to_thread(
            manage, cluster.first.env, "publish_conversation_event", str(CONVERSATION_ID), json.dumps(event)
        )
        assert await receive(on_first) == event
        assert await receive(on_second) == event
