"""Two columns' wire traffic side by side: the request bodies as a structural diff, the event streams as profiles.

The same internal request goes out in each column's wire format, so the diff shows the translation itself: where
the system prompt went, ``tools[].function.parameters`` against ``tools[].input_schema``, the shape of tool choice.
Event profiles decode the saved raw events with the format's own decoder (the one the live run used), so "time to
the first tool-call fragment" and "fragments per call" mean the same thing in every format.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from playground.conversations.models import RoundTrip
from providers import events as ev
from providers.errors import ProviderError
from providers.formats import get_format
from providers.sse import SSEEvent

MAX_ROWS = 400  # a diff of two huge tool sets stays readable and cheap to render
MAX_VALUE_CHARS = 160


@dataclass(frozen=True)
class DiffRow:
    path: str
    left: str  # "" where the path is absent on that side
    right: str
    state: str  # "same" | "changed" | "left" (only in the left body) | "right"


def flatten(value: Any, path: str = "") -> dict[str, str]:
    """Leaf paths of a JSON value (``tools[0].function.name``) with their compact JSON text. Iterative."""
    leaves: dict[str, str] = {}
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        here, item = stack.pop()
        if isinstance(item, dict) and item:
            stack.extend((f"{here}.{k}" if here else str(k), v) for k, v in reversed(item.items()))
        elif isinstance(item, list) and item:
            stack.extend((f"{here}[{i}]", v) for i, v in reversed(list(enumerate(item))))
        else:
            leaves[here] = _short(json.dumps(item, ensure_ascii=False))
    return leaves


def _short(text: str) -> str:
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def structural_diff(left: Any, right: Any) -> list[DiffRow]:
    """Every leaf of either body, in the left body's order then the right's, marked as same, changed or one-sided."""
    a, b = flatten(left), flatten(right)
    paths = list(a) + [p for p in b if p not in a]
    rows = [DiffRow(p, a.get(p, ""), b.get(p, ""), _state(p, a, b)) for p in paths]
    return rows[:MAX_ROWS]


def _state(path: str, a: dict[str, str], b: dict[str, str]) -> str:
    if path not in b:
        return "left"
    if path not in a:
        return "right"
    return "same" if a[path] == b[path] else "changed"


def text_locations(body: Any, text: str) -> list[str]:
    """Where a text (the system prompt) sits in a wire body: the paths of the leaves that hold it."""
    if not text.strip():
        return []
    return [path for path, value in flatten(body).items() if text.strip() in _unquoted(value)]


def _unquoted(value: str) -> str:
    try:
        loaded = json.loads(value)
    except ValueError:
        return value
    return loaded if isinstance(loaded, str) else value


@dataclass
class EventProfile:
    events: int = 0
    by_type: list[tuple[str, int]] = field(default_factory=list)
    first_call_ms: float | None = None  # the first tool-call fragment (or whole call) decoded
    fragments: list[tuple[str, int]] = field(default_factory=list)  # per call: its name, argument fragments


def event_profile(trip: RoundTrip) -> EventProfile:
    streamed = bool((trip.request or {}).get("stream", True))
    profile = EventProfile(events=len(trip.wire_events))
    profile.by_type = Counter(_event_type(e) for e in trip.wire_events).most_common()
    try:
        codec = get_format(trip.format)
    except ValueError:
        return profile
    names: dict[int, str] = {}
    pieces: Counter[int] = Counter()
    decoder = codec.new_stream_decoder() if streamed else None
    for event in trip.wire_events:
        try:
            if decoder is not None:
                decoded = decoder.feed(SSEEvent(event.get("data", ""), event.get("event")))
            else:
                decoded = codec.response_events(json.loads(event.get("data", "")))
        except (ProviderError, ValueError, KeyError, TypeError):
            break  # a cut or unreadable event: the profile of what came before it stands
        for item in decoded:
            if isinstance(item, ev.ToolCallStart):
                names[item.index] = item.name
            if isinstance(item, ev.ToolCallStart | ev.ToolCallDelta) and profile.first_call_ms is None:
                profile.first_call_ms = event.get("t_ms")
            if isinstance(item, ev.ToolCallDelta):
                pieces[item.index] += 1
    profile.fragments = [(names.get(i, "?"), pieces[i]) for i in sorted(names)]
    return profile


def _event_type(event: dict[str, Any]) -> str:
    """An SSE event's name, else the ``type`` or ``object`` its JSON names, else what it is."""
    if event.get("event"):
        return str(event["event"])
    data = event.get("data", "")
    if data == "[DONE]":
        return "[DONE]"
    try:
        body = json.loads(data)
    except ValueError:
        return "data"
    if isinstance(body, dict):
        return str(body.get("type") or body.get("object") or "data")
    return "data"
