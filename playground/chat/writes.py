"""What a turn writes, on the ORM's thread: its messages, its round trips' rows and records, the run's status.

Every turn writes these, so their statements are built once (playground.prepared); ``hooks.ConversationHooks``
sends each write here in one trip with whatever else its step needs.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, NamedTuple

from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from playground.chat.event_saver import INSERT_BATCHES, Batch, Unsaved
from playground.conversations.models import Conversation, Message, RoundTrip, WireEventBatch
from playground.conversations.search_index import INDEX_FIELDS, forget_facets
from playground.prepared import PreparedCreate, PreparedDelete, PreparedUpdate
from providers.client import RoundTrip as ClientRoundTrip
from providers.client.capture import raw_event_dicts
from providers.types import Message as InternalMessage

if TYPE_CHECKING:
    from collections.abc import Callable

# What a round trip's end adds to the row inserted when its request went (``_fill_round_trip``); its raw events
# are in the batches saved as it streamed (event_saver), so the row only counts them.
ENDED_FIELDS = (
    "notes", "status_code", "finish_reason", "raw_finish_reason", "usage", "error", "complete", "ttfb_ms",
    "total_ms", "event_count",
)  # fmt: skip
STATUS_FIELDS = ("status", "status_message", "run_owner", "updated_at")

logger = logging.getLogger(__name__)


def save_message(
    conversation: Conversation,
    message: InternalMessage,
    *,
    complete: bool = True,
    round_trip: RoundTrip | None = None,
    meta: dict[str, Any] | None = None,
    position: int | None = None,
) -> Message:
    """The message after the last one saved; ``position``: where the caller knows it goes (the run that holds the
    conversation counts its own), which saves reading the last one first. Taken already, it is read after all."""
    fields = {"role": message["role"], "data": dict(message), "complete": complete, "round_trip": round_trip}
    fields["meta"] = meta or {}
    if position is not None:
        try:
            return _create_message(conversation=conversation, position=position, **fields)
        except IntegrityError:
            logger.warning("conversation %s: position %s taken; appending after the last", conversation.pk, position)
    last = conversation.messages.aggregate(last=Max("position"))
    position = 0 if last["last"] is None else last["last"] + 1
    return _create_message(conversation=conversation, position=position, **fields)


def _insert_round_trip(row: RoundTrip) -> None:
    row.measure()  # as RoundTrip.save does: the request's JSON text is measured here, not on the event loop
    _CREATE_ROUND_TRIP.insert(row)


def _create_message(**values: Any) -> Message:
    message = Message(**values)
    _CREATE_MESSAGE.insert(message)
    return message


# A turn's new rows, a round trip's end and a run's status: every turn writes them, so they are built once
# (playground.prepared).
_END = PreparedUpdate(RoundTrip, ENDED_FIELDS, lambda pk: RoundTrip.objects.filter(pk=pk), int)
_WITH_EVENTS = (*ENDED_FIELDS, "wire_events")
_END_WITH_EVENTS = PreparedUpdate(RoundTrip, _WITH_EVENTS, lambda pk: RoundTrip.objects.filter(pk=pk), int)
_DROP_BATCHES = PreparedDelete(WireEventBatch, lambda rt: WireEventBatch.objects.filter(round_trip_id=rt), int)
_STATUS = PreparedUpdate(Conversation, STATUS_FIELDS, lambda pk: Conversation.objects.filter(pk=pk), int)
_STATUS_AND_INDEX = PreparedUpdate(
    Conversation, (*STATUS_FIELDS, *INDEX_FIELDS), lambda pk: Conversation.objects.filter(pk=pk), int
)
_CREATE_MESSAGE, _CREATE_ROUND_TRIP = PreparedCreate(Message), PreparedCreate(RoundTrip)
NOT_SAVED = "Save with update_fields did not affect any rows."  # the row is gone: as Model.save says it


def _save_ended(row: RoundTrip, inserted: bool, unsaved: Unsaved | None) -> None:
    """A round trip's whole record, in one trip and one transaction. ``inserted``: the row was inserted as its
    request went (only what came back is written), else it is saved whole. ``unsaved``: the raw events no batch holds
    yet (``EventSaver.close``), saved beside the others; None: every event goes in the row's own column instead and
    its batches are deleted (a row with no saver, or one whose saver missed an event)."""
    assert inserted or unsaved is None, "a saver's batches belong to a row inserted as its request went"
    with transaction.atomic():
        if not inserted:
            row.save()
        else:
            if unsaved is not None:
                _save_unsaved(unsaved)
            end, fields = (_END, ENDED_FIELDS) if unsaved is not None else (_END_WITH_EVENTS, _WITH_EVENTS)
            if not end.run({name: getattr(row, name) for name in fields}, row.pk):
                raise DatabaseError(NOT_SAVED)
        if unsaved is None:
            _DROP_BATCHES.run(row.pk)


def _save_unsaved(unsaved: Unsaved) -> None:
    for batch in unsaved.failed:  # rare: a write failed while the round trip streamed
        _insert_if_free(batch)
    if unsaved.rest is not None:
        INSERT_BATCHES.run([unsaved.rest])


def _insert_if_free(batch: Batch) -> None:
    """A failed batch, unless its number is taken: its write landed after all (the commit's answer was lost)."""
    try:
        with transaction.atomic():  # a savepoint: a conflict here must not undo the rest of the record
            INSERT_BATCHES.run([batch])
    except IntegrityError:
        logger.info("round trip %s: batch %s was saved after all", batch[0], batch[1])


class _Record(NamedTuple):
    """A round trip's whole record to save: ``_save_ended``'s arguments."""

    row: RoundTrip
    inserted: bool
    unsaved: Unsaved | None


class _MessageNotSaved(Exception):
    """The round trip's record was saved, its message was not (``cause`` says why)."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _save_ended_and_message(
    record: _Record, conversation: Conversation, message: InternalMessage, **kwargs: Any
) -> Message:
    """A round trip's whole record, then the message it brought (``save_message``'s arguments): one trip. A failure
    after the record is saved is a ``_MessageNotSaved``, so the caller still tells the pages of the record."""
    _save_ended(*record)
    try:
        return save_message(conversation, message, **kwargs)
    except Exception as exc:
        raise _MessageNotSaved(exc) from exc


def _save_status(conversation: Conversation, index: Callable[[], dict[str, Any]] | None) -> None:
    """The run's status; ``index``: the conversation's search fields, computed here and saved with the status in one
    statement (the row, its search text included, written once, not twice). Computing them may fail: that is logged,
    and the status is saved alone."""
    conversation.updated_at = timezone.now()  # auto_now: what save() would set; before the index's indexed_at
    values = {name: getattr(conversation, name) for name in STATUS_FIELDS}
    indexed = _computed_index(conversation, index)
    statement = _STATUS if indexed is None else _STATUS_AND_INDEX
    if not statement.run({**values, **(indexed or {})}, conversation.pk):
        raise DatabaseError(NOT_SAVED)
    if indexed is not None:
        forget_facets(conversation.team_id)


def _computed_index(conversation: Conversation, index: Callable[[], dict[str, Any]] | None) -> dict[str, Any] | None:
    if index is None:
        return None
    try:
        return index()
    except Exception:
        logger.exception("conversation %s: its search fields could not be computed", conversation.pk)
        return None


def _fill_round_trip(row: RoundTrip, round_trip: ClientRoundTrip, *, batched: bool) -> None:
    """``batched``: the row's raw events are in its batches; it only counts them (playground.conversations.raw_events
    reads them back)."""
    result = round_trip.result
    row.request = dict(round_trip.request)
    row.notes = round_trip.notes
    row.wire_request = None if round_trip.wire_request is None else round_trip.wire_request.to_dict()
    row.wire_events = [] if batched else raw_event_dicts(round_trip.raw_events)
    row.event_count = len(round_trip.raw_events)
    row.status_code = round_trip.status
    row.finish_reason = result.finish_reason or ""
    row.raw_finish_reason = result.raw_finish_reason or ""
    row.usage = dict(result.usage) if result.usage else None
    row.error = None if result.error is None else result.error.to_dict()
    row.complete = result.complete
    row.ttfb_ms, row.total_ms = round_trip.ttfb_ms, round_trip.total_ms


def summary(row: RoundTrip) -> dict[str, Any]:
    return {
        "status_code": row.status_code,
        "finish_reason": row.finish_reason,
        "raw_finish_reason": row.raw_finish_reason,
        "usage": row.usage,
        "error": row.error,
        "complete": row.complete,
        "ttfb_ms": row.ttfb_ms,
        "total_ms": row.total_ms,
    }
