"""The conversation consumer: ping/pong and events published for its conversation, through the real ASGI stack."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from playground.asgi import application
from playground.conversations.broadcast import publish_conversation_event

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# channels closes old DB connections on every dispatch, and auth reads the session from another thread.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


async def connect(path: str, headers: list[tuple[bytes, bytes]]) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    assert (await communicator.receive_json_from())["type"] == "snapshot"  # the chat's state comes first
    return communicator


@pytest.fixture
def conv(alice: User) -> Callable[[int], str]:
    """conv(n): the socket path of alice's nth conversation (made on first use), in her personal team."""
    from playground.conversations.models import Conversation
    from playground.teams.access import ensure_personal_team

    team = ensure_personal_team(alice)
    made: dict[int, int] = {}

    def path(n: int) -> str:
        if n not in made:
            made[n] = Conversation.objects.create(team=team, created_by=alice).pk
        return f"/ws/conversations/{made[n]}/"

    return path


@pytest.fixture
async def paths(conv: Callable[[int], str]) -> dict[int, str]:
    return {n: await database_sync_to_async(conv)(n) for n in (1, 3, 5, 7, 8, 9)}


def conversation_id(path: str) -> int:
    return int(path.rstrip("/").rsplit("/", 1)[1])


async def test_ping_is_answered_with_pong(alice_ws_headers: list[tuple[bytes, bytes]], paths: dict[int, str]) -> None:
    communicator = await connect(paths[1], alice_ws_headers)
    await communicator.send_json_to({"type": "ping"})
    assert await communicator.receive_json_from() == {"type": "pong"}
    await communicator.disconnect()


@pytest.mark.parametrize("message", [{"type": "shout"}, ["ping"], {}])
async def test_unknown_messages_get_an_error_not_a_crash(
    alice_ws_headers: list[tuple[bytes, bytes]], message: object, paths: dict[int, str]
) -> None:
    communicator = await connect(paths[1], alice_ws_headers)
    await communicator.send_json_to(message)
    reply = await communicator.receive_json_from()
    assert reply["type"] == "error"
    await communicator.send_json_to({"type": "ping"})
    assert await communicator.receive_json_from() == {"type": "pong"}
    await communicator.disconnect()


async def test_published_events_reach_only_that_conversation(
    alice_ws_headers: list[tuple[bytes, bytes]], paths: dict[int, str]
) -> None:
    seven = await connect(paths[7], alice_ws_headers)
    eight = await connect(paths[8], alice_ws_headers)
    await publish_conversation_event(conversation_id(paths[7]), {"type": "turn.started", "turn": 1})
    assert await seven.receive_json_from() == {"type": "turn.started", "turn": 1}
    assert await eight.receive_nothing(timeout=0.2)
    await seven.disconnect()
    await eight.disconnect()


async def test_every_open_socket_of_a_conversation_gets_the_event(
    alice_ws_headers: list[tuple[bytes, bytes]], paths: dict[int, str]
) -> None:
    tabs = [await connect(paths[3], alice_ws_headers) for _ in range(3)]
    await publish_conversation_event(conversation_id(paths[3]), {"type": "message.saved", "id": 42})
    replies = await asyncio.gather(*(tab.receive_json_from() for tab in tabs))
    assert replies == [{"type": "message.saved", "id": 42}] * 3
    for tab in tabs:
        await tab.disconnect()


async def test_a_closed_socket_leaves_the_group(
    alice_ws_headers: list[tuple[bytes, bytes]], paths: dict[int, str]
) -> None:
    gone = await connect(paths[5], alice_ws_headers)
    await gone.disconnect()
    stays = await connect(paths[5], alice_ws_headers)
    await publish_conversation_event(conversation_id(paths[5]), {"type": "notice"})
    assert await stays.receive_json_from() == {"type": "notice"}
    await stays.disconnect()


async def test_a_burst_of_events_arrives_complete_and_in_order(
    alice_ws_headers: list[tuple[bytes, bytes]], paths: dict[int, str]
) -> None:
    # The in-memory layer's default capacity (100) would silently drop most of these.
    communicator = await connect(paths[9], alice_ws_headers)
    for n in range(300):
        await publish_conversation_event(conversation_id(paths[9]), {"type": "tick", "n": n})
    received = [(await communicator.receive_json_from())["n"] for _ in range(300)]
    assert received == list(range(300))
    await communicator.disconnect()
