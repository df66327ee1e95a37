"""A long conversation's page sends its newest round trips whole and folds the others, whose parts load on demand."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from playground.conversations import panes
from playground.conversations.models import Conversation, RoundTrip
from playground.review.sharing import create_link, revoke
from tests.chat.test_chat_views import WIRE

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db

TOOL = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}


def _long_chat(team: Team, user: User, round_trips: int, filler: int) -> Conversation:
    """Each request carries a marker of its own round trip and ``filler`` characters of history."""
    conversation = Conversation.objects.create(team=team, created_by=user, title="agent loop", format="openai-chat")
    for position in range(round_trips):
        history = [{"role": "user", "content": f"mark-{position:03d} " + "x" * filler}]
        RoundTrip.objects.create(
            conversation=conversation,
            position=position,
            format="openai-chat",
            model="sim-1",
            request={"model": "sim-1", "tools": [TOOL], "messages": history},
            wire_request={**WIRE, "body": {"model": "sim-1", "marker": f"wire-{position:03d}"}},
            wire_events=[{"t_ms": 1.0, "event": None, "data": f"event-{position:03d}"}],
            complete=True,
        )
    return conversation


def test_the_newest_round_trips_are_whole_and_the_older_ones_folded(
    client: Client, team: Team, alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(panes, "PANE_BUDGET_CHARS", 25_000)
    conversation = _long_chat(team, alice, round_trips=10, filler=10_000)
    client.force_login(alice)
    html = client.get(f"/c/{conversation.pk}/").content.decode()
    # Each round trip measures ~10 KB: the budget holds the newest two.
    assert "mark-009" in html and "mark-008" in html and "event-009" in html
    assert "mark-000" not in html and "wire-000" not in html and "event-000" not in html
    assert html.count('data-testid="load-round-trip"') == 8
    assert f'hx-get="/c/{conversation.pk}/round-trips/0/panes/"' in html
    unfolded = client.get(f"/c/{conversation.pk}/round-trips/0/panes/").content.decode()
    assert "mark-000" in unfolded and "wire-000" in unfolded and "event-000" in unfolded
    assert 'data-testid="pane-internal"' in unfolded and 'data-testid="load-round-trip"' not in unfolded


def test_a_round_trip_over_the_budget_is_folded_even_the_newest(
    client: Client, team: Team, alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(panes, "PANE_BUDGET_CHARS", 100)
    conversation = _long_chat(team, alice, round_trips=3, filler=1_000)
    views = panes.page_round_trips(conversation, panes.PaneLinks(conversation.pk))
    assert [bool(v.get("folded")) for v in views] == [True, True, True]


def test_a_folded_round_trips_big_columns_are_never_read(
    team: Team, alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(panes, "PANE_BUDGET_CHARS", 100)
    conversation = _long_chat(team, alice, round_trips=5, filler=1_000)
    with CaptureQueriesContext(connection) as queries:
        views = panes.page_round_trips(conversation, panes.PaneLinks(conversation.pk))
        assert all(v.get("folded") and v["event_count"] == 1 and v["has_wire"] for v in views)
    assert len(queries) == 1, "the rows alone: nothing is whole, so nothing big (nor any message) is read"
    columns = queries[0]["sql"].split(" FROM ")[0]
    assert '"request"' not in columns and '"wire_events"' not in columns and '"wire_request",' not in columns


def test_sizes_are_measured_on_every_save_and_on_import(team: Team, alice: User) -> None:
    import json

    from playground.conversations.transfer import export_document, import_text

    conversation = _long_chat(team, alice, round_trips=1, filler=500)
    trip = conversation.round_trips.get()
    assert trip.event_count == 1 and trip.body_chars > 500
    trip.wire_events = [*trip.wire_events, {"t_ms": 2.0, "event": None, "data": "more"}]
    trip.save(update_fields=["wire_events"])
    trip.refresh_from_db()
    assert trip.event_count == 2, "a save of the events alone counts them again"
    document = json.dumps(export_document(conversation))
    copied = import_text(document, "crosswire", team=team, user=alice).conversation.round_trips.get()
    assert (copied.event_count, copied.body_chars) == (2, trip.body_chars)


def test_the_migration_measures_the_round_trips_saved_before(team: Team, alice: User) -> None:
    import importlib

    from django.db import connection as db

    migration = importlib.import_module("playground.migrations.0011_round_trip_measures")
    conversation = _long_chat(team, alice, round_trips=2, filler=300)
    RoundTrip.objects.update(event_count=0, body_chars=0)

    class Editor:  # what the migration uses of a schema editor (a real one cannot open inside a test's transaction)
        connection = db

        def execute(self, sql: str) -> None:
            with db.cursor() as cursor:
                cursor.execute(sql)

    migration.measure_saved(None, Editor())
    measured = list(conversation.round_trips.values_list("event_count", "body_chars"))
    assert all(count == 1 and 300 < chars < 1_000 for count, chars in measured)


def test_the_transcript_checks_calls_against_the_tools_without_reading_requests(
    client: Client, team: Team, alice: User
) -> None:
    conversation = _long_chat(team, alice, round_trips=1, filler=10)
    trip = conversation.round_trips.get()
    strict = {"type": "function", "function": {"name": "lookup", "parameters": {"required": ["q"]}}}
    trip.request = {**trip.request, "tools": [strict]}
    trip.save()
    call = {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
    conversation.messages.create(
        position=0, role="assistant", data={"role": "assistant", "tool_calls": [call]}, round_trip=trip
    )
    client.force_login(alice)
    html = client.get(f"/c/{conversation.pk}/").content.decode()
    assert "&#x27;q&#x27; is a required property" in html, "checked against the tools that round trip offered"


def test_snippets_are_fetched_as_text_and_refused_where_nothing_was_sent(
    client: Client, team: Team, alice: User
) -> None:
    conversation = _long_chat(team, alice, round_trips=1, filler=10)
    RoundTrip.objects.create(conversation=conversation, position=1, format="anthropic", error={"type": "x"})
    client.force_login(alice)
    base = f"/c/{conversation.pk}/round-trips"
    python = client.get(f"{base}/0/copy/python/")
    assert python.status_code == 200 and "import openai" in python.content.decode()
    assert "wire-000" in python.content.decode()
    assert client.get(f"{base}/1/copy/curl/").status_code == 404, "the failed round trip sent nothing"
    assert client.get(f"{base}/0/copy/ruby/").status_code == 404
    assert client.get(f"{base}/7/panes/").status_code == 404


def test_a_share_link_unfolds_round_trips_without_credential_headers(
    client: Client, team: Team, alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(panes, "PANE_BUDGET_CHARS", 100)
    conversation = _long_chat(team, alice, round_trips=2, filler=1_000)
    link, token = create_link(conversation=conversation, user=alice, expires_in=None)
    page = client.get(f"/s/{token}/").content.decode()
    assert f'hx-get="/s/{token}/round-trips/0/panes/"' in page and "mark-000" not in page
    unfolded = client.get(f"/s/{token}/round-trips/0/panes/")
    body = unfolded.content.decode()
    assert unfolded.status_code == 200 and "mark-000" in body and unfolded["Cache-Control"] == "no-store"
    assert "authorization" not in body.lower(), "a share leaves credential headers out altogether"
    assert f'data-copy-url="/s/{token}/round-trips/0/curl/"' in body
    curl = client.get(f"/s/{token}/round-trips/0/curl/").content.decode()
    assert "${OPENAI_API_KEY}" in curl
    revoke(conversation=conversation, link_id=link.pk)
    assert client.get(f"/s/{token}/round-trips/0/panes/").status_code == 410
    assert client.get("/s/not-a-token/round-trips/0/panes/").status_code == 404
