"""The editor's htmx endpoints: live checks as the user types, and the buttons that fill in the schema.

None of them saves anything; they answer with fragments of ``tools/editor.html`` rendered from what was posted, so
the fields they re-render keep every character the user typed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import reswap, retarget

from playground.tools import limits
from playground.tools.builtins import BUILTINS
from playground.tools.forms import SCHEMA_TEMPLATES, ToolForm, pretty, schema_report
from playground.tools.portability import refusing
from playground.tools.schema import schema_from_example
from playground.tools.views import editable_team, editor_context, name_check, portability_of, team_tool
from providers.jsonsafe import JSONInputError

if TYPE_CHECKING:
    from playground.teams.models import Team
    from playground.tools.models import Tool
    from playground.tools.views import HtmxHttpRequest


def _posted_tool(request: HtmxHttpRequest, team: Team) -> Tool | None:
    """The tool being edited (the form's hidden ``tool_id``), so its own name does not count as taken."""
    pk = request.POST.get("tool_id", "")
    return team_tool(team, int(pk)) if pk.isdigit() else None


@require_POST
@login_required
def validate_name(request: HtmxHttpRequest) -> HttpResponse:
    team = editable_team(request)
    check = name_check(team, request.POST.get("name", ""), _posted_tool(request, team))
    return render(request, "tools/editor.html#name_feedback", {"name_check": check})


@require_POST
@login_required
def validate_schema(request: HtmxHttpRequest) -> HttpResponse:
    editable_team(request)
    strict = bool(request.POST.get("strict"))
    report = schema_report(request.POST.get("parameters", ""), strict=strict)
    # The form's other fields come along (htmx posts the whole form): the check uses the name and description too.
    targets = portability_of(report.schema, request.POST.get("name"), request.POST.get("description"), strict)
    response = render(request, "tools/editor.html#problems", {"report": report, "refused_by": refusing(targets)})
    context = {"portability": targets, "oob": True}
    response.write(render_to_string("tools/editor.html#portability", context, request=request))
    return response


def _definition(request: HtmxHttpRequest, team: Team, **overrides: str) -> HttpResponse:
    """The definition card re-rendered from the posted form, with some fields replaced."""
    data = request.POST.copy()
    for key, value in overrides.items():
        data[key] = value
    tool = _posted_tool(request, team)
    form = ToolForm(data, team=team, instance=tool)
    return render(request, "tools/editor.html#definition", editor_context(request, form, tool=tool))


@require_POST
@login_required
def fill_template(request: HtmxHttpRequest, key: str) -> HttpResponse:
    team = editable_team(request)
    template = SCHEMA_TEMPLATES.get(key)
    if template is None:
        raise Http404("No such template")
    return _definition(request, team, parameters=pretty(template.schema))


def _example_problem(request: HtmxHttpRequest, message: str) -> HttpResponse:
    # The editor stays as it is: the message goes next to the example instead.
    html = render_to_string("tools/editor.html#example_problems", {"example_error": message}, request=request)
    return reswap(retarget(HttpResponse(html), "#example-problems"), "outerHTML")


@require_POST
@login_required
def fill_example(request: HtmxHttpRequest) -> HttpResponse:
    team = editable_team(request)
    text = request.POST.get("example", "")
    if not text.strip():
        return _example_problem(request, "Paste the arguments of an example call, as a JSON object.")
    try:
        # The example becomes a schema, so it is held to the schema's size limit.
        example: Any = limits.read_json(text, what="The example", limit=limits.schema_bytes())
    except JSONInputError as exc:
        return _example_problem(request, str(exc))
    if not isinstance(example, dict):
        return _example_problem(request, "Example arguments must be a JSON object, like a tool call's arguments.")
    schema = schema_from_example(example)
    if too_deep := limits.depth_refusal(schema):
        # genson nests "properties" inside each object, so the schema is about twice as deep as the example.
        return _example_problem(request, f"The schema made from this example would be too deep. {too_deep}")
    response = _definition(request, team, parameters=pretty(schema))
    cleared = render_to_string("tools/editor.html#example_problems", {"oob": True}, request=request)
    response.write(cleared)
    return response


@require_POST
@login_required
def fill_builtin(request: HtmxHttpRequest) -> HttpResponse:
    team = editable_team(request)
    builtin = BUILTINS.get(request.POST.get("builtin", ""))
    if builtin is None:
        raise Http404("No such built-in")
    return _definition(
        request, team, name=builtin.name, description=builtin.description, parameters=pretty(builtin.parameters)
    )


@require_GET
@login_required
def builtin_offer(request: HtmxHttpRequest) -> HttpResponse:
    editable_team(request)
    builtin = BUILTINS.get(request.GET.get("builtin", ""))
    return render(request, "tools/editor.html#builtin_offer", {"builtin": builtin})
