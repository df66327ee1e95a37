"""The Tools page: the current team's tool library, and the editor. Editors and owners change it; viewers read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from playground.teams import access
from playground.tools.builtins import BUILTINS
from playground.tools.forms import SCHEMA_TEMPLATES, ToolForm, name_problems, unique_name
from playground.tools.models import HAND_SET_MODES, Tool
from playground.tools.portability import TargetView, refusing, tool_portability
from playground.tools.schema import Problem, portability

if TYPE_CHECKING:
    from django.http import HttpRequest
    from django_htmx.middleware import HtmxDetails

    from playground.teams.models import Membership, Team

    class HtmxHttpRequest(HttpRequest):
        htmx: HtmxDetails


# --- access ------------------------------------------------------------------------------------------------------


def current_membership(request: HtmxHttpRequest) -> tuple[Team, Membership | None]:
    team = access.get_current_team(request)
    return team, access.membership_for(request.user, team)


def editable_team(request: HtmxHttpRequest) -> Team:
    """The current team, when this user may change its tools; viewers get a 403."""
    team, membership = current_membership(request)
    if membership is None or not membership.can_edit:
        raise PermissionDenied("Viewers cannot change the team's tools.")
    return team


def team_tool(team: Team, pk: int) -> Tool:
    # Scoped to the current team: another team's tool is a 404, not a 403, so ids reveal nothing.
    return get_object_or_404(Tool, pk=pk, team=team)


# --- the list ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolRow:
    tool: Tool
    summary: str
    warnings: list[Problem]
    targets: list[TargetView]

    @property
    def warnings_text(self) -> str:
        return "\n".join(str(p) for p in self.warnings)

    @property
    def refused_by(self) -> str:
        return refusing(self.targets)


def tool_rows(team: Team) -> list[ToolRow]:
    rows = []
    for tool in team.tools.select_related("mcp_server"):  # the list names each MCP tool's server
        summary = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
        targets = tool_portability(tool.parameters, name=tool.name, description=tool.description, strict=tool.strict)
        rows.append(ToolRow(tool, summary, portability(tool.parameters, strict=tool.strict), targets))
    return rows


def _list_context(request: HtmxHttpRequest, **extra: Any) -> dict[str, Any]:
    team, membership = current_membership(request)
    return {
        "section": "tools",
        "team": team,
        "can_edit": bool(membership and membership.can_edit),
        "rows": tool_rows(team),
        **extra,
    }


def _after_list_change(request: HtmxHttpRequest, notice: str) -> HttpResponse:
    """htmx gets the list section back; a plain form post a redirect with a flash message."""
    if request.htmx:
        return render(request, "tools/list.html#tool_list", _list_context(request, notice=notice))
    messages.success(request, notice)
    return redirect("tools")


@require_GET
@login_required
@vary_on_headers("HX-Request")
def tool_list(request: HtmxHttpRequest) -> HttpResponse:
    template = "tools/list.html#tool_list" if request.htmx else "tools/list.html"
    return render(request, template, _list_context(request))


@require_POST
@login_required
def tool_duplicate(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    team = editable_team(request)
    original = team_tool(team, pk)
    taken = set(team.tools.values_list("name", flat=True))
    copy = Tool.objects.get(pk=original.pk)
    copy.pk = None
    copy.name = unique_name(original.name, taken, suffix="_copy")
    copy.save()
    return _after_list_change(request, f"Duplicated {original.name} as {copy.name}.")


@require_POST
@login_required
def tool_delete(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    tool = team_tool(editable_team(request), pk)
    # Conversations keep their own snapshots of the tools they used, so deleting changes no history.
    tool.delete()
    return _after_list_change(request, f"Deleted {tool.name}.")


# --- the editor --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NameCheck:
    problems: list[str]
    ok: bool


def name_check(team: Team, name: str, tool: Tool | None) -> NameCheck:
    """Nothing to say about an empty field until a save is attempted; then the same words as the form."""
    name = name.strip()
    if not name:
        return NameCheck([], False)
    problems = name_problems(team, name, exclude_pk=tool.pk if tool else None)
    return NameCheck(problems, not problems)


def editor_context(
    request: HtmxHttpRequest, form: ToolForm, *, tool: Tool | None = None, readonly: bool = False
) -> dict[str, Any]:
    typed_name = form["name"].value() or ""
    check = name_check(form.team, typed_name, tool) if form.is_bound else NameCheck([], False)
    if form.is_bound and form.errors.get("name") and not check.problems:
        check = NameCheck(list(form.errors["name"]), False)
    builtin = BUILTINS.get(form["builtin"].value() or "")
    strict = bool(form["strict"].value())
    targets = portability_of(form.report.schema, form["name"].value(), form["description"].value(), strict)
    return {
        "section": "tools",
        "form": form,
        "tool": tool,
        "readonly": readonly,
        "report": form.report,
        "portability": targets,
        "refused_by": refusing(targets),
        "name_check": check,
        "rules": form.rules,
        "next_rule_index": max((r.index for r in form.rules), default=-1) + 1,
        "rule_template": {"index": "__index__"},  # the <template> row tools.js copies
        "modes": HAND_SET_MODES,
        "builtins": BUILTINS.values(),
        "builtin": builtin,
        "templates": SCHEMA_TEMPLATES.values(),
        "example": request.POST.get("example", ""),  # kept across a refused save like every other field
    }


def portability_of(schema: Any, name: Any, description: Any, strict: bool) -> list[TargetView] | None:
    """Where a schema travels, once it is valid (None before: there is nothing to translate yet)."""
    if schema is None:
        return None
    return tool_portability(schema, name=str(name or ""), description=str(description or ""), strict=strict)


def _save(request: HtmxHttpRequest, form: ToolForm, tool: Tool | None) -> HttpResponse:
    """Saves a valid form; an invalid one comes back with every character the user typed (422)."""
    if form.is_valid():
        try:
            with transaction.atomic():
                saved = form.save()
        except IntegrityError:
            # Another editor took the name between the check and the save.
            form.add_error("name", f"The team already has a tool called {form.cleaned_data['name']!r}.")
        else:
            messages.success(request, f"Saved {saved.name}.")
            return redirect("tools")
    return render(request, "tools/editor.html", editor_context(request, form, tool=tool), status=422)


@require_http_methods(["GET", "POST"])
@login_required
def tool_new(request: HtmxHttpRequest) -> HttpResponse:
    team = editable_team(request)
    if request.method == "POST":
        return _save(request, ToolForm(request.POST, team=team), None)
    return render(request, "tools/editor.html", editor_context(request, ToolForm(team=team)))


@require_http_methods(["GET", "POST"])
@login_required
def tool_edit(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    team, membership = current_membership(request)
    tool = team_tool(team, pk)
    if request.method == "POST":
        team = editable_team(request)
        if tool.mode == Tool.Mode.MCP:
            # Its definition is the server's: saving it here would fork it from the server, or lose its answerer.
            raise PermissionDenied("An MCP tool is defined by its server: change it there, then sync the server.")
        return _save(request, ToolForm(request.POST, team=team, instance=tool), tool)
    readonly = membership is None or not membership.can_edit or tool.mode == Tool.Mode.MCP
    form = ToolForm(team=team, instance=tool)
    return render(request, "tools/editor.html", editor_context(request, form, tool=tool, readonly=readonly))
