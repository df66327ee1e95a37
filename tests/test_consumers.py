"""The conversation consumer: ping/pong and events published for its conversation, through the real ASGI stack."""

from __future__ import annotations

import asyncio

import pytest
from channels.testing import WebsocketCommunicator

from playground.asgi import application
from playground.broadcast import publish_conversation_event

# channels closes old DB connections on every dispatch, and auth reads the session from another thread.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


async def connect(path: str, headers: list[tuple[bytes, bytes]]) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def test_ping_is_answered_with_pong(alice_ws_headers: list[tuple[bytes, bytes]]) -> None:
    communicator = await connect("/ws/conversations/1/", alice_ws_headers)
    await communicator.send_json_to({"type": "ping"})
    assert await communicator.receive_json_from() == {"type": "pong"}
    await communicator.disconnect()


@pytest.mark.parametrize("message", [{"type": "shout"}, ["ping"], {}])
async def test_unknown_messages_get_an_error_not_a_crash(
    alice_ws_headers: list[tuple[bytes, bytes]], message: object
) -> None:
    communicator = await connect("/ws/conversations/1/", alice_ws_headers)
    await communicator.send_json_to(message)
    reply = await communicator.receive_json_from()
    assert reply["type"] == "error"
    await communicator.send_json_to({"type": "ping"})
    assert await communicator.receive_json_from() == {"type": "pong"}
    await communicator.disconnect()


async def test_published_events_reach_only_that_conversation(alice_ws_headers: list[tuple[bytes, bytes]]) -> None:
    seven = await connect("/ws/conversations/7/", alice_ws_headers)
    eight = await connect("/ws/conversations/8/", alice_ws_headers)
    await publish_conversation_event(7, {"type": "turn.started", "turn": 1})
    assert await seven.receive_json_from() == {"type": "turn.started", "turn": 1}
    assert await eight.receive_nothing(timeout=0.2)
    await seven.disconnect()
    await eight.disconnect()


async def test_every_open_socket_of_a_conversation_gets_the_event(
    alice_ws_headers: list[tuple[bytes, bytes]],
) -> None:
    tabs = [await connect("/ws/conversations/3/", alice_ws_headers) for _ in range(3)]
    await publish_conversation_event(3, {"type": "message.saved", "id": 42})
    replies = await asyncio.gather(*(tab.receive_json_from() for tab in tabs))
    assert replies == [{"type": "message.saved", "id": 42}] * 3
    for tab in tabs:
        await tab.disconnect()


async def test_a_closed_socket_leaves_the_group(alice_ws_headers: list[tuple[bytes, bytes]]) -> None:
    gone = await connect("/ws/conversations/5/", alice_ws_headers)
    await gone.disconnect()
    stays = await connect("/ws/conversations/5/", alice_ws_headers)
    await publish_conversation_event(5, {"type": "notice"})
    assert await stays.receive_json_from() == {"type": "notice"}
    await stays.disconnect()


async def test_a_burst_of_events_arrives_complete_and_in_order(alice_ws_headers: list[tuple[bytes, bytes]]) -> None:
    # The in-memory layer's default capacity (100) would silently drop most of these.
    communicator = await connect("/ws/conversations/9/", alice_ws_headers)
    for n in range(300):
        await publish_conversation_event(9, {"type": "tick", "n": n})
    received = [(await communicator.receive_json_from())["n"] for _ in range(300)]
    assert received == list(range(300))
    await communicator.disconnect()
