"""Retry from here after a provider's error: offered on the page, and run with the chat's settings as they are now
(a model changed after a 429 is the one asked), checked as a new message's are."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from playground.conversations.models import Conversation, Message, RoundTrip
from tests.chat.conftest import frames_until, open_chat, options

if TYPE_CHECKING:
    from collections.abc import Callable

    from django.contrib.auth.models import User

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


def _save_settings(user: User, conversation: Conversation, **changes: Any) -> None:
    client = Client()
    client.force_login(user)
    body = json.dumps(options(**changes))
    response = client.post(f"/c/{conversation.pk}/settings/", body, content_type="application/json")
    assert response.json()["saved"] is True, response.json()


async def _failed_turn(conversation: Conversation, alice: User, headers: list[tuple[bytes, bytes]]) -> Any:
    chat = await open_chat(conversation.pk, headers)
    await chat.receive_json_from()  # the snapshot
    turn = await database_sync_to_async(options)(model="sim-429")
    await chat.send_json_to({"type": "send", "text": "What's the weather in Paris?", "options": turn})
    end = (await frames_until(chat, "run.end"))[-1]
    assert end["status"] == "error" and "Rate limit" in end["message"]
    return chat


async def test_retry_after_an_error_asks_the_model_now_chosen(
    conversation: Conversation, alice: User, headers_for: Callable[[User], list[tuple[bytes, bytes]]]
) -> None:
    chat = await _failed_turn(conversation, alice, await database_sync_to_async(headers_for)(alice))
    # The person picks another model after reading the error; the page saves it as it changes.
    await database_sync_to_async(_save_settings)(alice, conversation, model="sim-1")

    await chat.send_json_to({"type": "retry"})
    end = (await frames_until(chat, "run.end"))[-1]
    assert end["status"] == "done", end
    trips = [(t.position, t.model, t.request["model"]) async for t in RoundTrip.objects.filter(
        conversation=conversation).order_by("position")]  # fmt: skip
    assert trips[0][1:] == ("sim-429", "sim-429")
    assert all(model == "sim-1" and sent == "sim-1" for _, model, sent in trips[1:]), trips
    saved = await Conversation.objects.aget(pk=conversation.pk)
    assert (saved.model, saved.status) == ("sim-1", "done")
    users = [m async for m in Message.objects.filter(conversation=conversation, role="user").values_list("position")]
    assert len(users) == 1, "a retry sends no new message of the person's"
    await chat.disconnect()


async def test_retry_with_settings_that_cannot_run_is_refused_and_changes_nothing(
    conversation: Conversation, alice: User, headers_for: Callable[[User], list[tuple[bytes, bytes]]]
) -> None:
    chat = await _failed_turn(conversation, alice, await database_sync_to_async(headers_for)(alice))
    saved = await Conversation.objects.aget(pk=conversation.pk)
    await Conversation.objects.filter(pk=conversation.pk).aupdate(
        settings={**saved.settings, "tools": ["get_weather", "no_such_tool"]}
    )
    await chat.send_json_to({"type": "retry"})
    assert await chat.receive_json_from() == {"type": "error", "error": "Unknown tools: no_such_tool."}
    after = await Conversation.objects.aget(pk=conversation.pk)
    assert (after.status, after.model, after.run_owner) == ("error", "sim-429", "")
    assert await RoundTrip.objects.filter(conversation=conversation).acount() == 1
    await chat.disconnect()


def test_the_page_offers_retry_after_an_error_and_not_after_a_stop(conversation: Conversation, alice: User) -> None:
    client = Client()
    client.force_login(alice)
    for status, offered in (("error", True), ("interrupted", True), ("stopped", False), ("done", False)):
        Conversation.objects.filter(pk=conversation.pk).update(status=status)
        html = client.get(f"/c/{conversation.pk}/").content.decode()
        form = html.split('id="retry-form"', 1)[1].split(">", 1)[0]
        beside_send = html.split('data-testid="retry-composer"', 1)[1].split(">", 1)[0]
        assert ("hidden" not in form) is offered, (status, form)
        assert ("hidden" not in beside_send) is offered, (status, beside_send)
        assert 'data-statuses="error interrupted"' in form, "the page's script offers it for the same statuses"


def test_retry_as_a_plain_form_uses_the_saved_settings(conversation: Conversation, alice: User) -> None:
    from asgiref.sync import async_to_sync

    from playground.chat.service import resume_turn

    Message.objects.create(conversation=conversation, position=0, role="user", data={"role": "user", "content": "hi"})
    Conversation.objects.filter(pk=conversation.pk).update(status="error", settings=options(model="sim-1"))
    fresh = Conversation.objects.select_related("team").get(pk=conversation.pk)
    assert fresh.endpoint_id is None, "never configured by a turn here: the saved settings name the endpoint"

    async def retried() -> str:
        run = await resume_turn(conversation=fresh, user=alice, current_settings=True)
        assert run.task is not None
        await run.task
        return (await Conversation.objects.aget(pk=conversation.pk)).status

    assert async_to_sync(retried)() == "done"
    assert RoundTrip.objects.get(conversation=conversation).request["model"] == "sim-1"
