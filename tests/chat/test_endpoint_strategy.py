"""An endpoint's own answer to "auto": set on its form, used when a chat says auto, never over a strategy a chat
names."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.test import Client
from django.urls import reverse

from playground.chat.turn_request import strategy_for
from playground.conversations.models import Conversation
from playground.endpoints.models import Endpoint
from tests.chat.test_strategies import run_turn, saved
from tests.endpoints.support import form_data, signed_in

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from playground.teams.models import Team


def test_auto_is_the_endpoints_choice_and_a_named_strategy_is_kept() -> None:
    assert strategy_for("auto", "prompted") == "prompted"
    assert strategy_for("auto", "auto") == "auto"
    assert strategy_for("native", "prompted") == "native"
    assert strategy_for("strict", "auto") == "strict"


@pytest.mark.django_db
def test_the_endpoint_form_saves_the_choice(client: Client, alice: User, team: Team) -> None:
    client = signed_in(client, alice, team)
    client.post(reverse("endpoint-create"), form_data(tool_strategy="prompted"))
    endpoint = Endpoint.objects.get(team=team, name="Ollama")
    assert endpoint.tool_strategy == "prompted"

    page = client.get(reverse("endpoint-edit", args=[endpoint.pk])).content.decode()
    assert '<option value="prompted" selected>' in page

    client.post(reverse("endpoint-edit", args=[endpoint.pk]), form_data(tool_strategy="nonsense"))
    endpoint.refresh_from_db()
    assert endpoint.tool_strategy == "prompted", "an unknown strategy is refused, the stored one kept"


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_a_chat_on_auto_follows_the_endpoint(conversation: Conversation, alice: User) -> None:
    await Endpoint.objects.filter(name="Simulated OpenAI").aupdate(tool_strategy="prompted")

    done = await run_turn(conversation, "openai-chat", "Weather in Quito?", strategy="auto")

    assert done.status == "done", done.status_message
    messages, round_trips = await saved(conversation)
    assert round_trips[0].notes[0].startswith("tool-calling strategy: prompted")
    assert messages[1].meta == {"strategy": "prompted"}
    assert messages[1].data["tool_calls"][0]["function"]["name"] == "get_weather"

    await run_turn(conversation, "openai-chat", '/call get_weather {"city": "Oslo"}', strategy="native")
    messages, round_trips = await saved(conversation)
    calls = [m for m in messages if m.role == "assistant" and m.data.get("tool_calls")]
    assert len(calls) == 2
    assert "strategy" not in calls[1].meta, "a strategy the chat names wins over the endpoint's"
