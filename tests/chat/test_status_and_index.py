"""A run's end saves its status and the conversation's search fields together: one statement, the row written once.

The fields (playground.conversations.search_index) are computed on the ORM's thread in the status's trip; a failure
to compute them is logged and the status is saved alone, as when they were a second write after it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import pytest
from asgiref.sync import sync_to_async
from django.core.cache import cache
from django.db import DatabaseError, connection
from django.test.utils import CaptureQueriesContext

from playground.chat.writes import _save_status
from playground.conversations.models import Conversation, Message
from playground.conversations.search_index import facets_key, index_stale, index_values
from tests.chat.test_turn_writes import say_hi

if TYPE_CHECKING:
    from collections.abc import Callable

    from django.contrib.auth.models import User

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


async def test_a_runs_end_saves_its_status_and_search_fields_in_one_statement(
    conversation: Conversation,
    alice: User,
    headers_for: Callable[[User], list[tuple[bytes, bytes]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frames, statements, _ = await say_hi(conversation, alice, headers_for, monkeypatch)
    assert frames[-1]["status"] == "done"
    updates = [sql for sql in statements if sql.startswith('UPDATE "playground_conversation"')]
    # The claim with the turn's settings, then how the run ended with what the list searches: the row (its search
    # text included) written twice in a turn, where the search fields used to be a third write of it.
    assert len(updates) == 2, updates
    assert '"search_text"' not in updates[0]
    assert all(f'"{name}"' in updates[1] for name in ("status", "run_owner", "search_text", "indexed_at")), updates
    saved = await Conversation.objects.aget(pk=conversation.pk)
    assert saved.status == "done" and saved.run_owner == ""
    answer = (await saved.messages.aget(role="assistant")).data["content"]
    assert saved.search_text.splitlines()[1:] == ["hi", answer], saved.search_text
    # Indexed as of its last change: the list's catch-up indexing (index_stale) finds nothing to do.
    assert saved.indexed_at is not None and saved.indexed_at >= saved.updated_at
    assert await sync_to_async(index_stale)(saved.team_id) == 0


def ended(conversation: Conversation) -> Conversation:
    conversation.status, conversation.status_message, conversation.run_owner = "done", "finished", ""
    return conversation


def test_the_search_fields_and_the_status_are_saved_together_and_the_filter_menus_forgotten(
    conversation: Conversation,
) -> None:
    cache.set(facets_key(conversation.team_id), {"models": ["old"]})
    with CaptureQueriesContext(connection) as queries:
        _save_status(ended(conversation), lambda: index_values(conversation, [("user", {"content": "find me"}, True)]))
    writes = [q["sql"] for q in queries if q["sql"].startswith("UPDATE")]
    assert len(writes) == 1 and '"status_message"' in writes[0] and '"search_text"' in writes[0], writes
    saved = Conversation.objects.get(pk=conversation.pk)
    assert (saved.status, saved.status_message) == ("done", "finished")
    assert "find me" in saved.search_text and saved.indexed_at is not None
    assert cache.get(facets_key(conversation.team_id)) is None, "a new status or model may be new to the menus"


def test_search_fields_that_cannot_be_computed_leave_the_status_saved_alone(
    conversation: Conversation, caplog: pytest.LogCaptureFixture
) -> None:
    cache.set(facets_key(conversation.team_id), {"models": ["kept"]})

    def broken() -> dict[str, Any]:
        raise ValueError("a message the index cannot read")

    with caplog.at_level(logging.ERROR, logger="playground.chat.writes"):
        _save_status(ended(conversation), broken)
    saved = Conversation.objects.get(pk=conversation.pk)
    assert (saved.status, saved.status_message) == ("done", "finished"), "the run's end stands"
    assert saved.indexed_at is None and saved.search_text == "", "nothing half-computed is saved"
    assert "its search fields could not be computed" in caplog.text and "a message the index cannot read" in caplog.text
    assert cache.get(facets_key(conversation.team_id)) == {"models": ["kept"]}
    # Left for the list's catch-up indexing, which runs when the list is next opened.
    Message.objects.create(conversation=conversation, position=0, role="user", data={"content": "late words"})
    assert index_stale(conversation.team_id) == 1
    assert "late words" in Conversation.objects.get(pk=conversation.pk).search_text


def test_a_conversation_gone_before_its_status_is_saved_is_an_error_as_before(conversation: Conversation) -> None:
    Conversation.objects.filter(pk=conversation.pk).delete()
    with pytest.raises(DatabaseError, match="did not affect any rows"):
        _save_status(ended(conversation), lambda: index_values(conversation, []))
