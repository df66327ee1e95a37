"""Two daphne processes behind one Redis: a session from one works on the other, and events cross processes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import websockets

from tests.conftest import Services
from tests.helpers import DaphneServer, login, logout, manage, prepare_database, server_env, start_daphne

pytestmark = pytest.mark.services

# A conversation of the demo team, and the id of the Simulated OpenAI endpoint, as the test database holds them.
NEW_CONVERSATION = """
from playground.conversations.models import Conversation
from playground.endpoints.models import Endpoint
from playground.teams.models import Team
team = Team.objects.get(name="Demo team")
conversation = Conversation.objects.create(team=team)
print(conversation.pk, Endpoint.objects.get(name="Simulated OpenAI").pk)
"""


@dataclass(frozen=True)
class Cluster:
    first: DaphneServer
    second: DaphneServer
    session: str
    conversation_id: int
    endpoint_id: int


@pytest.fixture(scope="module")
def cluster(
    services: Services,
    tmp_path_factory: pytest.TempPathFactory,
    simulator_url: str,
) -> Iterator[Cluster]:
    """Two web processes with the same secret key, database and Redis, as two containers behind a proxy."""
    data_dir: Path = tmp_path_factory.mktemp("scale-out")
    env = server_env(data_dir, REDIS_URL=services.redis_url, CROSSWIRE_SIMULATOR_URL=simulator_url)
    password = prepare_database(env)
    conversation_id, endpoint_id = map(int, manage(env, "shell", "-v", "0", "-c", NEW_CONVERSATION).stdout.split())
    first = start_daphne(env, data_dir / "first.log")
    try:
        second = start_daphne(env, data_dir / "second.log")
    except Exception:
        first.stop()
        raise
    try:
        session = login(first.url, "demo", password)
        yield Cluster(first, second, session, conversation_id, endpoint_id)
    finally:
        first.stop()
        second.stop()


def connect(cluster: Cluster, server: DaphneServer) -> websockets.asyncio.client.connect:
    return websockets.connect(
        f"{server.ws_url}/ws/conversations/{cluster.conversation_id}/",
        origin=server.url,
        additional_headers={"Cookie": f"sessionid={cluster.session}"},
        open_timeout=10,
    )


async def receive_any(socket: websockets.ClientConnection) -> Any:
    return json.loads(await asyncio.wait_for(socket.recv(), timeout=10))


async def receive(socket: websockets.ClientConnection) -> dict[str, object]:
    message = await receive_any(socket)
    assert isinstance(message, dict), message
    return message


async def test_a_session_made_on_one_process_opens_sockets_on_both(cluster: Cluster) -> None:
    for server in (cluster.first, cluster.second):
        async with connect(cluster, server) as socket:
            assert (await receive(socket))["type"] == "snapshot"
            await socket.send(json.dumps({"type": "ping"}))
            assert await receive(socket) == {"type": "pong"}


async def test_an_event_published_elsewhere_reaches_sockets_on_both_processes(cluster: Cluster) -> None:
    first, second = connect(cluster, cluster.first), connect(cluster, cluster.second)
    async with first as on_first, second as on_second:
        await receive(on_first), await receive(on_second)  # snapshots
        # A third process publishes: only the shared Redis layer can carry the event to either server.
        event = {"type": "notice", "text": "from another process"}
        await asyncio.to_thread(
            manage, cluster.first.env, "publish_conversation_event", str(cluster.conversation_id), json.dumps(event)
        )
        assert await receive(on_first) == event
        assert await receive(on_second) == event


async def frames_until_end(socket: websockets.ClientConnection) -> list[dict[str, object]]:
    """A run's frames come in arrays (docs/websocket.md); ``turn.started`` alone."""
    frames: list[dict[str, object]] = []
    while not frames or frames[-1]["type"] != "run.end":
        message = await receive_any(socket)
        frames.extend(message if isinstance(message, list) else [message])
    return frames


async def test_a_run_on_one_process_streams_live_to_a_socket_on_the_other(cluster: Cluster) -> None:
    first, second = connect(cluster, cluster.first), connect(cluster, cluster.second)
    async with first as on_first, second as on_second:
        await receive(on_first), await receive(on_second)  # snapshots
        options = {"endpoint_id": cluster.endpoint_id, "model": "sim-1", "tools": ["calculator"], "stream": True}
        text = '/call calculator {"expression": "6 * 7"}'
        await on_first.send(json.dumps({"type": "send", "text": text, "options": options}))
        direct, relayed = await asyncio.gather(frames_until_end(on_first), frames_until_end(on_second))
    # The watcher on the other process got the run's frames through Redis, in order, ending the same way.
    assert relayed[-1] == direct[-1] == {"type": "run.end", "status": "done", "message": "The model finished."}
    relayed_types = [f["type"] for f in relayed]
    assert "rt.start" in relayed_types and "tool.result" in relayed_types
    kinds = [f.get("kind") for f in relayed if f["type"] == "rt.delta"]
    assert kinds.count("tool_call_delta") >= 2
    assert [f for f in direct if f["type"] == "rt.delta"] == [f for f in relayed if f["type"] == "rt.delta"]


async def test_a_socket_that_opens_on_the_other_process_mid_run_gets_the_round_trip_so_far_then_every_frame(
    cluster: Cluster,
) -> None:
    # A run sends batches through Redis only while a socket elsewhere watches (and in its first second). This socket
    # opens after that first second: the run replays the round trip so far to it, then sends it every batch.
    text = "a long answer that streams for a few seconds " * 20
    options = {"endpoint_id": cluster.endpoint_id, "model": "sim-1", "tools": [], "stream": True}
    async with connect(cluster, cluster.first) as on_first:
        await receive(on_first)  # snapshot
        await on_first.send(json.dumps({"type": "send", "text": "/text " + text, "options": options}))
        await asyncio.sleep(1.5)
        async with connect(cluster, cluster.second) as on_second:
            snapshot = await receive(on_second)
            assert snapshot["status"] == "running"
            relayed = [snapshot, *await frames_until_end(on_second)]
        direct = await frames_until_end(on_first)
    replays = [f for f in relayed if f["type"] == "snapshot" and f["frames"]]
    assert replays, "the run replayed its round trip so far"
    last = max(i for i, f in enumerate(relayed) if f["type"] == "snapshot")
    drawn = [*relayed[last]["frames"], *relayed[last + 1 :]]
    streamed = "".join(f["text"] for f in direct if f["type"] == "rt.delta" and f.get("kind") == "text")  # type: ignore[misc]
    assert "".join(f["text"] for f in drawn if f["type"] == "rt.delta" and f.get("kind") == "text") == streamed  # type: ignore[misc]
    assert streamed == text.strip() or streamed == text
    assert relayed[-1] == direct[-1] == {"type": "run.end", "status": "done", "message": "The model finished."}


# A second member of the demo team with a known password, made through the app's own rules.
NEW_MEMBER = """
from django.contrib.auth import get_user_model
from playground.teams.models import Membership, Role, Team
user = get_user_model().objects.create_user("{name}", password="{password}")
Membership.objects.create(user=user, team=Team.objects.get(name="Demo team"), role=Role.EDITOR)
"""
REMOVE_MEMBER = """
from playground.teams.models import Membership
Membership.objects.get(user__username="{name}", team__name="Demo team").delete()
"""


def member_session(cluster: Cluster, name: str) -> str:
    password = "a-member-password-31c7"
    manage(cluster.first.env, "shell", "-v", "0", "-c", NEW_MEMBER.format(name=name, password=password))
    return login(cluster.first.url, name, password)


def connect_as(cluster: Cluster, server: DaphneServer, session: str) -> websockets.asyncio.client.connect:
    return websockets.connect(
        f"{server.ws_url}/ws/conversations/{cluster.conversation_id}/",
        origin=server.url,
        additional_headers={"Cookie": f"sessionid={session}"},
        open_timeout=10,
    )


async def closed_code(socket: websockets.ClientConnection) -> int | None:
    with pytest.raises(websockets.ConnectionClosed):
        await asyncio.wait_for(socket.recv(), timeout=10)
    return socket.close_code


async def test_removing_a_member_elsewhere_closes_their_socket_on_the_other_process(cluster: Cluster) -> None:
    session = await asyncio.to_thread(member_session, cluster, "erin")
    async with connect_as(cluster, cluster.second, session) as on_second:
        assert (await receive(on_second))["type"] == "snapshot"
        # A third process removes her: only Redis can tell the socket held by the second daphne.
        await asyncio.to_thread(manage, cluster.first.env, "shell", "-v", "0", "-c", REMOVE_MEMBER.format(name="erin"))
        assert await closed_code(on_second) == 4403


async def test_signing_out_on_one_process_closes_the_sessions_socket_on_the_other(cluster: Cluster) -> None:
    session = await asyncio.to_thread(member_session, cluster, "frank")
    async with connect_as(cluster, cluster.second, session) as on_second:
        assert (await receive(on_second))["type"] == "snapshot"
        await asyncio.to_thread(logout, cluster.first.url, session)
        assert await closed_code(on_second) == 4403
