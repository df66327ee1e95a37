"""Replay on another provider: the history up to a chosen message goes to another endpoint, the original's tool
results are reused for JSON-equal calls, and both conversations open side by side as a comparison."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from playground.chat.registry import REGISTRY
from playground.chat.service import resume_turn
from playground.compare.models import Comparison
from playground.compare.replay import create_replay, recorded_from, replay_points
from playground.compare.service import CompareRefused
from playground.conversations.models import Conversation, Message

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.teams.models import Team

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


def _original(team: Team, alice: User, simulated: dict[str, int], *, answer: str) -> Conversation:
    """A finished conversation on Simulated OpenAI: the model asked search_docs (answered by hand), then replied."""
    from playground.chat.options import ChatOptions
    from playground.tools.models import Tool

    tools = [t.config().to_dict() for t in Tool.objects.filter(team=team, name__in=["search_docs", "get_weather"])]
    options = ChatOptions(
        endpoint_id=simulated["Simulated OpenAI"], model="sim-1", tools=["search_docs", "get_weather"]
    )
    conversation = Conversation.objects.create(
        team=team,
        created_by=alice,
        title="Refunds",
        endpoint_id=simulated["Simulated OpenAI"],
        endpoint_name="Simulated OpenAI",
        format="openai-chat",
        model="sim-1",
        settings=options.to_dict(),
        tools=tools,
        status="done",
    )
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "search_docs", "arguments": '{"query":"refund policy"}'},
    }
    rows = [
        {"role": "user", "content": '/call search_docs {"query": "refund policy"}'},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": answer},
        {"role": "assistant", "content": "Here is what the tools returned."},
    ]
    for position, data in enumerate(rows):
        Message.objects.create(conversation=conversation, position=position, role=data["role"], data=data)
    return conversation


def test_the_originals_results_are_recorded_by_call(team: Team, alice: User, simulated: dict[str, int]) -> None:
    original = _original(team, alice, simulated, answer="Refunds take 5 days.")
    recorded = recorded_from(list(original.messages.filter(position__gt=0)))
    # Canonical JSON: the replayed model's spacing or key order does not matter.
    assert recorded == [
        {
            "name": "search_docs",
            "arguments": '{"query":"refund policy"}',
            "content": "Refunds take 5 days.",
            "is_error": False,
        }
    ]
    assert replay_points(original) == [(0, '/call search_docs {"query": "refund policy"}')]


async def test_a_replay_on_anthropic_reuses_the_manual_answer_and_runs_to_the_end(
    team: Team, alice: User, simulated: dict[str, int]
) -> None:
    original = await database_sync_to_async(_original)(team, alice, simulated, answer="Refunds take 5 days.")
    comparison, replayed = await database_sync_to_async(create_replay)(
        original, alice, endpoint_id=simulated["Simulated Anthropic"], model="sim-1", from_position=0
    )
    run = await resume_turn(conversation=replayed, user=alice)
    assert run.task is not None
    await asyncio.wait_for(asyncio.wait({run.task}), 30)
    assert not REGISTRY.is_running(replayed.pk)

    replayed = await Conversation.objects.aget(pk=replayed.pk)
    assert replayed.status == "done", "no question was asked: the manual tool's original answer was reused"
    result = await Message.objects.filter(conversation=replayed, role="tool").afirst()
    assert result is not None and result.data["content"] == "Refunds take 5 days." and result.meta["source"] == "replay"
    trip = await replayed.round_trips.order_by("position").afirst()
    assert trip is not None and trip.wire_request["url"].endswith("/v1/messages")
    runs = [(r.position, r.conversation_id) async for r in comparison.runs.order_by("position")]
    assert runs == [(0, original.pk), (1, replayed.pk)]
    assert comparison.kind == Comparison.Kind.REPLAY
    assert await original.messages.acount() == 4, "the original is untouched"


def test_a_replay_needs_an_endpoint_a_model_and_a_user_message(
    team: Team, alice: User, simulated: dict[str, int]
) -> None:
    original = _original(team, alice, simulated, answer="x")
    with pytest.raises(CompareRefused) as refused:
        create_replay(original, alice, endpoint_id=999_999, model=" ", from_position=1)
    assert set(refused.value.errors) == {"endpoint_id", "model", "from_position"}
    assert not Comparison.objects.exists()


def test_viewers_cannot_replay(client: Client, carol: User, team: Team, alice: User, simulated: dict[str, int]) -> None:
    original = _original(team, alice, simulated, answer="x")
    client.force_login(carol)
    client.post(reverse("team-switch"), {"team": team.pk})
    response = client.post(
        reverse("replay", args=[original.pk]),
        {"endpoint_id": simulated["Simulated Anthropic"], "model": "sim-1", "from_position": 0},
    )
    assert response.status_code == 403
    assert not Comparison.objects.exists()


def test_the_replay_menu_lists_the_messages_sent_since_the_page_loaded(
    client: Client, carol: User, team: Team, alice: User, simulated: dict[str, int]
) -> None:
    """The menu is on the page from the start (a new chat has no message yet) and fetches its messages when opened."""
    draft = Conversation.objects.create(team=team, created_by=alice)
    client.force_login(alice)
    client.post(reverse("team-switch"), {"team": team.pk})
    page = client.get(reverse("chat", args=[draft.pk])).content.decode()
    assert 'data-testid="replay-button"' in page and "No message of yours yet" in page
    assert '<input name="model" value="sim-1" data-testid="replay-model" required>' in page, "a model to start from"
    original = _original(team, alice, simulated, answer="x")
    menu = client.get(reverse("replay-menu", args=[original.pk])).content.decode()
    assert menu.strip() == '<option value="0">/call search_docs {&quot;query&quot;: &quot;refund policy&quot;}</option>'
    client.force_login(carol)
    client.post(reverse("team-switch"), {"team": team.pk})
    assert client.get(reverse("replay-menu", args=[original.pk])).status_code == 403
    assert 'data-testid="replay-button"' not in client.get(reverse("chat", args=[original.pk])).content.decode()


def test_a_chat_replayed_twice_names_each_replay_by_where_it_ran(
    client: Client, team: Team, alice: User, simulated: dict[str, int]
) -> None:
    original = _original(team, alice, simulated, answer="x")
    on_anthropic, replay = create_replay(
        original, alice, endpoint_id=simulated["Simulated Anthropic"], model="sim-1", from_position=0
    )
    create_replay(original, alice, endpoint_id=simulated["Simulated Gemini"], model="sim-2", from_position=0)
    client.force_login(alice)
    page = client.get(reverse("chat", args=[original.pk])).content.decode()
    links = [part.split(">", 1)[1].split("<", 1)[0] for part in page.split('data-testid="comparison-link"')[1:]]
    assert links == ["Replayed on Simulated Gemini · sim-2", "Replayed on Simulated Anthropic · sim-1"], "newest first"
    copy = client.get(reverse("chat", args=[replay.pk])).content.decode()
    assert f'href="{reverse("comparison", args=[on_anthropic.pk])}" data-testid="comparison-link"' in copy
    assert "Replay: Replay of Refunds" in copy
    side_by_side = client.get(reverse("comparison", args=[on_anthropic.pk])).content.decode()
    roles = [part.split(">", 1)[1].split("<", 1)[0] for part in side_by_side.split('data-testid="column-role"')[1:]]
    assert roles == ["original", "replay"]


def test_a_message_of_images_alone_is_named_by_the_number_other_pages_give_it(team: Team, alice: User) -> None:
    conversation = Conversation.objects.create(team=team, created_by=alice)
    call = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    rows = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "assistant", "content": "Sunny."},
        {"role": "user", "content": [image]},
    ]
    for position, data in enumerate(rows):
        Message.objects.create(conversation=conversation, position=position, role=data["role"], data=data)
    # At position 4 ("message 5" by position); the Fork menu and the review leave the tool result out: message 4.
    assert replay_points(conversation) == [(0, "Weather?"), (4, "message 4")]
