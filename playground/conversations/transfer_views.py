"""Export a conversation (Crosswire JSON, Markdown, OpenTelemetry, one wire request), import one, fork one.

Who may do what: any member of the conversation's team may export it (reading is all an export does); editors and
owners may import into their current team and fork. Someone outside the team gets a 404, so ids reveal nothing.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from playground.conversations import fork, transfer
from playground.conversations.markdown import conversation_markdown
from playground.conversations.models import Conversation
from playground.conversations.otel import conversation_trace
from playground.teams.access import get_current_team, membership_for

MAX_FLASHED_NOTES = 8  # a long list of translation notes would bury the page; the rest is counted


def _conversation(request: HttpRequest, pk: int, *, edit: bool = False) -> Conversation:
    conversation = Conversation.objects.filter(pk=pk).select_related("team", "endpoint").first()
    membership = membership_for(request.user, conversation.team) if conversation else None  # type: ignore[arg-type]
    if conversation is None or membership is None:
        raise Http404("No such conversation.")
    if edit and not membership.can_edit:
        raise PermissionDenied("Viewers can read and export this conversation, but not fork it.")
    return conversation


def _download(body: str, conversation: Conversation, suffix: str, content_type: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    name = slugify(conversation.title)[:60] or "conversation"
    response["Content-Disposition"] = f'attachment; filename="{name}-{conversation.pk}{suffix}"'
    return response


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


@require_GET
@login_required
def export_json(request: HttpRequest, pk: int) -> HttpResponse:
    conversation = _conversation(request, pk)
    body = _json(transfer.export_document(conversation))
    return _download(body, conversation, ".crosswire.json", "application/json")


@require_GET
@login_required
def export_markdown(request: HttpRequest, pk: int) -> HttpResponse:
    conversation = _conversation(request, pk)
    body = transfer.scrub(conversation, conversation_markdown(conversation))
    return _download(body, conversation, ".md", "text/markdown; charset=utf-8")


@require_GET
@login_required
def export_otel(request: HttpRequest, pk: int) -> HttpResponse:
    conversation = _conversation(request, pk)
    body = _json(transfer.scrub(conversation, conversation_trace(conversation)))
    return _download(body, conversation, ".otlp.json", "application/json")


@require_GET
@login_required
def export_wire(request: HttpRequest, pk: int, position: int) -> HttpResponse:
    """The body one round trip sent, exactly as its provider got it (the headers, with the key, are not a body)."""
    conversation = _conversation(request, pk)
    round_trip = conversation.round_trips.filter(position=position).first()
    if round_trip is None or not round_trip.wire_request:
        raise Http404("That round trip sent nothing.")
    body = _json(transfer.scrub(conversation, round_trip.wire_request.get("body")))
    return _download(body, conversation, f"-round-trip-{position + 1}-{round_trip.format}.json", "application/json")


@require_GET
@login_required
def export_menu(request: HttpRequest, pk: int) -> HttpResponse:
    """The Export menu's round trips, fetched when it opens: the page may have run several since it loaded."""
    conversation = _conversation(request, pk)
    rows = conversation.round_trips.exclude(wire_request=None).order_by("position").values("position", "format")
    context = {"conversation": conversation, "wire_round_trips": list(rows)}
    return render(request, "conversations/_export_menu.html", context)


@require_GET
@login_required
def fork_menu(request: HttpRequest, pk: int) -> HttpResponse:
    """The Fork menu's messages, fetched when it opens, for the same reason."""
    conversation = _conversation(request, pk, edit=True)
    return render(request, "conversations/_fork_points.html", {"fork_points": fork.fork_points(conversation)})


@require_POST
@login_required
def fork_conversation(request: HttpRequest, pk: int) -> HttpResponse:
    original = _conversation(request, pk, edit=True)
    raw = request.POST.get("position", "")
    try:
        created = fork.create_fork(original, request.user, int(raw) if raw.isdigit() else -1)  # type: ignore[arg-type]
    except fork.ForkRefused as exc:
        messages.error(request, str(exc))
        return redirect("chat", pk=pk)
    messages.success(request, f"Forked from “{original}”: change anything and go on from here.")
    return redirect("chat", pk=created.pk)


# --- import ------------------------------------------------------------------------------------------------------


def _posted_text(request: HttpRequest) -> str:
    """An uploaded file wins over the pasted text. A file over the limit is refused before it is read."""
    upload = request.FILES.get("file")
    if upload is None:
        return request.POST.get("text", "")
    limit = int(settings.CROSSWIRE_MAX_IMPORT_BYTES)
    if upload.size is not None and upload.size > limit:
        raise transfer.ImportRefused(f"{upload.name} is {upload.size:,} bytes; the limit is {limit:,}.")
    try:
        return upload.read().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise transfer.ImportRefused(f"{upload.name} is not UTF-8 text.") from None


@require_http_methods(["GET", "POST"])
@login_required
def import_conversation(request: HttpRequest) -> HttpResponse:
    team = get_current_team(request)
    membership = membership_for(request.user, team)  # type: ignore[arg-type]
    if membership is None or not membership.can_edit:
        raise PermissionDenied("Viewers cannot import conversations into this team.")
    context: dict[str, Any] = {
        "section": "conversations",
        "formats": transfer.IMPORT_FORMATS,
        "fmt": request.POST.get("format", "auto"),
        "text": request.POST.get("text", ""),
        "max_bytes": settings.CROSSWIRE_MAX_IMPORT_BYTES,
        "max_depth": settings.CROSSWIRE_MAX_JSON_DEPTH,
    }
    if request.method == "GET":
        return render(request, "conversations/import.html", context)
    try:
        text = _posted_text(request)
        context["text"] = text  # a file's content comes back in the text box, to be fixed there
        imported = transfer.import_text(text, context["fmt"], team=team, user=request.user)  # type: ignore[arg-type]
    except transfer.ImportRefused as exc:
        return render(request, "conversations/import.html", {**context, "error": str(exc)}, status=422)
    _announce(request, imported)
    return redirect("chat", pk=imported.conversation.pk)


def _announce(request: HttpRequest, imported: transfer.Imported) -> None:
    label = transfer.IMPORT_FORMATS[imported.kind]
    what = "the Crosswire export" if imported.kind == "crosswire" else f"a request in {label} format"
    count = imported.conversation.messages.count()
    messages.success(request, f"Imported {what}: {count} message{'s' if count != 1 else ''}.")
    for note in imported.notes[:MAX_FLASHED_NOTES]:
        messages.info(request, note)
    if len(imported.notes) > MAX_FLASHED_NOTES:
        messages.info(request, f"…and {len(imported.notes) - MAX_FLASHED_NOTES} more translation notes.")
