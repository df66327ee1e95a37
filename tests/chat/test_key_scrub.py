"""A key that the provider quotes back never reaches a frame, the status line, a saved row or the log."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest
from channels.db import database_sync_to_async

from playground.conversations.models import Conversation
from playground.endpoints.models import Endpoint
from tests.chat.conftest import frames_until, open_chat, options
from tests.echo_provider import echo_provider

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from playground.teams.models import Team

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]
KEY = "sk-live-0123456789abcdefTOPSECRET"


@pytest.fixture(scope="module")
def echo_url() -> Iterator[str]:
    with echo_provider() as url:
        yield url


@pytest.fixture
def echo_endpoint(team: Team, echo_url: str, conversation: Conversation) -> Endpoint:
    endpoint = Endpoint(team=team, name="Echo", kind=Endpoint.Kind.COMPATIBLE, format="openai-chat", base_url=echo_url)
    endpoint.set_api_key(KEY)
    endpoint.save()
    return endpoint


@database_sync_to_async
def everything_saved(conversation: Conversation) -> str:
    fresh = Conversation.objects.get(pk=conversation.pk)
    rows = [
        {"status": fresh.status, "message": fresh.status_message},
        [m.data for m in fresh.messages.all()],
        [(rt.error, rt.wire_events, rt.wire_request) for rt in fresh.round_trips.all()],
    ]
    return json.dumps(rows)


@pytest.mark.parametrize(("model", "expect_status"), [("echo-401", "error"), ("echo-stream", "error")])
async def test_a_quoted_key_is_scrubbed_everywhere(
    conversation: Conversation,
    echo_endpoint: Endpoint,
    alice: User,
    headers_for: Callable[[User], list[tuple[bytes, bytes]]],
    caplog: pytest.LogCaptureFixture,
    model: str,
    expect_status: str,
) -> None:
    caplog.set_level(logging.DEBUG)
    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(alice))
    await chat.receive_json_from()
    chat_options = await database_sync_to_async(options)("Echo", model=model, tools=[])
    await chat.send_json_to({"type": "send", "text": "hello", "options": chat_options})
    frames = await frames_until(chat, "run.end")
    await chat.disconnect()

    sent = json.dumps(frames)
    saved = await everything_saved(conversation)
    assert frames[-1]["status"] == expect_status
    # The provider did quote it: what reached us says so, with the key replaced.
    assert "[redacted]" in sent and "[redacted]" in saved
    for place in (sent, saved, caplog.text):
        assert KEY not in place
        assert KEY[8:] not in place  # nor the token without its prefix


def test_the_error_message_reads_well_after_scrubbing() -> None:
    from providers.client.scrub import Scrubber

    scrubber = Scrubber.of([f"Bearer {KEY}", "simulator", "short"])
    text = f"Incorrect API key provided: Bearer {KEY}. Or {KEY} alone."
    assert scrubber.text(text) == "Incorrect API key provided: Bearer [redacted]. Or [redacted] alone."
    # Stand-ins and short values are no secrets: replacing them would mangle ordinary text.
    assert scrubber.text("the simulator said short") == "the simulator said short"
    assert scrubber.value({"error": {"message": KEY, "list": [KEY, 3]}}) == {
        "error": {"message": "[redacted]", "list": ["[redacted]", 3]}
    }
