"""Conversations in and out: Crosswire's own full-fidelity JSON, and a wire request body of any supported format.

An export holds everything a saved conversation is (settings, tool snapshot, messages, every round trip with its wire
traffic), so importing it gives back an equal conversation. A request body (what someone sent to OpenAI, Anthropic,
Gemini...) becomes a conversation through the codec's own importer, with its translation notes.

Imports are untrusted input: the text is parsed within the size and depth limits, and every value the pages and the
tool loop read later is checked here (``shapes``), so a crafted document is refused with a sentence, never saved
half-way and never able to break the conversation page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from playground.conversations import shapes
from playground.conversations.models import Conversation, Message, RoundTrip
from playground.conversations.raw_events import add_batched
from playground.conversations.shapes import ImportRefused
from playground.endpoints.models import Endpoint
from playground.tools.transfer import CROSSWIRE_FORMAT as TOOLS_FORMAT
from providers import jsonsafe
from providers.client import redact_headers
from providers.client.scrub import Scrubber
from providers.formats import FORMATS, get_format
from providers.translation import TranslationError

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

    from playground.teams.models import Team

__all__ = ["FORMAT", "IMPORT_FORMATS", "VERSION", "ImportRefused", "Imported", "export_document", "import_text"]

FORMAT = "crosswire.conversation"
VERSION = 1
WIRE_FORMATS = {
    "openai-chat": "OpenAI Chat",
    "anthropic": "Anthropic",
    "openai-responses": "OpenAI Responses",
    "gemini": "Gemini",
}
IMPORT_FORMATS = {"auto": "Detect automatically", "crosswire": "Crosswire export", **WIRE_FORMATS}
# What a codec raises on input of the wrong shape; reported as one sentence (the same list as providers.cli).
_CODEC_ERRORS = (TranslationError, ValueError, LookupError, TypeError, AttributeError, ArithmeticError, RecursionError)


@dataclass
class Imported:
    conversation: Conversation
    kind: str  # "crosswire" or a wire format name
    notes: list[str] = field(default_factory=list)


# --- export ------------------------------------------------------------------------------------------------------


def export_document(conversation: Conversation) -> dict[str, Any]:
    """The whole conversation as Crosswire JSON, with every key the endpoint holds cut out (``scrub``)."""
    round_trips = list(conversation.round_trips.order_by("position"))
    add_batched(round_trips)
    positions = {rt.pk: rt.position for rt in round_trips}
    # The endpoint's id means nothing in another installation: an import matches the endpoint by name instead.
    chat_settings = {k: v for k, v in (conversation.settings or {}).items() if k != "endpoint_id"}
    document = {
        "format": FORMAT,
        "version": VERSION,
        "conversation": {
            "title": conversation.title,
            "endpoint_name": conversation.endpoint_name,
            "format": conversation.format,
            "model": conversation.model,
            "settings": chat_settings,
            "tools": conversation.tools,
            "recorded_results": conversation.recorded_results,
            "status": conversation.status,
            "status_message": conversation.status_message,
            "created_at": conversation.created_at.isoformat(),
        },
        "messages": [
            {
                "position": m.position,
                "role": m.role,
                "data": m.data,
                "complete": m.complete,
                "meta": m.meta,
                "round_trip": positions.get(m.round_trip_id) if m.round_trip_id else None,
                "created_at": m.created_at.isoformat(),
            }
            for m in conversation.messages.order_by("position")
        ],
        "round_trips": [_round_trip_dict(rt) for rt in round_trips],
    }
    return scrub(conversation, document)


def _round_trip_dict(rt: RoundTrip) -> dict[str, Any]:
    wire = dict(rt.wire_request) if rt.wire_request else None
    if wire is not None:
        # Stored redacted already; redacting again costs nothing and survives a future bug upstream.
        wire["headers"] = redact_headers(dict(wire.get("headers") or {}))
    return {
        "position": rt.position,
        "format": rt.format,
        "model": rt.model,
        "request": rt.request,
        "notes": rt.notes,
        "wire_request": wire,
        "wire_events": rt.wire_events,
        "status_code": rt.status_code,
        "finish_reason": rt.finish_reason,
        "raw_finish_reason": rt.raw_finish_reason,
        "usage": rt.usage,
        "error": rt.error,
        "complete": rt.complete,
        "ttfb_ms": rt.ttfb_ms,
        "total_ms": rt.total_ms,
        "started_at": rt.started_at.isoformat(),
    }


def scrub(conversation: Conversation, value: Any) -> Any:
    """``value`` with the conversation's endpoint key replaced wherever it appears, whatever the export format.

    Keys are redacted before anything is stored, so this finds nothing in practice; an export is a file that
    leaves the installation, so it is checked once more on the way out.
    """
    endpoint = conversation.endpoint
    secret = endpoint.api_key() if endpoint is not None else ""
    return Scrubber.of([secret]).value(value) if secret else value


# --- import ------------------------------------------------------------------------------------------------------


def read_json(text: str) -> Any:
    try:
        return jsonsafe.loads(
            text, max_depth=settings.CROSSWIRE_MAX_JSON_DEPTH, max_bytes=settings.CROSSWIRE_MAX_IMPORT_BYTES
        )
    except jsonsafe.JSONInputError as exc:
        raise ImportRefused(str(exc)) from None


def import_text(text: str, fmt: str, *, team: Team, user: AbstractBaseUser) -> Imported:
    """A new conversation from a Crosswire export or a request body (``fmt``: a key of IMPORT_FORMATS), or
    ImportRefused saying why; nothing is saved on a refusal."""
    if fmt not in IMPORT_FORMATS:
        raise ImportRefused("Choose one of the listed formats.")
    if not text.strip():
        raise ImportRefused("Paste a conversation export or a request body, or choose a file.")
    document = read_json(text)
    if not isinstance(document, dict):
        raise ImportRefused("Expected a JSON object: a Crosswire conversation export or a request body.")
    is_export = document.get("format") == FORMAT
    if fmt == "crosswire" or (fmt == "auto" and is_export):
        return _import_export(document, team, user)
    if is_export:
        raise ImportRefused(
            f"This is a Crosswire conversation export, not a request body in {IMPORT_FORMATS[fmt]} format."
        )
    return _import_wire(document, detect_format(document) if fmt == "auto" else fmt, team, user)


def match_endpoint(team: Team, *, name: str = "", fmt: str = "") -> Endpoint | None:
    """One of the team's visible endpoints: by name (the same format first), else the first of the format."""
    visible = Endpoint.objects.filter(Q(team=team) | Q(team__isnull=True))
    # The team's own endpoints first (nulls last), so a team endpoint called like a built-in one wins.
    rows = visible.filter(name=name) if name else visible.filter(format=fmt)
    ranked = sorted(rows, key=lambda e: (e.format != fmt, e.team_id is None, e.pk))
    return ranked[0] if ranked else None


def _import_export(document: dict[str, Any], team: Team, user: AbstractBaseUser) -> Imported:
    if document.get("format") != FORMAT:
        raise ImportRefused(f"Not a Crosswire conversation export: `format` must be {FORMAT!r}.")
    if document.get("version") != VERSION:
        raise ImportRefused(f"Unsupported Crosswire export version {document.get('version')!r} (this reads {VERSION}).")
    head = shapes.conversation_fields(document.get("conversation"))
    round_trips = shapes.round_trips(document.get("round_trips", []))
    messages = shapes.messages(document.get("messages", []), {rt["position"] for rt in round_trips})
    endpoint = match_endpoint(team, name=head["endpoint_name"], fmt=head["format"]) if head["endpoint_name"] else None
    notes = []
    if head["endpoint_name"] and endpoint is None:
        notes.append(f"No endpoint called {head['endpoint_name']!r} here: pick one in the chat settings to go on.")
    if head["settings"]:
        head["settings"]["endpoint_id"] = endpoint.pk if endpoint else 0
    notes += _missing_tools_note(team, head["tools"])
    created_at, status = head.pop("created_at"), head.pop("status")
    with transaction.atomic():
        conversation = Conversation.objects.create(
            team=team, created_by=user, endpoint=endpoint, status=_idle_if_busy(status), **head
        )
        _save_history(conversation, messages, round_trips)
        if created_at is not None:
            Conversation.objects.filter(pk=conversation.pk).update(created_at=created_at)
    return Imported(conversation, "crosswire", notes)


def _idle_if_busy(status: str) -> str:
    # Nothing runs an imported copy: a run that was going on when exported is, here, one that stopped short.
    busy = {Conversation.Status.RUNNING, Conversation.Status.WAITING}
    return Conversation.Status.INTERRUPTED if status in busy else status


def _save_history(conversation: Conversation, messages: list[dict[str, Any]], rts: list[dict[str, Any]]) -> None:
    """Rows in bulk, then their original times (``auto_now_add`` overrides them on insert, not on update)."""
    trips = [RoundTrip(conversation=conversation, **{k: v for k, v in rt.items() if k != "started_at"}) for rt in rts]
    for trip in trips:
        trip.measure()  # bulk_create does not call save()
    trips = RoundTrip.objects.bulk_create(trips)
    by_position = {rt.position: rt for rt in trips}
    rows = Message.objects.bulk_create(
        [
            Message(
                conversation=conversation,
                round_trip=by_position.get(m["round_trip"]) if m["round_trip"] is not None else None,
                **{k: v for k, v in m.items() if k not in ("round_trip", "created_at")},
            )
            for m in messages
        ]
    )
    _restore_times(trips, [rt.get("started_at") for rt in rts], "started_at")
    _restore_times(rows, [m.get("created_at") for m in messages], "created_at")


def _restore_times(rows: list[Any], times: list[Any], name: str) -> None:
    changed = []
    for row, when in zip(rows, times, strict=True):
        if when is not None:
            setattr(row, name, when)
            changed.append(row)
    if changed:
        type(changed[0]).objects.bulk_update(changed, [name])


def _missing_tools_note(team: Team, tools: list[dict[str, Any]]) -> list[str]:
    known = set(team.tools.values_list("name", flat=True))
    missing = [t["name"] for t in tools if t["name"] not in known]
    if not missing:
        return []
    return [f"Not in this team's tool library: {', '.join(missing)}. Add them on the Tools page to offer them again."]


# --- a request body ----------------------------------------------------------------------------------------------


def detect_format(body: dict[str, Any]) -> str:
    """Which wire format a request body is written in, from the fields only that format has."""
    if isinstance(body.get("contents"), list):
        return "gemini"
    if "messages" not in body and ("input" in body or "instructions" in body):
        return "openai-responses"
    if body.get("format") == TOOLS_FORMAT:
        raise ImportRefused("This is a Crosswire tool list, not a conversation: import it on the Tools page (Import).")
    if not isinstance(body.get("messages"), list):
        raise ImportRefused(
            "This is neither a Crosswire export nor a request body in a format Crosswire reads (OpenAI Chat, "
            "Anthropic, OpenAI Responses, Gemini): it has no `messages`, `input` or `contents`."
        )
    return "anthropic" if _looks_anthropic(body) else "openai-chat"


def _looks_anthropic(body: dict[str, Any]) -> bool:
    if "system" in body:
        return True
    tools = body.get("tools")
    if isinstance(tools, list) and any(isinstance(t, dict) and "input_schema" in t for t in tools):
        return True
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("auto", "any", "tool", "none"):
        return True
    blocks = ("tool_use", "tool_result", "thinking", "redacted_thinking")
    for message in body["messages"]:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") in blocks for b in content):
            return True
    return False


def _import_wire(body: dict[str, Any], fmt: str, team: Team, user: AbstractBaseUser) -> Imported:
    label = WIRE_FORMATS.get(fmt, fmt)
    if fmt not in FORMATS:
        raise ImportRefused(f"Unknown request format {fmt!r}.")
    try:
        translation = get_format(fmt).import_request(body)
    except _CODEC_ERRORS as exc:
        raise ImportRefused(f"Crosswire cannot read this as a request in {label} format: {str(exc)[:300]}") from None
    request: dict[str, Any] = dict(translation.value)
    notes = [*translation.notes]
    system, history = _lift_system(list(request.get("messages") or []))
    if system:
        notes.append("The leading system message became the chat's system prompt.")
    if not history:
        raise ImportRefused("The request has no messages to import.")
    for position, data in enumerate(history):
        shapes.check_message_data(data, f"message {position + 1}")
    tools = shapes.tool_snapshots(request.get("tools") or [], "openai")
    left_out = list(((request.get("provider_data") or {}).get("fields") or {}).keys())
    if left_out:
        notes.append(f"Left out (a conversation has no place for them): {', '.join(left_out)}.")
    endpoint = match_endpoint(team, fmt=fmt)
    model = str(request.get("model") or (endpoint.default_model if endpoint else ""))
    chat_settings = shapes.chat_settings(_settings_from(request, system, tools), model, endpoint.pk if endpoint else 0)
    notes += _missing_tools_note(team, tools)
    title = next((shapes.first_line(m) for m in history if m.get("role") == "user" and shapes.first_line(m)), "")
    with transaction.atomic():
        conversation = Conversation.objects.create(
            team=team,
            created_by=user,
            title=(title or f"Imported {label} request")[:200],
            endpoint=endpoint,
            endpoint_name=endpoint.name if endpoint else "",
            format=fmt,
            model=model[:200],
            settings=chat_settings,
            tools=tools,
        )
        Message.objects.bulk_create(
            [
                Message(conversation=conversation, position=position, role=data["role"], data=data)
                for position, data in enumerate(history)
            ]
        )
    return Imported(conversation, fmt, notes)


def _lift_system(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The leading system messages as the chat's system prompt (where the playground keeps it), and the rest."""
    parts: list[str] = []
    while messages and messages[0].get("role") == "system" and (text := shapes.plain_text(messages[0])) is not None:
        parts.append(text)
        messages = messages[1:]
    return "\n\n".join(parts), messages


def _settings_from(request: dict[str, Any], system: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    choice = request.get("tool_choice", "auto")
    if isinstance(choice, dict):
        choice = (choice.get("function") or {}).get("name", "auto")
    imported = {
        "system": system,
        "tools": [t["name"] for t in tools],
        "tool_choice": choice,
        "parallel_tool_calls": request.get("parallel_tool_calls", True),
        "temperature": request.get("temperature"),
        "max_tokens": request.get("max_tokens", 1024),
        "reasoning": bool((request.get("reasoning") or {}).get("enabled")),
        "stream": request.get("stream", True),
    }
    return {key: value for key, value in imported.items() if value is not None or key == "temperature"}
