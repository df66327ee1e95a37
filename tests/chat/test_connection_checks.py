"""Channels checks the ORM thread's connection before every handler (and after a disconnect), each time in a trip of
its own to the thread. The sockets' own messages skip it: their handlers reach the database first through Channels'
wrapper, which checks in the same trip (playground/shell/consumers.py, SELF_CHECKED_TYPES). Layer messages that
are not hot keep it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from playground.teams.revocation import EVENT_TYPE, user_group
from tests.chat.conftest import frames_until, open_chat, options

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from pytest_django.fixtures import SettingsWrapper

    from playground.conversations.models import Conversation

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every trip Channels makes only to check the connection, by where it was made from."""
    made: list[str] = []

    def counted(where: str) -> Callable[[], Awaitable[None]]:  # stands in for Channels' aclose_old_connections
        async def check() -> None:
            made.append(where)

        return check

    monkeypatch.setattr("channels.consumer.aclose_old_connections", counted("dispatch"))
    monkeypatch.setattr("channels.generic.websocket.aclose_old_connections", counted("disconnect"))
    return made


async def test_a_chat_turn_makes_no_trip_only_to_check_the_connection(
    conversation: Conversation,
    alice_ws_headers: list[tuple[bytes, bytes]],
    chat_settings: SettingsWrapper,
    checks: list[str],
) -> None:
    chat = await open_chat(conversation.pk, alice_ws_headers)
    assert (await chat.receive_json_from())["type"] == "snapshot"
    await chat.send_json_to({"type": "ping"})
    assert await chat.receive_json_from() == {"type": "pong"}
    chat_options = await database_sync_to_async(options)("Simulated OpenAI", tools=[])
    await chat.send_json_to({"type": "send", "text": "/text a short answer", "options": chat_options})
    frames = await frames_until(chat, "run.end")
    assert frames[-1]["status"] == "done", frames[-1]
    await chat.disconnect()
    assert checks == []


async def test_a_layer_message_that_may_touch_the_database_is_still_checked_first(
    conversation: Conversation,
    alice: User,
    alice_ws_headers: list[tuple[bytes, bytes]],
    chat_settings: SettingsWrapper,
    checks: list[str],
) -> None:
    chat = await open_chat(conversation.pk, alice_ws_headers)
    await chat.receive_json_from()  # the snapshot
    layer = get_channel_layer()
    assert layer is not None
    await layer.group_send(user_group(alice.pk), {"type": EVENT_TYPE})  # alice is still a member: the socket stays
    await chat.send_json_to({"type": "ping"})
    assert await chat.receive_json_from() == {"type": "pong"}
    assert checks == ["dispatch"]
    await chat.disconnect()
    assert checks == ["dispatch"]
