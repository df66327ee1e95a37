"""Runs whose process died: saved as interrupted with everything that had arrived, and shown so on every page.

The round trip that was streaming gets its saved raw-event batches back as its wire events, and its partial answer
rebuilt from them (``providers.client.replay``) as an incomplete message; the conversation ends ``interrupted``
with its open questions still answerable and a Retry from here button (docs/deploy.md).
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models import Max

from playground.chat.registry import BATCH_TYPE
from playground.conversations.broadcast import conversation_group
from playground.conversations.models import BUSY_STATUSES, Conversation, Message, RoundTrip, WireEventBatch
from providers.client.capture import raw_event_dicts
from providers.client.replay import replay

INTERRUPTED_MESSAGE = (
    "The server process running this conversation stopped (a restart or a crash). Everything that had arrived is "
    "saved: retry from here, or answer the open questions."
)
ROUND_TRIP_ERROR = {
    "type": "interrupted",
    "message": "The server process stopped while this round trip was streaming; what had arrived is kept.",
    "status": None,
    "retryable": True,
    "retry_after": None,
}

logger = logging.getLogger(__name__)


def interrupt_runs_of(process_id: str, *, only: list[int] | None = None) -> list[int]:
    """Mark every run the process had claimed (or those of ``only``) as interrupted; returns the conversation ids."""
    claimed = Conversation.objects.filter(run_owner=process_id, status__in=BUSY_STATUSES)
    if only is not None:
        claimed = claimed.filter(pk__in=only)
    ids = list(claimed.values_list("pk", flat=True))
    done = [pk for pk in ids if interrupt(pk, owner=process_id)]
    for pk in done:
        _announce(pk)
    return done


def interrupt(conversation_id: int, *, owner: str) -> bool:
    """One conversation, if its run is still the dead process's (another process may have recovered it first)."""
    with transaction.atomic():
        claimed = Conversation.objects.filter(pk=conversation_id, run_owner=owner, status__in=BUSY_STATUSES).update(
            status=Conversation.Status.INTERRUPTED, status_message=INTERRUPTED_MESSAGE, run_owner=""
        )
        if not claimed:
            return False
        for round_trip in RoundTrip.objects.filter(conversation_id=conversation_id, total_ms__isnull=True):
            _close_round_trip(round_trip)
    logger.warning("conversation %s was interrupted: process %s is gone", conversation_id, owner)
    return True


def _close_round_trip(round_trip: RoundTrip) -> None:
    """The streaming round trip as far as it got: its raw events, and its partial answer as an incomplete message."""
    batches = list(WireEventBatch.objects.filter(round_trip=round_trip).order_by("seq"))
    events = [event for batch in batches for event in batch.events]
    round_trip.wire_events = [*round_trip.wire_events, *raw_event_dicts(events)]
    result = replay(round_trip.format, [(d, e) for _, d, e in events], streamed=bool(round_trip.request.get("stream")))
    round_trip.error, round_trip.complete = ROUND_TRIP_ERROR, False
    # Cut off by the process's end, as a failed round trip is by its error: not "tool_calls" for calls half sent.
    round_trip.finish_reason = (result.finish_reason or "") if result.complete else "error"
    round_trip.raw_finish_reason = result.raw_finish_reason or ""
    round_trip.usage = dict(result.usage) if result.usage else None
    round_trip.save()
    # Those read, not the query again: a process taken for dead that still writes (stalled past its heartbeats)
    # keeps a batch it adds meanwhile, which readers then take after the row's own.
    WireEventBatch.objects.filter(pk__in=[batch.pk for batch in batches]).delete()
    message = result.message
    if (message.get("content") or message.get("tool_calls")) and not round_trip.messages.exists():
        last = Message.objects.filter(conversation_id=round_trip.conversation_id).aggregate(last=Max("position"))
        Message.objects.create(
            conversation_id=round_trip.conversation_id,
            position=0 if last["last"] is None else last["last"] + 1,
            role="assistant",
            data=dict(message),
            complete=False,
            round_trip=round_trip,
        )


def _announce(conversation_id: int) -> None:
    """Tell every open page, on any process, that the run ended interrupted (they then fetch the saved views)."""
    layer = get_channel_layer()
    if layer is None:
        return
    status = Conversation.Status.INTERRUPTED
    frames = [
        {"type": "status", "status": status, "label": status.label, "message": INTERRUPTED_MESSAGE},
        {"type": "run.end", "status": status, "message": INTERRUPTED_MESSAGE},
    ]
    message = {"type": BATCH_TYPE, "run_id": f"recovered-{conversation_id}", "frames": frames}
    try:
        async_to_sync(layer.group_send)(conversation_group(conversation_id), message)
    except Exception:
        logger.exception("could not tell the pages of conversation %s that its run was interrupted", conversation_id)
