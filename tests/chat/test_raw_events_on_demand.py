"""A conversation page sends raw events inline only for round trips that have few; the rest load on demand."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from django.urls import reverse

from playground.conversations.models import RoundTrip, WireEventBatch
from playground.conversations.panes import INLINE_EVENTS, PaneLinks, one_round_trip, page_round_trips
from playground.templatetags.chat import labelled
from tests.chat.test_chat_views import saved_chat
from tests.conversations.builders import as_streamed

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db

MARK = "needle-in-a-raw-event"


def _many_events(count: int) -> list[dict[str, object]]:
    return [{"t_ms": float(i), "event": None, "data": f'{{"n":{i},"m":"{MARK}"}}'} for i in range(count)]


def test_many_raw_events_stay_behind_a_button_and_few_are_inline(client: Client, team: Team, alice: User) -> None:
    conversation = saved_chat(team, alice)
    big = RoundTrip.objects.create(
        conversation=conversation,
        position=1,
        format="openai-chat",
        wire_events=_many_events(INLINE_EVENTS + 500),
        complete=True,
    )
    client.force_login(alice)
    html = client.get(reverse("chat", args=[conversation.pk])).content.decode()
    assert MARK not in html, "the big round trip's events are not in the page"
    assert f"Show the {INLINE_EVENTS + 500} raw events" in html and 'data-testid="load-wire-events"' in html
    assert html.count('data-testid="wire-event"') == 1, "the small round trip's one event is inline"
    events = client.get(reverse("chat-wire-events", args=[conversation.pk, big.position])).content.decode()
    assert events.count('data-testid="wire-event"') == INLINE_EVENTS + 500 and MARK in events


def test_the_event_count_saved_with_each_round_trip_sizes_its_pane(client: Client, team: Team, alice: User) -> None:
    conversation = saved_chat(team, alice)
    RoundTrip.objects.create(conversation=conversation, position=1, format="anthropic", wire_events=_many_events(7))
    views = page_round_trips(conversation, PaneLinks(conversation.pk))
    assert [(v["event_count"], v["events_deferred"]) for v in views] == [(1, False), (7, False)]


def test_raw_events_of_another_team_are_not_found(
    client: Client, team: Team, alice: User, django_user_model: type[User]
) -> None:
    conversation = saved_chat(team, alice)
    mallory = django_user_model.objects.create_user("mallory", password="x")
    client.force_login(mallory)
    assert client.get(reverse("chat-wire-events", args=[conversation.pk, 0])).status_code == 404
    client.force_login(alice)
    assert client.get(reverse("chat-wire-events", args=[conversation.pk, 9])).status_code == 404


def test_a_streamed_round_trips_batched_events_are_shown_inline_and_on_demand(
    client: Client, team: Team, alice: User
) -> None:
    conversation = saved_chat(team, alice)
    ended = {"format": "openai-chat", "complete": True, "total_ms": 80.0}
    few = RoundTrip.objects.create(conversation=conversation, position=1, wire_events=_many_events(3), **ended)
    many = RoundTrip.objects.create(
        conversation=conversation, position=2, wire_events=_many_events(INLINE_EVENTS + 5), **ended
    )
    as_streamed(few)
    as_streamed(many, per_batch=50)
    client.force_login(alice)
    html = client.get(reverse("chat", args=[conversation.pk])).content.decode()
    assert html.count('data-testid="wire-event"') == 1 + 3, "the few batched events are inline, after the first's"
    assert f"Show the {INLINE_EVENTS + 5} raw events" in html
    events = client.get(reverse("chat-wire-events", args=[conversation.pk, many.position])).content.decode()
    shown = [int(n) for n in re.findall(r"n&quot;:(\d+),", events)]
    assert shown == list(range(INLINE_EVENTS + 5)), "each once, in order"
    links = PaneLinks(conversation.pk)
    [view] = [v for v in page_round_trips(conversation, links) if v["row"].pk == few.pk]
    assert [e["data"] for e in view["row"].wire_events] == [e["data"] for e in _many_events(3)]
    unfolded = one_round_trip(conversation, few.position, links)  # a folded pane, asked for
    assert unfolded["event_count"] == 3 and len(unfolded["row"].wire_events) == 3


def test_a_round_trip_still_streaming_leaves_its_events_to_the_run(client: Client, team: Team, alice: User) -> None:
    """Its batches so far are not counted yet: shown inline they would pass the cap, and come twice beside the ones
    the run's snapshot replays."""
    conversation = saved_chat(team, alice)
    streaming = RoundTrip.objects.create(conversation=conversation, position=1, format="openai-chat")
    WireEventBatch.objects.create(round_trip=streaming, seq=0, events=[[1.0, f'{{"m":"{MARK}"}}', None]])
    client.force_login(alice)
    html = client.get(reverse("chat", args=[conversation.pk])).content.decode()
    assert MARK not in html and html.count('data-testid="wire-event"') == 1
    assert one_round_trip(conversation, 1, PaneLinks(conversation.pk))["row"].wire_events == []


def test_unnamed_events_are_labelled_by_what_they_bring_inline_and_on_demand(
    client: Client, team: Team, alice: User
) -> None:
    conversation = saved_chat(team, alice)
    call = '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"ci"}}]}}]}'
    events = [{"t_ms": 1.0, "event": None, "data": call}, {"t_ms": 2.0, "event": None, "data": "[DONE]"}]
    RoundTrip.objects.create(conversation=conversation, position=1, format="openai-chat", wire_events=events)
    named = [{"t_ms": 1.0, "event": "message_stop", "data": '{"type":"message_stop"}'}]
    RoundTrip.objects.create(conversation=conversation, position=2, format="anthropic", wire_events=named)
    client.force_login(alice)
    html = client.get(reverse("chat", args=[conversation.pk])).content.decode()
    labels = re.findall(r'data-testid="wire-event-label"[^>]*>([^<]*)<', html)
    assert labels == ["tool_calls[0].arguments", "[DONE]"], "the first round trip's chunk brings nothing: no label"
    assert '<span class="ev">message_stop</span>' in html, "a named event shows its own name"
    on_demand = client.get(reverse("chat-wire-events", args=[conversation.pk, 1])).content.decode()
    assert re.findall(r'data-testid="wire-event-label"[^>]*>([^<]*)<', on_demand) == labels


def test_events_of_a_format_this_version_lacks_are_drawn_without_labels() -> None:
    content = {"t_ms": 1.0, "event": None, "data": '{"choices":[{"index":0,"delta":{"content":"Hi"}}]}'}
    named = {"t_ms": 2.0, "event": "message_stop", "data": "{}"}
    assert labelled([content, named], "openai-chat") == [(content, "content"), (named, "")]
    for unknown in ("a-format-since-removed", None):
        assert labelled([content, named], unknown) == [(content, ""), (named, "")]  # type: ignore[arg-type]
