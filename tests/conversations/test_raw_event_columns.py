"""The raw-event columns are written with the compact encoder (providers.jsontext) and read back unchanged."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from django.db import connection

from playground.chat import event_saver
from playground.conversations.models import RoundTrip, WireEventBatch
from providers.jsontext import CompactEncoder

if TYPE_CHECKING:
    from playground.conversations.models import Conversation

pytestmark = pytest.mark.django_db

# Written by orjson (text outside ASCII stays UTF-8), and, with an integer beyond 64 bits, by json.
EVENTS: list[Any] = [
    {"t_ms": 1.5, "event": None, "data": '{"content":"Zürich 🌧"}'},
    {"t_ms": 2.0, "event": "ping", "data": "[DONE]"},
]
BIG = [*EVENTS, {"t_ms": 3.0, "event": None, "data": "x", "extra": 10**30}]


def _stored_text(model: type[Any], column: str, pk: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM {model._meta.db_table} WHERE id = %s", [pk])
        return str(cursor.fetchone()[0])


def test_both_columns_are_written_by_the_compact_encoder() -> None:
    assert RoundTrip._meta.get_field("wire_events").encoder is CompactEncoder  # type: ignore[union-attr]
    assert WireEventBatch._meta.get_field("events").encoder is CompactEncoder  # type: ignore[union-attr]


@pytest.mark.parametrize("events", [EVENTS, BIG], ids=["orjson", "json"])
def test_a_round_trips_events_read_back_as_saved(saved: Conversation, events: list[Any]) -> None:
    row = RoundTrip.objects.create(conversation=saved, position=99, format="openai-chat", wire_events=events)
    assert RoundTrip.objects.get(pk=row.pk).wire_events == events
    if connection.vendor == "sqlite" and events is EVENTS:  # PostgreSQL keeps jsonb in a form of its own
        text = _stored_text(RoundTrip, "wire_events", row.pk)
        assert "Zürich 🌧" in text and '"t_ms":1.5,' in text, text  # UTF-8 and compact: orjson wrote it


@pytest.mark.parametrize("events", [EVENTS, BIG], ids=["orjson", "json"])
def test_a_batch_of_events_reads_back_as_saved(saved: Conversation, events: list[Any]) -> None:
    row = RoundTrip.objects.create(conversation=saved, position=99, format="openai-chat")
    triples = [[e["t_ms"], e["data"], e.get("extra", e["event"])] for e in events]
    event_saver.INSERT_BATCHES.run([(row.pk, 0, triples)])  # as the saver writes them
    batch = WireEventBatch.objects.get(round_trip=row)
    assert batch.events == triples
    if connection.vendor == "sqlite" and events is EVENTS:
        assert "Zürich 🌧" in _stored_text(WireEventBatch, "events", batch.pk)
