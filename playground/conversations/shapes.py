"""Checking an imported conversation value by value, so what is saved is what the pages and the tool loop can read.

Every refusal names where the problem is ("round trip 2: `usage` must be an object or null"). The checks follow what
reads the rows later: the transcript and panes (``present``, the templates), copy as curl / Python (``snippets``), the
search index, and ``ChatOptions(**settings)`` when the conversation goes on.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from playground.conversations.models import Conversation, title_from
from playground.tools.schema import check_schema, check_schema_limits
from playground.tools.transfer import read_entry  # the Tools page's own rules for a tool, not a copy of them
from providers.client import redact_headers
from providers.formats import FORMATS

ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
MAX_POSITION = 2**31 - 1  # an integer column in PostgreSQL
# The chat settings a conversation keeps (playground.chat.options.ChatOptions; a test keeps the two in step). Keys
# not listed are left out: ChatOptions(**settings) would refuse them when the conversation goes on.
SETTING_KINDS: dict[str, tuple[type, ...]] = {
    "endpoint_id": (int,),
    "model": (str,),
    "system": (str,),
    "tools": (list,),
    "tool_choice": (str,),
    "parallel_tool_calls": (bool,),
    "temperature": (float, type(None)),
    "max_tokens": (int,),
    "reasoning": (bool,),
    "stream": (bool,),
    "approve": (bool,),
    "max_round_trips": (int,),
    "max_invalid_retries": (int,),
    "strategy": (str,),
}
_WORDS = {
    str: "text",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    dict: "an object",
    list: "a list",
    type(None): "null",
}
_REQUIRED = object()


class ImportRefused(Exception):
    """The document cannot be imported; the message says why, for the page."""


def _is(value: Any, kinds: tuple[type, ...]) -> bool:
    if isinstance(value, bool):  # bool is an int to Python, never to JSON
        return bool in kinds
    if isinstance(value, int) and float in kinds:
        return True
    return isinstance(value, kinds)


def get(entry: dict[str, Any], key: str, kinds: tuple[type, ...], where: str, default: Any = _REQUIRED) -> Any:
    if key not in entry:
        if default is _REQUIRED:
            raise ImportRefused(f"{where}: `{key}` is missing.")
        return default
    value = entry[key]
    if not _is(value, kinds):
        raise ImportRefused(f"{where}: `{key}` must be {' or '.join(_WORDS[k] for k in kinds)}.")
    return value


def text(entry: dict[str, Any], key: str, where: str, max_length: int, default: Any = "") -> str:
    value: str = get(entry, key, (str,), where, default)
    if len(value) > max_length:
        raise ImportRefused(f"{where}: `{key}` is longer than {max_length} characters.")
    return value


def _position(entry: dict[str, Any], where: str) -> int:
    value: int = get(entry, "position", (int,), where)
    if not 0 <= value <= MAX_POSITION:
        raise ImportRefused(f"{where}: `position` must be a whole number from 0.")
    return value


def _when(entry: dict[str, Any], key: str, where: str) -> datetime | None:
    value = get(entry, key, (str, type(None)), where, None)
    if value is None:
        return None
    try:
        parsed = parse_datetime(value)
    except ValueError:
        parsed = None
    if parsed is None:
        raise ImportRefused(f"{where}: `{key}` must be an ISO 8601 date and time.")
    return parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed, UTC)


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ImportRefused(f"{where}: expected a JSON object.")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ImportRefused(f"{where}: expected a JSON list.")
    return value


# --- the conversation --------------------------------------------------------------------------------------------


def conversation_fields(value: Any) -> dict[str, Any]:
    """The Conversation columns of an export's ``conversation`` object, checked."""
    where = "conversation"
    entry = _object(value, where)
    fmt = text(entry, "format", where, 20)
    if fmt and fmt not in FORMATS:
        raise ImportRefused(f"{where}: unknown wire format {fmt!r} (known: {', '.join(sorted(FORMATS))}).")
    status = get(entry, "status", (str,), where, Conversation.Status.DONE)
    if status not in Conversation.Status.values:
        raise ImportRefused(f"{where}: unknown status {status!r}.")
    model = text(entry, "model", where, 200)
    return {
        "title": text(entry, "title", where, 200),
        "endpoint_name": text(entry, "endpoint_name", where, 100),
        "format": fmt,
        "model": model,
        "settings": chat_settings(get(entry, "settings", (dict,), where, {}), model, 0),
        "tools": tool_snapshots(get(entry, "tools", (list,), where, []), "crosswire"),
        "recorded_results": _recorded(get(entry, "recorded_results", (list,), where, [])),
        "status": status,
        "status_message": get(entry, "status_message", (str,), where, ""),
        "created_at": _when(entry, "created_at", where),
    }


def chat_settings(raw: dict[str, Any], model: str, endpoint_id: int) -> dict[str, Any]:
    """Known settings of the right kind, on this installation's endpoint; {} stays {} (a draft has none)."""
    if not raw:
        return {}
    kept = {key: get(raw, key, kinds, "settings") for key, kinds in SETTING_KINDS.items() if key in raw}
    if not all(isinstance(name, str) for name in kept.get("tools", [])):
        raise ImportRefused("settings: `tools` must be a list of tool names.")
    kept.setdefault("model", model)
    return {**kept, "endpoint_id": endpoint_id}


def tool_snapshots(entries: Any, fmt: str) -> list[dict[str, Any]]:
    """Tool snapshots as a conversation keeps them, each checked like an imported tool (name, schema, answers)."""
    snapshots = []
    for position, entry in enumerate(_list(entries, "tools")):
        candidate = read_entry(entry, position, fmt)
        if candidate.config is None:
            raise ImportRefused(f"Tool {candidate.name}: {' '.join(candidate.problems)}")
        snapshots.append(candidate.config.to_dict())
    return snapshots


def _recorded(rows: list[Any]) -> list[dict[str, Any]]:
    kept = []
    for number, row in enumerate(rows, start=1):
        where = f"recorded result {number}"
        row = _object(row, where)
        kept.append(
            {
                "name": get(row, "name", (str,), where),
                "arguments": get(row, "arguments", (str,), where),
                "content": get(row, "content", (str,), where),
                "is_error": get(row, "is_error", (bool,), where, False),
            }
        )
    return kept


# --- messages ----------------------------------------------------------------------------------------------------


def check_message_data(data: Any, where: str) -> None:
    """An internal (OpenAI Chat) message as the transcript, the search index and the codecs read it."""
    data = _object(data, where)
    role = get(data, "role", (str,), where)
    if role not in ROLES:
        raise ImportRefused(f"{where}: unknown role {role!r}.")
    content = data.get("content")
    if content is not None and not isinstance(content, str):
        if not isinstance(content, list) or not all(isinstance(part, dict) for part in content):
            raise ImportRefused(f"{where}: `content` must be text, a list of content parts, or null.")
    for number, call in enumerate(get(data, "tool_calls", (list,), where, []), start=1):
        _check_call(call, f"{where}, tool call {number}")
    if role == "tool":
        get(data, "tool_call_id", (str,), where)
    get(data, "provider_data", (dict,), where, {})
    get(data, "is_error", (bool,), where, False)


def _check_call(call: Any, where: str) -> None:
    call = _object(call, where)
    if not get(call, "id", (str,), where):
        raise ImportRefused(f"{where}: `id` is empty.")
    function = get(call, "function", (dict,), where)
    get(function, "name", (str,), where)
    get(function, "arguments", (str,), where)


def messages(entries: Any, round_trip_positions: set[int]) -> list[dict[str, Any]]:
    """An export's messages as Message columns (``round_trip`` a round trip position), in order."""
    rows = []
    for number, entry in enumerate(_list(entries, "messages"), start=1):
        where = f"message {number}"
        entry = _object(entry, where)
        role = get(entry, "role", (str,), where)
        data = get(entry, "data", (dict,), where)
        check_message_data(data, where)
        if data["role"] != role:
            raise ImportRefused(f"{where}: `role` is {role!r} but its data says {data['role']!r}.")
        round_trip = get(entry, "round_trip", (int, type(None)), where, None)
        if round_trip is not None and round_trip not in round_trip_positions:
            raise ImportRefused(f"{where}: it names round trip {round_trip}, which the export does not hold.")
        rows.append(
            {
                "position": _position(entry, where),
                "role": role,
                "data": data,
                "complete": get(entry, "complete", (bool,), where, True),
                "meta": _meta(get(entry, "meta", (dict,), where, {}), where),
                "round_trip": round_trip,
                "created_at": _when(entry, "created_at", where),
            }
        )
    _unique([row["position"] for row in rows], "messages")
    return sorted(rows, key=lambda row: row["position"])


def _meta(meta: dict[str, Any], where: str) -> dict[str, Any]:
    get(meta, "attempt", (int,), f"{where} meta", 1)
    get(meta, "source", (str,), f"{where} meta", "")
    return meta


def _unique(positions: list[int], what: str) -> None:
    if len(set(positions)) != len(positions):
        raise ImportRefused(f"Two {what} have the same position.")


# --- round trips -------------------------------------------------------------------------------------------------


def round_trips(entries: Any) -> list[dict[str, Any]]:
    """An export's round trips as RoundTrip columns, in order."""
    rows = [_round_trip(entry, f"round trip {n}") for n, entry in enumerate(_list(entries, "round_trips"), start=1)]
    _unique([row["position"] for row in rows], "round trips")
    return sorted(rows, key=lambda row: row["position"])


def _round_trip(entry: Any, where: str) -> dict[str, Any]:
    entry = _object(entry, where)
    request = get(entry, "request", (dict,), where, {})
    for number, tool in enumerate(get(request, "tools", (list,), f"{where} request", []), start=1):
        _request_tool(tool, f"{where} request tool {number}")
    notes = get(entry, "notes", (list,), where, [])
    if not all(isinstance(note, str) for note in notes):
        raise ImportRefused(f"{where}: `notes` must be a list of text.")
    status_code = get(entry, "status_code", (int, type(None)), where, None)
    if status_code is not None and not 100 <= status_code <= 599:
        raise ImportRefused(f"{where}: `status_code` must be an HTTP status.")
    return {
        "position": _position(entry, where),
        "format": text(entry, "format", where, 20),
        "model": text(entry, "model", where, 200),
        "request": request,
        "notes": notes,
        "wire_request": _wire_request(get(entry, "wire_request", (dict, type(None)), where, None), where),
        "wire_events": _wire_events(get(entry, "wire_events", (list,), where, []), where),
        "status_code": status_code,
        "finish_reason": text(entry, "finish_reason", where, 30),
        "raw_finish_reason": text(entry, "raw_finish_reason", where, 60),
        "usage": get(entry, "usage", (dict, type(None)), where, None),
        "error": get(entry, "error", (dict, type(None)), where, None),
        "complete": get(entry, "complete", (bool,), where, False),
        "ttfb_ms": get(entry, "ttfb_ms", (float, type(None)), where, None),
        "total_ms": get(entry, "total_ms", (float, type(None)), where, None),
        "started_at": _when(entry, "started_at", where),
    }


def _request_tool(tool: Any, where: str) -> None:
    """A tool the round trip sent: the transcript checks that round trip's calls against its schema."""
    function = _object(_object(tool, where).get("function"), f"{where} function")
    get(function, "name", (str,), where)
    schema = function.get("parameters")
    if schema is not None and (problems := check_schema_limits(schema) or check_schema(schema)):
        raise ImportRefused(f"{where} ({function['name']}): parameters{problems[0].path}: {problems[0].message}")


def _wire_request(wire: dict[str, Any] | None, where: str) -> dict[str, Any] | None:
    if wire is None:
        return None
    where = f"{where} wire request"
    headers = get(wire, "headers", (dict,), where, {})
    if not all(isinstance(value, str) for value in headers.values()):
        raise ImportRefused(f"{where}: every header value must be text.")
    return {
        "method": get(wire, "method", (str,), where, "POST"),
        "url": get(wire, "url", (str,), where),
        # A key pasted into an import is never stored: the same redaction as a request Crosswire sent.
        "headers": redact_headers(headers),
        "body": get(wire, "body", (dict, type(None)), where, None),
    }


def _wire_events(events: list[Any], where: str) -> list[dict[str, Any]]:
    kept = []
    for number, event in enumerate(events, start=1):
        at = f"{where} event {number}"
        event = _object(event, at)
        kept.append(
            {
                "t_ms": get(event, "t_ms", (float,), at),
                "data": get(event, "data", (str,), at),
                "event": get(event, "event", (str, type(None)), at, None),
            }
        )
    return kept


# --- text --------------------------------------------------------------------------------------------------------


def plain_text(message: dict[str, Any]) -> str | None:
    """The message's text when it is only text (a string or text parts), else None."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, dict) and p.get("type") == "text" for p in content):
        return "\n".join(str(p.get("text", "")) for p in content)
    return None


def first_line(message: dict[str, Any]) -> str:
    return title_from(plain_text(message) or "")
