"""Export the team's tools as a file download; import a tool set with a preview and a per-tool report."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from playground.tools import limits, transfer
from playground.tools.views import current_membership, editable_team

if TYPE_CHECKING:
    from playground.teams.models import Team
    from playground.tools.views import HtmxHttpRequest

IMPORT_FORMATS = {"auto": "Detect automatically", **transfer.EXPORT_FORMATS}
CONFLICT_CHOICES = {"skip": "Skip tools whose name exists", "rename": "Import them under a new name"}


@require_GET
@login_required
def export_tools(request: HtmxHttpRequest) -> HttpResponse:
    fmt = request.GET.get("format", "")
    if fmt not in transfer.EXPORT_FORMATS:
        return HttpResponseBadRequest(f"Unknown format; use one of {', '.join(transfer.EXPORT_FORMATS)}.")
    team, _ = current_membership(request)
    tools = team.tools.all()
    ids = [int(i) for i in request.GET.getlist("ids") if i.isdigit()]
    if ids:
        tools = tools.filter(pk__in=ids)
    body = json.dumps(transfer.export_payload(list(tools), fmt), indent=2, ensure_ascii=False) + "\n"
    response = HttpResponse(body, content_type="application/json")
    filename = f"{slugify(team.name) or 'team'}-tools-{fmt}.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _import_context(request: HtmxHttpRequest, **extra: Any) -> dict[str, Any]:
    return {
        "section": "tools",
        "formats": IMPORT_FORMATS,
        "conflicts": CONFLICT_CHOICES,
        "fmt": request.POST.get("format", "auto"),
        "on_conflict": request.POST.get("on_conflict", "skip"),
        "text": request.POST.get("text", ""),
        **extra,
    }


def _posted_text(request: HtmxHttpRequest) -> str:
    """An uploaded file wins over the pasted text; the file's content is echoed back into the text box.

    A file over the import limit is refused before it is read; pasted text is measured in transfer.read_document.
    """
    upload = request.FILES.get("file")
    if upload is None:
        return request.POST.get("text", "")
    if upload.size is not None and (
        refusal := limits.size_refusal(upload.name or "The file", upload.size, limits.import_bytes())
    ):
        raise transfer.ImportRefused(refusal)
    try:
        return upload.read().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise transfer.ImportRefused(f"{upload.name} is not UTF-8 text.") from None


def _plan(request: HtmxHttpRequest, team: Team) -> dict[str, Any]:
    """The preview's context: what importing would do to each tool, or why the document is refused."""
    fmt = request.POST.get("format", "auto")
    on_conflict = request.POST.get("on_conflict", "skip")
    try:
        text = _posted_text(request)
        if fmt not in IMPORT_FORMATS or on_conflict not in CONFLICT_CHOICES:
            raise transfer.ImportRefused("Choose one of the listed formats and conflict choices.")
        if not text.strip():
            raise transfer.ImportRefused("Paste a tool list or choose a file.")
        detected, planned = transfer.preview(team, text, fmt, on_conflict)
    except transfer.ImportRefused as exc:
        return {"refused": str(exc), "text": request.POST.get("text", "")}
    return {
        "text": text,
        "detected": transfer.EXPORT_FORMATS.get(detected, detected),
        "planned": planned,
        "importable": sum(1 for p in planned if p.action in ("create", "rename")),
        "refused_count": sum(1 for p in planned if p.action == "error"),
    }


@require_GET
@login_required
def import_page(request: HtmxHttpRequest) -> HttpResponse:
    editable_team(request)
    return render(request, "tools/import.html", _import_context(request))


@require_POST
@login_required
@vary_on_headers("HX-Request")
def import_preview(request: HtmxHttpRequest) -> HttpResponse:
    team = editable_team(request)
    context = _import_context(request, **_plan(request, team), previewed=True)
    template = "tools/import.html#preview" if request.htmx else "tools/import.html"
    return render(request, template, context)


@require_POST
@login_required
@vary_on_headers("HX-Request")
def import_apply(request: HtmxHttpRequest) -> HttpResponse:
    team = editable_team(request)
    context = _plan(request, team)
    planned: list[transfer.Planned] = context.get("planned", [])
    created = transfer.apply(team, planned) if planned else []
    if not created:
        page = _import_context(request, **context, previewed=True, nothing_imported=True)
        if request.htmx:
            # htmx swaps only 2xx answers; the fragment says nothing was imported.
            return render(request, "tools/import.html#preview", page)
        return render(request, "tools/import.html", page, status=422)
    renamed = sum(1 for p in planned if p.action == "rename")
    skipped = sum(1 for p in planned if p.action == "skip")
    parts = [f"Imported {len(created)} tool{'s' if len(created) != 1 else ''}"]
    if renamed:
        parts.append(f"{renamed} renamed")
    if skipped:
        parts.append(f"{skipped} skipped (name already used)")
    if context["refused_count"]:
        parts.append(f"{context['refused_count']} refused")
    messages.success(request, ", ".join(parts) + ".")
    return HttpResponseClientRedirect(reverse("tools")) if request.htmx else redirect("tools")
