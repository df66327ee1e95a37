"""A round trip's raw events, read whole wherever they were saved.

A round trip that streamed keeps its raw events in the batches saved as they arrived (``WireEventBatch``,
playground.chat.event_saver): its end no longer copies them into the row's ``wire_events`` and deletes the batches,
which wrote every event a second time on the ORM's thread, beside every stream of the process (docs/performance.md).
A row saved whole (imported, forked, recovered from a dead process, or saved before batches stayed) holds them in
its own column. Every reader takes both, in that order, through ``add_batched``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playground.conversations.models import RoundTrip, WireEventBatch
from providers.client.capture import raw_event_dicts

if TYPE_CHECKING:
    from collections.abc import Iterable


READ_MARK = "_batches_read"  # set on a row once its batches are added: a second call adds nothing twice


def add_batched(rows: Iterable[RoundTrip]) -> None:
    """Append to each row's ``wire_events`` (read already) the events its batches hold: one query for all rows."""
    by_pk = {row.pk: row for row in rows if row.pk is not None and not getattr(row, READ_MARK, False)}
    for row in by_pk.values():
        setattr(row, READ_MARK, True)
    if not by_pk:
        return
    batched: dict[int, list[list[Any]]] = {}
    batches = (
        WireEventBatch.objects.filter(round_trip_id__in=by_pk)
        .order_by("round_trip_id", "seq")
        .values_list("round_trip_id", "events")
    )
    for pk, events in batches:
        batched.setdefault(pk, []).extend(events)
    for pk, events in batched.items():
        row = by_pk[pk]
        row.wire_events = [*(row.wire_events or []), *raw_event_dicts(events)]
