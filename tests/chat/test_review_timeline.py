"""A review page open while its conversation runs is told each time the run saves where it stands, and reads the
timeline again: the answer a reviewer waits for arrives without a reload."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from playground.asgi import application
from playground.chat.options import ChatOptions
from playground.chat.service import start_turn
from playground.conversations.models import Conversation
from tests.chat.conftest import options
from tests.conftest import ALLOWED_HOST, ALLOWED_ORIGIN

if TYPE_CHECKING:
    from django.contrib.auth.models import User

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]
TIMEOUT_S = 10


def _cookie(user: User) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


async def review_socket(user: User, conversation_id: int) -> WebsocketCommunicator:
    cookie = await database_sync_to_async(_cookie)(user)
    headers = [
        (b"origin", ALLOWED_ORIGIN.encode()),
        (b"host", ALLOWED_HOST.encode()),
        (b"cookie", f"sessionid={cookie}".encode()),
    ]
    socket = WebsocketCommunicator(application, f"/ws/review/{conversation_id}/", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    return socket


async def test_a_review_page_hears_when_a_run_asks_and_when_it_ends(conversation: Conversation, carol: User) -> None:
    watcher = await review_socket(carol, conversation.pk)  # a viewer reviewing the chat as it runs
    chat_options = ChatOptions(**await database_sync_to_async(options)(approve=True))
    fresh = await Conversation.objects.select_related("team").aget(pk=conversation.pk)
    text = '/call calculator {"expression": "6 * 7"}'
    run = (await start_turn(conversation=fresh, text=text, options=chat_options)).run
    frame: dict[str, Any] = await watcher.receive_json_from(timeout=TIMEOUT_S)
    assert frame == {"type": "review.timeline"}, "the run waits for an approval: the call is on the timeline now"
    assert await Conversation.objects.filter(pk=conversation.pk).values_list("status", flat=True).aget() == "waiting"

    [call_id] = list(run.waiting)
    run.control({"type": "approval", "call_id": call_id, "action": "approve"})
    assert run.task is not None
    await run.task
    frames = [await watcher.receive_json_from(timeout=TIMEOUT_S) for _ in range(3)]
    assert frames == [{"type": "review.timeline"}] * 3, "answered (running again), the call's result, then ended"
    assert await watcher.receive_nothing(timeout=0.2)
    await watcher.disconnect()


async def test_a_run_that_answers_its_own_calls_tells_the_review_of_each_result(
    conversation: Conversation, carol: User
) -> None:
    """Nothing is asked, so the status changes only at the end: the results are what the review follows meanwhile."""
    watcher = await review_socket(carol, conversation.pk)
    chat_options = ChatOptions(**await database_sync_to_async(options)())
    fresh = await Conversation.objects.select_related("team").aget(pk=conversation.pk)
    text = '/call calculator {"expression": "6 * 7"}'
    run = (await start_turn(conversation=fresh, text=text, options=chat_options)).run
    first: dict[str, Any] = await watcher.receive_json_from(timeout=TIMEOUT_S)
    assert first == {"type": "review.timeline"}
    roles = [role async for role in conversation.messages.order_by("position").values_list("role", flat=True)]
    assert roles[:3] == ["user", "assistant", "tool"], "sent once the result is saved: the page reads it"
    assert run.task is not None
    await run.task
    assert await watcher.receive_json_from(timeout=TIMEOUT_S) == {"type": "review.timeline"}, "then its end"
    assert await watcher.receive_nothing(timeout=0.2)
    await watcher.disconnect()
