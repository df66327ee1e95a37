"""What a saved conversation holds, read as the app's readers read it."""

from __future__ import annotations

from playground.conversations.models import Conversation, RoundTrip
from playground.conversations.raw_events import add_batched


def saved_round_trips(conversation: Conversation) -> list[RoundTrip]:
    """The round trips in order, each with its raw events whole (its column, then its batches)."""
    rows = list(conversation.round_trips.order_by("position"))
    add_batched(rows)
    return rows
