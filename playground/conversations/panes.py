"""Round trip panes for a page: whole for the newest round trips, folded (fetched on demand) for the rest.

Every round trip's request holds the whole history so far, so a long agent loop's requests grow with the square of
its round trips (100 round trips: 25 MB of request JSON). The page therefore sends whole only the newest round trips
that fit in ``PANE_BUDGET_CHARS``, and a folded head with its metrics, error and notes for the others; the sizes
and event counts are measured when a round trip is saved, so a folded round trip's big columns are never read.
Raw events over ``INLINE_EVENTS`` are fetched on demand even inside a whole pane, and the copy-as-curl/Python
snippets always are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from django.db.models import BooleanField as BooleanOutput
from django.db.models import ExpressionWrapper, Q, QuerySet, prefetch_related_objects
from django.db.models.fields.json import KeyTransform
from django.urls import reverse

from playground.conversations.models import RoundTrip
from playground.conversations.raw_events import add_batched
from providers.client.capture import SECRET_HEADERS

if TYPE_CHECKING:
    from playground.conversations.models import Conversation

# A round trip with more raw events than this shows them on demand: a long conversation opens without reading (or
# sending) tens of thousands of events nobody asked to see yet.
INLINE_EVENTS = 300
# The request JSON the page sends whole, newest round trips first: about 1 MB of HTML once pretty-printed twice.
PANE_BUDGET_CHARS = 250_000
SNIPPETS = ("curl", "python")


@dataclass(frozen=True)
class PaneLinks:
    """Where a page's round trips fetch what they do not send with it: a conversation's own routes, or a share's."""

    conversation_id: int
    share_token: str = ""

    def url(self, position: int, part: str) -> str:
        # Reversed once per part and page: a long conversation asks for hundreds of these.
        return self._patterns[part].replace(f"/{_SLOT}/", f"/{position}/", 1)

    @cached_property
    def _patterns(self) -> dict[str, str]:
        return {part: self._reverse(part) for part in ("panes", "events", *SNIPPETS)}

    def _reverse(self, part: str) -> str:
        if self.share_token:
            return reverse("shared-round-trip", args=[self.share_token, _SLOT, part])
        if part in ("events", "panes"):
            return reverse(
                "chat-wire-events" if part == "events" else "chat-round-trip", args=[self.conversation_id, _SLOT]
            )
        return reverse("chat-round-trip-copy", args=[self.conversation_id, _SLOT, part])


_SLOT = 987654321  # a position no conversation reaches, replaced in each round trip's URLs


def light_round_trips(conversation: Conversation) -> QuerySet[RoundTrip]:
    """The round trips without their big columns; ``sent_tools`` is the tools their request offered (the checks of
    a call's arguments need only those)."""
    return (
        conversation.round_trips.order_by("position")
        .defer("request", "wire_request", "wire_events")
        .annotate(sent_tools=KeyTransform("tools", "request"))
    )


def public_row(row: RoundTrip) -> RoundTrip:
    """For a share link, credential headers are left out altogether, not only their values (the row is not saved)."""
    wire = row.wire_request
    if wire and isinstance(wire.get("headers"), dict):
        headers = {k: v for k, v in wire["headers"].items() if k.lower() not in SECRET_HEADERS}
        row.wire_request = {**wire, "headers": headers}
    return row


def round_trip_view(row: RoundTrip, links: PaneLinks, *, event_count: int | None = None) -> dict[str, Any]:
    """One round trip's whole panes. ``event_count`` given: the row was read without its raw events, which the page
    then loads on demand when there are many."""
    wire = row.wire_request
    count = len(row.wire_events) if event_count is None else event_count
    return {
        **_head(row, links, count, has_wire=bool(wire)),
        "copy_urls": {kind: links.url(row.position, kind) for kind in SNIPPETS} if wire else {},
        "events_deferred": event_count is not None and count > INLINE_EVENTS,
        "request_json": json.dumps(row.request, indent=2, ensure_ascii=False),
        "result_json": json.dumps(_result_message(row), indent=2, ensure_ascii=False),
    }


def _head(row: RoundTrip, links: PaneLinks, event_count: int, *, has_wire: bool) -> dict[str, Any]:
    position = row.position
    return {
        "row": row,
        "event_count": event_count,
        "has_wire": has_wire,
        "usage": row.usage or {},
        "panes_url": links.url(position, "panes"),
        "events_url": links.url(position, "events"),
    }


def page_round_trips(conversation: Conversation, links: PaneLinks, *, public: bool = False) -> list[dict[str, Any]]:
    """Every round trip of a page: the newest whole within the budget, the others folded."""
    rows = list(
        conversation.round_trips.order_by("position")
        .defer("request", "wire_request", "wire_events")
        .annotate(has_wire=ExpressionWrapper(Q(wire_request__isnull=False), output_field=BooleanOutput()))
    )
    whole = _whole(rows)
    _load(whole, public)
    return [
        round_trip_view(row, links, event_count=row.event_count)
        if row.pk in whole
        else {**_head(row, links, row.event_count, has_wire=row.has_wire), "folded": True}  # type: ignore[attr-defined]
        for row in rows
    ]


def _whole(rows: list[RoundTrip]) -> dict[int, RoundTrip]:
    """The newest round trips whose requests fit in the budget together (measured when saved: see RoundTrip)."""
    chosen: dict[int, RoundTrip] = {}
    spent = 0
    for row in reversed(rows):
        spent += row.body_chars
        if spent > PANE_BUDGET_CHARS:
            break
        chosen[row.pk] = row
    return chosen


def _load(whole: dict[int, RoundTrip], public: bool) -> None:
    """Read the big columns of the round trips sent whole: requests, and raw events where they are few."""
    prefetch_related_objects(list(whole.values()), "messages")  # the assistant message each whole pane shows
    few = {pk for pk, row in whole.items() if row.event_count <= INLINE_EVENTS}
    for pk, request, wire_request in RoundTrip.objects.filter(pk__in=whole).values_list(
        "pk", "request", "wire_request"
    ):
        whole[pk].request, whole[pk].wire_request = request, wire_request
    for pk, events in RoundTrip.objects.filter(pk__in=few).values_list("pk", "wire_events"):
        whole[pk].wire_events = events
    add_batched(whole[pk] for pk in few if _ended(whole[pk]))
    if public:
        for row in whole.values():
            public_row(row)


def one_round_trip(conversation: Conversation, position: int, links: PaneLinks, *, public: bool = False) -> Any:
    """One round trip's whole panes, asked for by a folded one; None when there is no such round trip."""
    row = conversation.round_trips.filter(position=position).defer("wire_events").prefetch_related("messages").first()
    if row is None:
        return None
    if row.event_count <= INLINE_EVENTS:
        row.wire_events = RoundTrip.objects.values_list("wire_events", flat=True).get(pk=row.pk)
        if _ended(row):
            add_batched([row])
    return round_trip_view(public_row(row) if public else row, links, event_count=row.event_count)


def _ended(row: RoundTrip) -> bool:
    """Whether its events are all saved and counted. One still streaming has its events shown live, by its run; its
    batches so far, unnumbered in ``event_count``, would come inline past the cap and twice beside the live ones."""
    return row.total_ms is not None


def wire_request_of(conversation: Conversation, position: int) -> tuple[dict[str, Any], str]:
    """A round trip's wire request and format, for its snippets; RoundTrip.DoesNotExist when it has none.

    A share's snippets are built from it too: a snippet names the key's environment variable in the key header and
    leaves every other redacted header out, so it holds no secret, and without the key header it would not run."""
    row = conversation.round_trips.only("position", "format", "wire_request").get(position=position)
    if not row.wire_request:
        raise RoundTrip.DoesNotExist
    return row.wire_request, row.format


def _result_message(row: RoundTrip) -> Any:
    saved = [m.data for m in row.messages.all()]
    return saved[0] if saved else None
