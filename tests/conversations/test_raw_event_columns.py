"""The raw-event columns are written with the compact encoder (providers.jsontext) and read back unchanged."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from django.db import connection

from playground.conversations.models import RoundTrip, WireEventBatch
from providers.jsontext import dumps

if TYPE_CHECKING:
    from playground.conversations.models import Conversation

pytestmark = pytest.mark.django_db

# Text outside ASCII (written as UTF-8 by orjson) and an integer beyond 64 bits (written by json): both paths.
EVENTS: list[Any] = [
    {"t_ms": 1.5, "event": None, "data": '{"content":"Zürich 🌧"}'},
    {"t_ms": 2.0, "event": "ping", "data": "[DONE]", "extra": 10**30},
]


def _stored_text(model: type[Any], column: str, pk: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM {model._meta.db_table} WHERE id = %s", [pk])
        return str(cursor.fetchone()[0])


def test_a_round_trips_events_read_back_as_saved(saved: Conversation) -> None:
    row = RoundTrip.objects.create(conversation=saved, position=99, format="openai-chat", wire_events=EVENTS)
    assert RoundTrip.objects.get(pk=row.pk).wire_events == EVENTS
    if connection.vendor == "sqlite":  # PostgreSQL keeps jsonb in its own form, so the text is SQLite's alone
        assert _stored_text(RoundTrip, "wire_events", row.pk) == dumps(EVENTS)


def test_a_batch_of_events_reads_back_as_saved(saved: Conversation) -> None:
    row = RoundTrip.objects.create(conversation=saved, position=99, format="openai-chat")
    triples = [[e["t_ms"], e["data"], e["event"]] for e in EVENTS] + [[3.0, "x", 10**30]]
    WireEventBatch.objects.bulk_create([WireEventBatch(round_trip=row, seq=0, events=triples)])  # as the saver does
    batch = WireEventBatch.objects.get(round_trip=row)
    assert batch.events == triples
    if connection.vendor == "sqlite":
        assert _stored_text(WireEventBatch, "events", batch.pk) == dumps(triples)
