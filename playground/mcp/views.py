"""The MCP servers page: a team's servers, adding and editing one, syncing its tools, deleting it.

Everyone in the team reads the list; editors and owners change it; only owners set a URL (every MCP URL is a custom
one, as for endpoints). Saving connects first and imports the server's tools, so a wrong URL or auth header is
caught while the form is still on screen; a server that is down can still be saved on purpose. The auth value goes
in and never comes out: no view renders, returns or logs it, and the POST views hide it from error reports.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from playground.endpoints import crypto
from playground.mcp import policy
from playground.mcp.client import MCPFailure, RemoteTool, list_tools
from playground.mcp.forms import TRANSPORTS, MCPServerForm
from playground.mcp.models import MCPServer
from playground.mcp.rows import server_row, server_rows, summarize
from playground.mcp.sync import SyncReport, apply_listing, sync_server
from playground.teams import access
from playground.teams.models import Membership, Team
from playground.tools.models import Tool

if TYPE_CHECKING:
    from django.http import HttpRequest
    from django_htmx.middleware import HtmxDetails

    class HtmxHttpRequest(HttpRequest):
        htmx: HtmxDetails


logger = logging.getLogger(__name__)

LIST = "mcp/list.html"
FORM = "mcp/form.html"
SECRET_FIELDS = ("auth_header_value",)


@dataclass
class Editing:
    """A bound form with what its page needs, prepared in one synchronous step for the async views."""

    form: MCPServerForm
    context: dict[str, Any]
    server: MCPServer | None = None  # the form's server, unsaved, once the form is valid


def _team_and_membership(request: HtmxHttpRequest) -> tuple[Team, Membership | None]:
    team = access.get_current_team(request)
    return team, access.membership_for(request.user, team)


def _require_editor(membership: Membership | None) -> Membership:
    if membership is None or not membership.can_edit:
        raise PermissionDenied("Viewers cannot change the team's MCP servers.")
    return membership


def _team_server(team: Team, pk: int) -> MCPServer:
    # Another team's server is 404, exactly like one that does not exist.
    return get_object_or_404(MCPServer, pk=pk, team=team)


def _page_context(team: Team, membership: Membership | None, **extra: Any) -> dict[str, Any]:
    allowed = settings.CROSSWIRE_ALLOWED_BASE_URLS
    return {
        "section": "mcp",
        "team": team,
        "membership": membership,
        "can_edit": membership is not None and membership.can_edit,
        "is_owner": membership is not None and membership.is_owner,
        "allowed_base_urls": allowed,
        "any_base_url": "*" in allowed,
        "stdio_keys": policy.stdio_keys(),
        **extra,
    }


def _unreadable(server: MCPServer) -> bool:
    """The stored auth value no longer decrypts (CROSSWIRE_ENCRYPTION_KEY changed): it must be entered again."""
    return bool(server.auth_header_encrypted) and not crypto.decrypt(server.auth_header_encrypted)


@require_GET
@login_required
@vary_on_headers("HX-Request")
def servers(request: HtmxHttpRequest) -> HttpResponse:
    team, membership = _team_and_membership(request)
    return render(request, LIST, _page_context(team, membership, rows=server_rows(team)))


# --- adding and editing ------------------------------------------------------------------------------------------


def _editing(request: HtmxHttpRequest, pk: int | None) -> Editing:
    team, membership = _team_and_membership(request)
    instance = _team_server(team, pk) if pk is not None else None
    member = _require_editor(membership)
    source = request.POST if request.method == "POST" else request.GET
    data = request.POST if request.method == "POST" else None
    form = MCPServerForm(
        data, team=team, transport=source.get("transport", ""), is_owner=member.is_owner, instance=instance
    )
    unreadable = instance is not None and _unreadable(instance)
    context = _page_context(
        team, membership, form=form, instance=instance, transports=TRANSPORTS, unreadable=unreadable
    )
    editing = Editing(form, context)
    if data is not None and form.is_valid():
        editing.server = form.apply(created_by=request.user)
    return editing


def _form_page(request: HtmxHttpRequest, editing: Editing, **extra: Any) -> HttpResponse:
    return render(request, FORM, {**editing.context, **extra})


def _store(server: MCPServer, tools: list[RemoteTool] | None) -> SyncReport | None:
    """Save the server and, when it answered, import its tools, all or nothing; None when it was saved without
    connecting."""
    with transaction.atomic():
        server.save()
        return apply_listing(server, tools) if tools is not None else None


def _saved(request: HtmxHttpRequest, server: MCPServer, verb: str, report: SyncReport | None) -> HttpResponse:
    if report is None:
        messages.warning(request, f"{verb} {server.name} without connecting: sync it once the server answers.")
        return redirect("mcp-servers")
    summary = summarize(report)
    if verb == "Added":
        count = len(report.created)
        messages.success(request, f"Added {server.name} and imported {count} tool{'s' if count != 1 else ''}.")
    else:
        done = ", ".join(f"{len(names)} {label}" for label, names in summary.parts) or "no tool changed"
        messages.success(request, f"{verb} {server.name}: {done}.")
    for name, why in summary.refused:
        messages.warning(request, f"{server.name}: the tool {name} was not imported. {why}")
    return redirect("mcp-servers")


async def _save_form(request: HtmxHttpRequest, pk: int | None) -> HttpResponse:
    editing = await sync_to_async(_editing)(request, pk)
    server = editing.server
    if request.method != "POST" or server is None:
        return await sync_to_async(_form_page)(request, editing)
    verb = "Saved" if pk is not None else "Added"
    tools = None
    if not editing.form.cleaned_data["save_anyway"]:
        try:
            # Connect before storing anything: a wrong URL or auth header is reported while the form is on screen.
            tools = (await list_tools(server)).tools
        except MCPFailure as exc:
            logger.info("MCP server for team %s not saved: it could not be listed", server.team_id)
            return await sync_to_async(_form_page)(request, editing, connection_error=str(exc))
    try:
        report = await sync_to_async(_store)(server, tools)
    except IntegrityError:
        # Another request took the name while this one was connecting.
        editing.form.add_error("name", "This team already has an MCP server with that name.")
        return await sync_to_async(_form_page)(request, editing)
    logger.info("MCP server %s %s by %s", server.pk, verb.lower(), request.user.pk)
    return await sync_to_async(_saved)(request, server, verb, report)


@sensitive_post_parameters(*SECRET_FIELDS)
@require_http_methods(["GET", "POST"])
@login_required
async def create_server(request: HtmxHttpRequest) -> HttpResponse:
    # Async, so a slow or dead server holds only this request, not the thread every sync view shares.
    return await _save_form(request, None)


@sensitive_post_parameters(*SECRET_FIELDS)
@require_http_methods(["GET", "POST"])
@login_required
async def edit_server(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return await _save_form(request, pk)


# --- syncing and deleting ----------------------------------------------------------------------------------------


def _server_to_change(request: HtmxHttpRequest, pk: int) -> tuple[MCPServer, dict[str, Any]]:
    team, membership = _team_and_membership(request)
    server = _team_server(team, pk)
    _require_editor(membership)
    return server, _page_context(team, membership)


@require_POST
@login_required
async def sync(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    server, context = await sync_to_async(_server_to_change)(request, pk)
    report = await sync_server(server)
    logger.info("MCP server %s synced by %s: %s", server.pk, request.user.pk, "failed" if report.error else "ok")
    return await sync_to_async(_sync_response)(request, server, report, context)


def _sync_response(
    request: HtmxHttpRequest, server: MCPServer, report: SyncReport, context: dict[str, Any]
) -> HttpResponse:
    server.refresh_from_db()  # last_synced_at and last_error as the sync left them
    summary = summarize(report)
    if request.htmx:
        return render(request, f"{LIST}#server", {**context, "row": server_row(server), "summary": summary})
    if summary.error:
        messages.error(request, f"{server.name}: {summary.error}")
    else:
        return _saved(request, server, "Synced", report)
    return redirect("mcp-servers")


@require_POST
@login_required
def delete(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    team, membership = _team_and_membership(request)
    server = _team_server(team, pk)
    _require_editor(membership)
    name = server.name
    # By default the tools stay (unanswerable) so nothing else of the library goes with the server; saved
    # conversations keep their own copies either way.
    with_tools = request.POST.get("with_tools") == "1"
    removed_tools = Tool.objects.filter(mcp_server=server).delete()[0] if with_tools else 0
    server.delete()
    logger.info("MCP server %s deleted by %s (%s tools with it)", pk, request.user.pk, removed_tools)
    if request.htmx and not with_tools:
        return HttpResponse("")  # the row's <tbody> is the target: an empty body removes it
    tools = f" and its {removed_tools} tool{'s' if removed_tools != 1 else ''}" if with_tools else ""
    messages.success(request, f"Deleted {name}{tools}.")
    return redirect("mcp-servers")
