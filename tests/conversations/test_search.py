"""The Conversations list: search over titles, messages, tool names and arguments, filters, keyset pages.

Runs on SQLite (substring search) and, in the services pass, on PostgreSQL (full text over the GIN index).
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from playground.conversations.models import Conversation, Message, RoundTrip
from playground.conversations.search_index import index_conversation
from playground.review.models import Label, Verdict

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db

WEATHER = {
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
}


def make(
    team: Team, user: User, title: str, *, call: tuple[str, str] | None = None, text: str = "", **fields: Any
) -> Conversation:
    conversation = Conversation.objects.create(
        team=team,
        created_by=user,
        title=title,
        tools=[WEATHER],
        **{"endpoint_name": "Simulated OpenAI", "format": "openai-chat", "model": "sim-1", **fields},
    )
    Message.objects.create(
        conversation=conversation, position=0, role="user", data={"role": "user", "content": text or title}
    )
    if call is not None:
        tool_call = {"id": "c1", "type": "function", "function": {"name": call[0], "arguments": call[1]}}
        Message.objects.create(
            conversation=conversation,
            position=1,
            role="assistant",
            data={"role": "assistant", "content": None, "tool_calls": [tool_call]},
        )
    index_conversation(conversation)
    return conversation


def listing(client: Client, user: User, team: Team, **params: str) -> str:
    client.force_login(user)
    client.post(reverse("team-switch"), {"team": team.pk})
    return client.get(reverse("conversations"), params).content.decode()


def titles(html: str) -> list[str]:
    import re

    return re.findall(r'data-testid="conversation-row" data-conversation="(\d+)"', html)


def test_the_index_holds_argument_values_called_tools_and_failures(team: Team, alice: User) -> None:
    conversation = make(team, alice, "Trip", call=("get_weather", '{"city": "Reykjavik", "extra": 1}'))
    RoundTrip.objects.create(conversation=conversation, position=0, format="openai-chat", error={"type": "timeout"})
    index_conversation(conversation)
    conversation.refresh_from_db()
    assert "Reykjavik" in conversation.search_text and "get_weather" in conversation.search_text
    assert conversation.called_tools == " get_weather "
    assert conversation.invalid_calls == 1, "additionalProperties: false refuses extra"
    assert conversation.has_error and conversation.indexed_at is not None
    # The same call in a message that broke off (a cut stream) never ran: it is not counted invalid.
    conversation.messages.filter(role="assistant").update(complete=False)
    index_conversation(conversation)
    conversation.refresh_from_db()
    assert conversation.invalid_calls == 0 and conversation.called_tools == " get_weather "


def test_a_stop_is_not_counted_as_an_error(team: Team, alice: User) -> None:
    """A round trip cut by the person's Stop keeps its "cancelled" error, but the list does not call it failed."""
    conversation = make(team, alice, "Stopped", text="hi")
    conversation.status = "stopped"
    conversation.save()
    cancelled = {"type": "cancelled", "message": "Stopped by the user."}
    RoundTrip.objects.create(conversation=conversation, position=0, format="openai-chat", error=cancelled)
    index_conversation(conversation)
    conversation.refresh_from_db()
    assert not conversation.has_error
    RoundTrip.objects.create(conversation=conversation, position=1, format="openai-chat", error={"type": "timeout"})
    index_conversation(conversation)
    conversation.refresh_from_db()
    assert conversation.has_error


def test_search_finds_a_tool_argument_value_with_a_marked_snippet(client: Client, alice: User, team: Team) -> None:
    wanted = make(team, alice, "Holiday plans", call=("get_weather", '{"city": "Reykjavik"}'))
    make(team, alice, "Something else", text="nothing about weather here")
    html = listing(client, alice, team, q="reykjavik")
    assert titles(html) == [str(wanted.pk)]
    assert "<mark>Reykjavik</mark>" in html, "the matching word is marked in the snippet"
    assert connection.vendor != "postgresql" or "<mark>" in html


def test_a_snippet_cannot_inject_markup(client: Client, alice: User, team: Team) -> None:
    make(team, alice, "Markup", text='<img src=x onerror="alert(1)"> needle')
    html = listing(client, alice, team, q="needle")
    assert "<img src=x" not in html, "the text's markup is never rendered as markup"
    assert "<mark>needle</mark>" in html


def test_filters_narrow_the_list(client: Client, alice: User, bob: User, team: Team) -> None:
    valid = make(team, alice, "Valid call", call=("get_weather", '{"city": "Oslo"}'), status="done")
    invalid = make(team, bob, "Invalid call", call=("get_weather", '{"town": "Oslo"}'), status="error")
    plain = make(team, alice, "No tools", status="done", model="sim-mistral")
    label = Label.objects.create(team=team, name="regression")
    label.conversations.add(invalid)
    Verdict.objects.create(conversation=valid, call_id="c1", author=alice, kind=Verdict.Kind.RIGHT)
    Verdict.objects.create(conversation=invalid, call_id="c1", author=bob, kind=Verdict.Kind.WRONG_ARGUMENTS)
    cases = {
        "tool": ({"tool": "get_weather"}, {valid, invalid}),
        "invalid": ({"invalid": "1"}, {invalid}),
        "errors": ({"errors": "1"}, {invalid}),
        "status": ({"status": "done"}, {valid, plain}),
        "author": ({"author": "bob"}, {invalid}),
        "model": ({"model": "sim-mistral"}, {plain}),
        "label": ({"label": "regression"}, {invalid}),
        "search and filter": ({"q": "call", "author": "alice"}, {valid}),
        "judged at all": ({"verdict": "any"}, {valid, invalid}),
        "judged wrong arguments": ({"verdict": "wrong_arguments"}, {invalid}),
    }
    for name, (params, expected) in cases.items():
        assert set(titles(listing(client, alice, team, **params))) == {str(c.pk) for c in expected}, name


def test_date_range_filters_by_creation_day(client: Client, alice: User, team: Team) -> None:
    old = make(team, alice, "Old one")
    Conversation.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=30))
    new = make(team, alice, "New one")
    since = (timezone.now() - timedelta(days=1)).date().isoformat()
    assert titles(listing(client, alice, team, since=since)) == [str(new.pk)]
    until = (timezone.now() - timedelta(days=10)).date().isoformat()
    assert titles(listing(client, alice, team, until=until)) == [str(old.pk)]
    assert set(titles(listing(client, alice, team, since="not-a-date"))) == {str(old.pk), str(new.pk)}


def test_keyset_pages_cover_every_row_once_and_keep_the_query(client: Client, alice: User, team: Team) -> None:
    made = [make(team, alice, f"Weather question {i}", text="weather") for i in range(120)]
    seen: list[str] = []
    params: dict[str, str] = {"q": "weather"}
    for _ in range(5):
        html = listing(client, alice, team, **params)
        seen += titles(html)
        if 'data-testid="next-page"' not in html:
            break
        import re

        next_url = re.search(r'data-testid="next-page"\s+hx-get="\?([^"]+)"', html)
        assert next_url is not None and "q=weather" in next_url.group(1), "the next page keeps the search"
        params = dict(pair.split("=", 1) for pair in next_url.group(1).replace("&amp;", "&").split("&"))
        params = {k: v.replace("%3A", ":").replace("%2B", "+") for k, v in params.items()}
    assert sorted(seen) == sorted(str(c.pk) for c in made), "every conversation once, none twice"
    assert len(seen) == 120


def test_an_edited_cursor_starts_from_the_top(client: Client, alice: User, team: Team) -> None:
    first = make(team, alice, "Only one")
    assert titles(listing(client, alice, team, after="garbage_x")) == [str(first.pk)]


def test_other_teams_conversations_never_show(
    client: Client, alice: User, team: Team, django_user_model: type[User]
) -> None:
    from playground.teams import access

    mallory = django_user_model.objects.create_user("mallory", password="x")
    elsewhere = access.create_team(name="Elsewhere", owner=mallory)
    make(elsewhere, mallory, "Secret plans", text="reykjavik")
    assert titles(listing(client, alice, team, q="reykjavik")) == []


def test_conversations_saved_before_the_index_are_indexed_when_listed(client: Client, alice: User, team: Team) -> None:
    conversation = Conversation.objects.create(team=team, created_by=alice, title="From before")
    Message.objects.create(
        conversation=conversation, position=0, role="user", data={"role": "user", "content": "legacy text"}
    )
    assert conversation.indexed_at is None
    assert titles(listing(client, alice, team, q="legacy")) == [str(conversation.pk)]


def test_the_search_engine_matches_the_database(alice: User, team: Team) -> None:
    """PostgreSQL: full text over the GIN index (the plan reads it); SQLite: substring matching, no index."""
    from playground.conversations.search import ListQuery, search_conversations

    make(team, alice, "Indexed", call=("get_weather", '{"city": "Reykjavik"}'))
    page = search_conversations(team.pk, ListQuery(q="reykjavik"))
    assert len(page.rows) == 1
    if connection.vendor != "postgresql":
        assert not page.full_text
        return
    assert page.full_text
    with CaptureQueriesContext(connection) as queries:
        search_conversations(team.pk, ListQuery(q="reykjavik"))
    searched = [q["sql"] for q in queries.captured_queries if "websearch_to_tsquery" in q["sql"]]
    # The match must be written `vector @@ query` (the form the GIN index answers), not only as a rank filter.
    assert searched and all("@@" in sql for sql in searched)
    # The vector is built only to match (in WHERE), never selected: that would build it again for every row shown.
    assert all('AS "document"' not in sql for sql in searched)
    # Only the verdict count's subquery (its tables aliased U0…) groups: the page's own query never aggregates.
    assert not any("GROUP BY" in sql.replace("GROUP BY U0.", "") for sql in searched)
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE indexname = 'conversation_search_fts'")
        assert cursor.fetchone() is not None
        cursor.execute("SET enable_seqscan = off")
        cursor.execute(
            "EXPLAIN SELECT id FROM playground_conversation WHERE to_tsvector('simple'::regconfig, "
            "COALESCE(search_text, '')) @@ websearch_to_tsquery('simple'::regconfig, 'reykjavik')"
        )
        plan = " ".join(row[0] for row in cursor.fetchall())
        cursor.execute("SET enable_seqscan = on")
    assert "conversation_search_fts" in plan


def test_the_filter_menus_are_read_once_and_follow_each_new_index(alice: User, team: Team) -> None:
    from playground.conversations.search import facets

    make(team, alice, "first", model="sim-1")
    assert facets(team.pk)["model"] == ["sim-1"]
    with CaptureQueriesContext(connection) as queries:
        facets(team.pk)
    assert len(queries) == 1, "only the labels are read again: the rest is kept"
    make(team, alice, "second", model="sim-2")  # indexing it makes the menus read again
    assert facets(team.pk)["model"] == ["sim-1", "sim-2"]
    label = Label.objects.create(team=team, name="regression")
    assert facets(team.pk)["label"] == [], "a label on no conversation is not a filter"
    label.conversations.add(Conversation.objects.get(title="second"))
    assert facets(team.pk)["label"] == ["regression"], "labels are read each time"


def test_the_stale_rows_are_found_by_the_same_condition_as_their_index(alice: User, team: Team) -> None:
    from playground.conversations.search_index import index_stale

    fresh = make(team, alice, "fresh")
    edited = make(team, alice, "edited")
    Conversation.objects.filter(pk=edited.pk).update(indexed_at=F("updated_at") - timedelta(seconds=5))
    Conversation.objects.create(team=team, created_by=alice, title="draft")  # no message: nothing to index
    with CaptureQueriesContext(connection) as queries:
        assert index_stale(team.pk) == 1
    stale_query = queries[0]["sql"]
    assert '"indexed_at" IS NULL OR "indexed_at" < ("playground_conversation"."updated_at")' in stale_query.replace(
        '"playground_conversation"."indexed_at"', '"indexed_at"'
    )
    assert "DISTINCT" not in stale_query.upper(), "an EXISTS, not a join the database must de-duplicate"
    fresh.refresh_from_db()
    assert index_stale(team.pk) == 0 and fresh.indexed_at is not None


def test_a_snippet_marks_the_words_not_the_search_operators(client: Client, alice: User, team: Team) -> None:
    kept = make(team, alice, "Refund order", text="please refund the order for Oslo")
    make(team, alice, "Refund cancelled", text="refund then cancel the trip")
    html = listing(client, alice, team, q="refund -cancel")
    assert titles(html) == [str(kept.pk)], "-word leaves rows out on both engines"
    assert "<mark>refund</mark>" in html.lower() and "<mark>-cancel</mark>" not in html.lower()


def test_the_list_says_when_each_conversation_changed_in_words(client: Client, alice: User, team: Team) -> None:
    fresh = make(team, alice, "Fresh")
    older = make(team, alice, "Older")
    Conversation.objects.filter(pk=older.pk).update(updated_at=timezone.now() - timedelta(hours=3, minutes=5))
    html = listing(client, alice, team)
    assert titles(html) == [str(fresh.pk), str(older.pk)]
    assert "just now" in html, "a conversation changed in the last minute is not '0 minutes ago'"
    assert "0\xa0minutes ago" not in html and "0 minutes ago" not in html
    assert "3\xa0hours, 5\xa0minutes ago" in html


def test_a_comparisons_conversations_say_their_part_and_its_repeats_can_be_hidden(
    client: Client, alice: User, team: Team
) -> None:
    """Compare's columns and repeats are ordinary conversations with one title: each row says which column and run
    it is, and links to its comparison; the filter keeps each column's first run only."""
    from playground.compare.models import Comparison, ComparisonRun

    chat = make(team, alice, "A chat of its own")
    compared = Comparison.objects.create(team=team, created_by=alice, title="Weather", repeat=2)
    runs = {}
    for position, repeat in [(0, 0), (0, 1), (1, 0), (1, 1)]:
        runs[position, repeat] = run = make(team, alice, "Weather")
        ComparisonRun.objects.create(comparison=compared, position=position, repeat=repeat, conversation=run)
    replayed = Comparison.objects.create(team=team, created_by=alice, title="Replay of chat", kind="replay")
    replay = make(team, alice, "Replay: A chat of its own")
    ComparisonRun.objects.create(comparison=replayed, position=0, conversation=chat)
    ComparisonRun.objects.create(comparison=replayed, position=1, conversation=replay)

    html = listing(client, alice, team)
    compare_url = reverse("comparison", args=[compared.pk])
    assert f'href="{compare_url}" data-testid="conversation-origin"' in html
    assert "compare · column 2 · run 2 of 2" in html
    assert "compare · column 1 · run 1 of 2" in html
    assert f'href="{reverse("comparison", args=[replayed.pk])}" data-testid="conversation-origin"' in html
    assert ">replayed</a>" in html and ">replay</a>" in html
    assert len(titles(html)) == 6

    kept = set(titles(listing(client, alice, team, repeats="hide")))
    assert kept == {str(c.pk) for c in (chat, replay, runs[0, 0], runs[1, 0])}


def test_a_snippet_leaves_the_title_out_and_keeps_its_parts_apart(client: Client, alice: User, team: Team) -> None:
    # The title (also the first message) came twice, then calls, arguments and results ran together as one line.
    titled = make(team, alice, "Weather in Paris and Tokyo?", text="Weather in Paris and Tokyo?")
    called = make(team, alice, "Trip", call=("get_weather", '{"city": "Tokyo"}'))
    html = listing(client, alice, team, q="tokyo")
    rows = dict(re.findall(r'data-conversation="(\d+)">(.*?)</tr>', html, re.S))
    assert 'data-testid="search-snippet"' not in rows[str(titled.pk)], "its only match is the title, shown above it"
    snippet = re.search(r'data-testid="search-snippet">(.*?)</div>', rows[str(called.pk)], re.S)
    assert snippet is not None and snippet[1].strip() == "get_weather · city <mark>Tokyo</mark>"


def test_a_from_date_after_the_to_date_is_pointed_out(client: Client, alice: User, team: Team) -> None:
    make(team, alice, "Anything")
    html = listing(client, alice, team, since="2026-12-07", until="2026-11-01")
    assert "No conversation matches these filters" in html
    assert "The From date (2026-12-07) is after the To date (2026-11-01)" in html
    assert 'data-testid="dates-crossed"' not in listing(client, alice, team, since="2026-11-01", until="2026-12-07")


def test_a_snippet_cut_from_the_middle_starts_at_a_word(client: Client, alice: User, team: Team) -> None:
    text = " ".join(f"word{n:03d}" for n in range(60)) + " needle after"
    make(team, alice, "Long", text=text)
    snippet = re.search(r'data-testid="search-snippet">(.*?)</div>', listing(client, alice, team, q="needle"), re.S)
    assert snippet is not None
    first = snippet[1].strip().removeprefix("…").split()[0]
    assert re.fullmatch(r"word\d{3}", first), f"{first!r} is a piece of a word"
