"""The base-URL allow-list is checked when a run starts: an endpoint saved before it was narrowed gets nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from channels.db import database_sync_to_async

from playground.conversations.models import Conversation, RoundTrip
from playground.endpoints.models import Endpoint
from tests import echo_provider
from tests.chat.conftest import frames_until, open_chat, options

if TYPE_CHECKING:
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


@pytest.fixture(scope="module")
def echo_url() -> Iterator[str]:
    with echo_provider.echo_provider() as url:
        yield url


async def test_a_narrowed_allow_list_stops_runs_to_an_endpoint_saved_before(
    conversation: Conversation,
    team: Team,
    echo_url: str,
    alice_ws_headers: list[tuple[bytes, bytes]],
    settings: SettingsWrapper,
) -> None:
    endpoint = Endpoint(
        team=team, name="Old gateway", kind=Endpoint.Kind.COMPATIBLE, format="openai-chat", base_url=echo_url
    )
    endpoint.set_api_key("sk-must-never-travel-0123456789")
    await endpoint.asave()
    settings.CROSSWIRE_ALLOWED_BASE_URLS = ["https://api.openai.com/v1"]
    before = len(echo_provider.RECEIVED)

    chat = await open_chat(conversation.pk, alice_ws_headers)
    await chat.receive_json_from()
    turn = await database_sync_to_async(options)("Old gateway", model="echo-stream", tools=[])
    await chat.send_json_to({"type": "send", "text": "hello", "options": turn})
    reply = await chat.receive_json_from()
    assert reply["type"] == "error" and reply["error"].startswith("Old gateway cannot be used: ")
    assert len(echo_provider.RECEIVED) == before, "no request, so no key, left for the refused URL"
    assert not await RoundTrip.objects.filter(conversation=conversation).aexists()
    assert await conversation.messages.acount() == 0

    settings.CROSSWIRE_ALLOWED_BASE_URLS = ["*"]  # the control: allowed again, the same turn reaches it
    await chat.send_json_to({"type": "send", "text": "hello", "options": turn})
    await frames_until(chat, "run.end")
    await chat.disconnect()
    assert len(echo_provider.RECEIVED) == before + 1


@pytest.mark.parametrize("suffix", ["/v1/../..", "/v1/%2e%2e/private"])
async def test_a_stored_url_with_an_escaping_path_is_refused_at_run_start(
    suffix: str,
    conversation: Conversation,
    team: Team,
    echo_url: str,
    alice_ws_headers: list[tuple[bytes, bytes]],
    settings: SettingsWrapper,
) -> None:
    # Saved before the path checks existed: the allow-list names the prefix the path pretends to stay under.
    endpoint = Endpoint(
        team=team, name="Escaping", kind=Endpoint.Kind.COMPATIBLE, format="openai-chat", base_url=echo_url + suffix
    )
    endpoint.set_api_key("sk-must-never-travel-0123456789")
    await endpoint.asave()
    settings.CROSSWIRE_ALLOWED_BASE_URLS = [echo_url + "/v1"]
    before = len(echo_provider.RECEIVED)

    chat = await open_chat(conversation.pk, alice_ws_headers)
    await chat.receive_json_from()
    turn = await database_sync_to_async(options)("Escaping", model="echo-stream", tools=[])
    await chat.send_json_to({"type": "send", "text": "hello", "options": turn})
    reply = await chat.receive_json_from()
    await chat.disconnect()
    assert reply["type"] == "error" and reply["error"].startswith("Escaping cannot be used: ")
    assert len(echo_provider.RECEIVED) == before
