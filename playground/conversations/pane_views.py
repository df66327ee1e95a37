"""One round trip's parts fetched by a page that did not send them: its whole panes, its raw events, its snippets.

Shared by the conversation's own routes (members) and a share link's (anyone holding it, credential headers left
out): the caller has already decided who may read the conversation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from playground.conversations.models import RoundTrip
from playground.conversations.panes import SNIPPETS, PaneLinks, one_round_trip, wire_request_of
from playground.conversations.raw_events import add_batched
from playground.conversations.snippets import as_curl, as_python

if TYPE_CHECKING:
    from playground.conversations.models import Conversation

PARTS = ("panes", "events", *SNIPPETS)


def round_trip_part(
    request: HttpRequest, conversation: Conversation, position: int, part: str, links: PaneLinks, *, public: bool
) -> HttpResponse:
    if part not in PARTS:
        raise Http404("No such part of a round trip.")
    if part == "panes":
        view = one_round_trip(conversation, position, links, public=public)
        if view is None:
            raise Http404("No such round trip.")
        return render(request, "chat/_round_trip.html", {"rt": view})
    if part == "events":
        row = conversation.round_trips.filter(position=position).only("position", "format", "wire_events").first()
        if row is None:
            raise Http404("No such round trip.")
        add_batched([row])
        context = {"position": row.position, "events": row.wire_events, "format": row.format}
        return render(request, "chat/_wire_events.html", context)
    return _snippet(conversation, position, part)


def _snippet(conversation: Conversation, position: int, kind: str) -> HttpResponse:
    try:
        wire, fmt = wire_request_of(conversation, position)
    except RoundTrip.DoesNotExist:
        raise Http404("This round trip sent nothing.") from None
    text = as_curl(wire, fmt) if kind == "curl" else as_python(wire, fmt)
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "no-store"
    return response
