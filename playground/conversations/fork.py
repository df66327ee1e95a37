"""Fork a conversation at one of its messages: a new conversation with the history up to there, ready to go on.

The fork keeps the original's tools, settings and endpoint, and the round trips that produced the copied history
(so its panes still show how that history came about). Forking at an assistant message that called tools keeps the
results of those calls too: the page shows them inside the message's cards, so that is what "this message" means
there, and the fork can go on at once instead of waiting on calls nobody will answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction

from playground.conversations.models import Conversation, Message, RoundTrip
from playground.conversations.present import _text, listed, message_numbers
from playground.conversations.raw_events import add_batched

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

LABEL_CHARS = 70


class ForkRefused(Exception):
    """The fork cannot be made; the message says why, for the page."""


def fork_points(conversation: Conversation) -> list[tuple[int, str]]:
    """The messages a fork can end at, as (position, label); tool results travel with the call that asked."""
    messages = list(conversation.messages.order_by("position"))
    numbers = message_numbers(messages)
    return [(m.position, f"{numbers[m.position]}. {m.role}: {_summary(m)}") for m in messages if listed(m)]


def _summary(message: Message) -> str:
    text = " ".join(_text(message.data.get("content")).split())
    calls = [c["function"]["name"] for c in message.data.get("tool_calls") or []]
    if calls:
        called = f"calls {', '.join(calls)}"
        text = f"{text} · {called}" if text else called
    text = text or "(empty)"
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def copied_messages(saved: list[Message], position: int) -> list[Message]:
    """The history a fork at ``position`` gets: every message up to it, and the results of the calls it made."""
    at = next((m for m in saved if m.position == position), None)
    if at is None:
        raise ForkRefused("Pick one of this conversation's messages to fork at.")
    kept = [m for m in saved if m.position <= position]
    asked = {call["id"] for call in at.data.get("tool_calls") or []}
    for message in (m for m in saved if m.position > position):
        if message.role != "tool" or message.data.get("tool_call_id") not in asked:
            break
        kept.append(message)
    return kept


def create_fork(original: Conversation, user: AbstractBaseUser, position: int) -> Conversation:
    saved = list(original.messages.order_by("position"))
    messages = copied_messages(saved, position)
    round_trips = list(original.round_trips.order_by("position"))
    used = {m.round_trip_id for m in messages if m.round_trip_id}
    last = max((rt.position for rt in round_trips if rt.pk in used), default=-1)
    add_batched(rt for rt in round_trips if rt.position <= last)  # a copy holds its events in its own column
    with transaction.atomic():
        fork = Conversation.objects.create(
            team=original.team,
            created_by=user,
            title=f"Fork: {original}"[:200],
            endpoint=original.endpoint,
            endpoint_name=original.endpoint_name,
            format=original.format,
            model=original.model,
            settings=original.settings,
            tools=original.tools,
            recorded_results=original.recorded_results,
            forked_from=original,
            forked_at=messages[-1].position,
        )
        # Round trips up to the last one the copied history came from, failed ones between included.
        copies = {rt.pk: _copy_round_trip(rt, fork) for rt in round_trips if rt.position <= last}
        rows = Message.objects.bulk_create(
            [
                Message(
                    conversation=fork,
                    position=m.position,
                    role=m.role,
                    data=m.data,
                    complete=m.complete,
                    meta=m.meta,
                    round_trip=copies.get(m.round_trip_id) if m.round_trip_id else None,
                )
                for m in messages
            ]
        )
        # When each was said, not when it was copied (auto_now_add sets it on insert; an update keeps it).
        for row, message in zip(rows, messages, strict=True):
            row.created_at = message.created_at
        Message.objects.bulk_update(rows, ["created_at"])
    return fork


def _copy_round_trip(rt: RoundTrip, fork: Conversation) -> RoundTrip:
    copy = RoundTrip.objects.create(
        conversation=fork,
        position=rt.position,
        format=rt.format,
        model=rt.model,
        request=rt.request,
        notes=rt.notes,
        wire_request=rt.wire_request,
        wire_events=rt.wire_events,
        status_code=rt.status_code,
        finish_reason=rt.finish_reason,
        raw_finish_reason=rt.raw_finish_reason,
        usage=rt.usage,
        error=rt.error,
        complete=rt.complete,
        ttfb_ms=rt.ttfb_ms,
        total_ms=rt.total_ms,
    )
    # When it happened, not when it was copied: the OpenTelemetry export reads these times.
    RoundTrip.objects.filter(pk=copy.pk).update(started_at=rt.started_at)
    return copy
