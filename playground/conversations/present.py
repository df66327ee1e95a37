"""Saved messages and round trips shaped for the templates: each tool call carries its result(s) and checks."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Func, IntegerField

from playground.conversations.models import Conversation, Message, RoundTrip
from playground.conversations.snippets import as_curl, as_python
from playground.tools.schema import check_arguments


@dataclass
class CallView:
    id: str
    name: str
    arguments: str
    pretty: str  # pretty-printed when the text parses, else the raw text
    problems: list[str]
    result: str | None = None
    is_error: bool = False
    source: str = ""
    attempt: int = 1
    truncated: bool = False  # its round trip hit max_tokens: the call is cut off and was never run

    @property
    def status(self) -> str:
        if self.result is None:
            return "truncated" if self.truncated else "pending"
        if self.source == "denied":
            return "denied"
        return "error" if self.is_error else "done"


@dataclass
class MessageView:
    position: int
    role: str
    text: str
    complete: bool
    reasoning: str = ""
    calls: list[CallView] = field(default_factory=list)
    round_trip: int | None = None


def _pretty(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), indent=2, ensure_ascii=False)
    except ValueError:
        return arguments


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def transcript(
    conversation: Conversation, messages: list[Message], round_trips: dict[int, RoundTrip]
) -> list[MessageView]:
    latest = {t["name"]: t.get("parameters") for t in conversation.tools}
    calls: dict[str, CallView] = {}
    views: list[MessageView] = []
    for message in messages:
        data = message.data
        if message.role == "tool":
            call = calls.get(str(data.get("tool_call_id")))
            if call is not None:
                call.result, call.is_error = _text(data.get("content")), bool(data.get("is_error"))
                call.source, call.attempt = message.meta.get("source", ""), int(message.meta.get("attempt", 1))
                continue
        view = MessageView(message.position, message.role, _text(data.get("content")), message.complete)
        view.reasoning = str((data.get("provider_data") or {}).get("reasoning", ""))
        rt = round_trips.get(message.round_trip_id) if message.round_trip_id else None
        view.round_trip = rt.position if rt else None
        # Checked against the definitions that round trip sent: a later turn may have changed the tools.
        schemas = _schemas(rt.request) if rt else latest
        for raw in data.get("tool_calls") or []:
            arguments = raw["function"]["arguments"]
            check = check_arguments(schemas.get(raw["function"]["name"]), arguments)
            call = CallView(
                raw["id"], raw["function"]["name"], arguments, _pretty(arguments), [str(p) for p in check.problems]
            )
            call.truncated = bool(rt and rt.finish_reason == "length")
            calls[call.id] = call
            view.calls.append(call)
        views.append(view)
    return views


def _schemas(request: dict[str, Any]) -> dict[str, Any]:
    return {t["function"]["name"]: t["function"].get("parameters") for t in request.get("tools") or []}


def round_trip_view(row: RoundTrip, *, event_count: int | None = None) -> dict[str, Any]:
    """One round trip's panes. ``event_count`` given: the row was read without its raw events (page_round_trips),
    which the page then loads on demand when there are many."""
    wire = row.wire_request
    count = len(row.wire_events) if event_count is None else event_count
    return {
        "event_count": count,
        "events_deferred": event_count is not None and count > INLINE_EVENTS,
        "row": row,
        "request_json": json.dumps(row.request, indent=2, ensure_ascii=False),
        "wire_json": json.dumps(wire, indent=2, ensure_ascii=False) if wire else "",
        "curl": as_curl(wire, row.format) if wire else "",
        "python": as_python(wire, row.format) if wire else "",
        "result_json": json.dumps(_result_message(row), indent=2, ensure_ascii=False),
        "usage": row.usage or {},
    }


# A round trip with more raw events than this shows them on demand: a long conversation opens without reading (or
# sending) tens of thousands of events nobody asked to see yet.
INLINE_EVENTS = 300


class JSONArrayLength(Func):
    """The length of a JSON array column, counted by the database (the array itself is never loaded)."""

    function = "json_array_length"
    output_field = IntegerField()

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return self.as_sql(compiler, connection, function="jsonb_array_length", **extra)


def page_round_trips(conversation: Conversation) -> list[dict[str, Any]]:
    """Every round trip's panes for the conversation page; raw events only where they are few enough to inline."""
    rows = list(
        conversation.round_trips.order_by("position")
        .defer("wire_events")
        .annotate(event_count=JSONArrayLength("wire_events"))
        .prefetch_related("messages")
    )
    few = [row.pk for row in rows if row.event_count <= INLINE_EVENTS]  # type: ignore[attr-defined]
    events = dict(RoundTrip.objects.filter(pk__in=few).values_list("pk", "wire_events"))
    for row in rows:
        if row.pk in events:
            row.wire_events = events[row.pk]
    return [round_trip_view(row, event_count=row.event_count) for row in rows]  # type: ignore[attr-defined]


def _result_message(row: RoundTrip) -> Any:
    saved = [m.data for m in row.messages.all()]
    return saved[0] if saved else None
