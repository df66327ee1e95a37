"""The Providers page: the endpoints a team can use, and adding, editing, testing and deleting its own.

Everyone in the team reads the list; editors and owners change it; only owners set custom base URLs. API keys go
in and never come out: no view renders, returns or logs one, and the POST views hide them from error reports.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import F, Q, QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from playground.endpoints import checks, crypto, policy
from playground.endpoints.forms import KINDS, PRESETS, PRESETS_BY_KEY, EndpointForm, spec_for
from playground.endpoints.models import Endpoint
from playground.teams import access
from playground.teams.models import Membership, Team
from providers.formats import FORMATS

if TYPE_CHECKING:
    from django.http import HttpRequest
    from django_htmx.middleware import HtmxDetails

    class HtmxHttpRequest(HttpRequest):
        htmx: HtmxDetails


logger = logging.getLogger(__name__)

LIST = "endpoints/list.html"
FORM = "endpoints/form.html"


def _team_and_membership(request: HtmxHttpRequest) -> tuple[Team, Membership | None]:
    team = access.get_current_team(request)
    return team, access.membership_for(request.user, team)


def _require_editor(membership: Membership | None) -> Membership:
    if membership is None or not membership.can_edit:
        raise PermissionDenied("Viewers cannot change the team's endpoints.")
    return membership


def visible_endpoints(team: Team) -> QuerySet[Endpoint]:
    """The team's own endpoints and the built-in ones every team sees."""
    return Endpoint.objects.filter(Q(team=team) | Q(team__isnull=True)).order_by(
        F("team_id").asc(nulls_first=True), "name"
    )


def _editable_endpoint(team: Team, pk: int) -> Endpoint:
    endpoint = get_object_or_404(visible_endpoints(team), pk=pk)
    if endpoint.team_id is None:
        raise PermissionDenied("The built-in simulator endpoints cannot be changed.")
    return endpoint


def _unreadable_keys(endpoints: list[Endpoint]) -> set[int]:
    """Endpoints whose stored key no longer decrypts (CROSSWIRE_ENCRYPTION_KEY changed): they need it again."""
    return {e.pk for e in endpoints if e.api_key_encrypted and not crypto.decrypt(e.api_key_encrypted)}


def _page_context(team: Team, membership: Membership | None, **extra: Any) -> dict[str, Any]:
    allowed = settings.CROSSWIRE_ALLOWED_BASE_URLS
    return {
        "section": "providers",
        "team": team,
        "membership": membership,
        "can_edit": membership is not None and membership.can_edit,
        "is_owner": membership is not None and membership.is_owner,
        "allowed_base_urls": allowed,
        "any_base_url": "*" in allowed,
        "simulator_url": settings.CROSSWIRE_SIMULATOR_URL,
        "simulator_formats": list(FORMATS),  # the simulator serves every wire format there is
        **extra,
    }


@require_GET
@login_required
@vary_on_headers("HX-Request")
def providers(request: HtmxHttpRequest) -> HttpResponse:
    team, membership = _team_and_membership(request)
    endpoints = list(visible_endpoints(team))
    own_count = sum(1 for endpoint in endpoints if endpoint.team_id is not None)
    context = _page_context(
        team, membership, endpoints=endpoints, own_count=own_count, unreadable=_unreadable_keys(endpoints)
    )
    return render(request, LIST, context)


def _form_page(
    request: HtmxHttpRequest, form: EndpointForm, team: Team, membership: Membership | None, preset: str = ""
) -> HttpResponse:
    context = _page_context(
        team,
        membership,
        form=form,
        spec=form.spec,
        endpoint=form.instance,
        kinds=KINDS.values(),
        presets=PRESETS,
        preset=preset,
    )
    return render(request, FORM, context)


def _saved(request: HtmxHttpRequest, form: EndpointForm, verb: str) -> HttpResponse:
    endpoint = form.instance
    messages.success(request, f"{verb} {endpoint.name}." if endpoint else f"{verb}.")
    for warning in form.warnings:
        messages.warning(request, warning)
    return redirect("providers")


@sensitive_post_parameters("api_key")
@require_http_methods(["GET", "POST"])
@login_required
def create_endpoint(request: HtmxHttpRequest) -> HttpResponse:
    team, membership = _team_and_membership(request)
    member = _require_editor(membership)
    source = request.POST if request.method == "POST" else request.GET
    spec = KINDS.get(source.get("kind", ""), KINDS[Endpoint.Kind.OPENAI])
    if request.method == "POST":
        form = EndpointForm(request.POST, spec=spec, team=team, is_owner=member.is_owner)
        if form.is_valid():
            form.instance = form.save(created_by=request.user)
            logger.info("endpoint %s added to team %s by %s", form.instance.pk, team.pk, request.user.pk)
            return _saved(request, form, "Added")
        return _form_page(request, form, team, membership)
    initial: dict[str, Any] = {"base_url": spec.default_url or "", "name": spec.label if spec.default_url else ""}
    preset = PRESETS_BY_KEY.get(request.GET.get("preset", ""))
    if preset is not None and spec.kind == Endpoint.Kind.COMPATIBLE:
        initial = {"name": preset.name, "base_url": preset.base_url}
    form = EndpointForm(spec=spec, team=team, is_owner=member.is_owner, initial=initial)
    return _form_page(request, form, team, membership, preset=preset.key if preset else "")


@sensitive_post_parameters("api_key")
@require_http_methods(["GET", "POST"])
@login_required
def edit_endpoint(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    team, membership = _team_and_membership(request)
    endpoint = _editable_endpoint(team, pk)
    member = _require_editor(membership)
    if request.method == "POST":
        spec = spec_for(endpoint)
        form = EndpointForm(request.POST, spec=spec, team=team, is_owner=member.is_owner, instance=endpoint)
        if form.is_valid():
            form.save()
            logger.info("endpoint %s edited by %s", endpoint.pk, request.user.pk)
            return _saved(request, form, "Saved")
        return _form_page(request, form, team, membership)
    form = EndpointForm(spec=spec_for(endpoint), team=team, is_owner=member.is_owner, instance=endpoint)
    return _form_page(request, form, team, membership)


@require_POST
@login_required
def delete_endpoint(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    team, membership = _team_and_membership(request)
    endpoint = _editable_endpoint(team, pk)
    _require_editor(membership)
    name = endpoint.name
    endpoint.delete()
    logger.info("endpoint %s deleted by %s", pk, request.user.pk)
    if request.htmx:
        # The row's <tbody> is the target: an empty body removes it.
        return HttpResponse("")
    messages.success(request, f"Deleted {name}.")
    return redirect("providers")


def _endpoint_to_run(request: HtmxHttpRequest, pk: int) -> tuple[Endpoint, dict[str, Any]]:
    """The endpoint a test or fetch may use, and the page context its fragments render with (runs a query each)."""
    team, membership = _team_and_membership(request)
    _require_editor(membership)
    endpoint = get_object_or_404(visible_endpoints(team), pk=pk)
    return endpoint, _page_context(team, membership)


@require_POST
@login_required
async def test_connection(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    # Async, so a slow or dead endpoint holds only this request, not the thread that every sync view shares.
    endpoint, context = await sync_to_async(_endpoint_to_run)(request, pk)
    result = await checks.check_connection(endpoint)
    logger.info("connection test of endpoint %s: %s", endpoint.pk, "ok" if result.ok else result.error_type)
    return await sync_to_async(_test_response)(request, endpoint, result, context)


def _test_response(
    request: HtmxHttpRequest, endpoint: Endpoint, result: checks.ConnectionResult, context: dict[str, Any]
) -> HttpResponse:
    if request.htmx:
        return render(request, f"{LIST}#test_result", {**context, "e": endpoint, "result": result})
    if result.ok:
        messages.success(request, f"{endpoint.name}: OK in {result.latency_ms} ms ({result.model}).")
    else:
        messages.error(request, f"{endpoint.name}: {result.error_type}: {result.message}")
    return redirect("providers")


UNSAVED_URL = "the base URL above has changed: save the endpoint, then fetch the models it lists."


@require_POST
@login_required
async def fetch_models(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    endpoint, context = await sync_to_async(_endpoint_to_run)(request, pk)
    if endpoint.team_id is None:
        raise PermissionDenied("The built-in simulator endpoints cannot be changed.")
    typed = policy.normalize_base_url(request.POST.get("base_url", ""))
    if typed and typed != policy.normalize_base_url(endpoint.base_url):
        # The edit form's URL, changed and not saved: fetching from the saved one would answer another question.
        result = checks.ModelsResult([], "Not saved", UNSAVED_URL)
    else:
        result = await checks.fetch_model_names(endpoint)
    if result.ok:
        await sync_to_async(_store_model_names)(endpoint, result.names)
    return await sync_to_async(_models_response)(request, endpoint, result, context)


def _store_model_names(endpoint: Endpoint, names: list[str]) -> None:
    endpoint.model_names = names
    if endpoint.default_model not in names:
        endpoint.default_model = names[0]
    endpoint.save(update_fields=["model_names", "default_model"])


def _models_response(
    request: HtmxHttpRequest, endpoint: Endpoint, result: checks.ModelsResult, context: dict[str, Any]
) -> HttpResponse:
    if result.ok:
        notice = f"Fetched {len(result.names)} model name{'s' if len(result.names) != 1 else ''}."
    else:
        notice = f"{result.error_type}: {result.message}"
    if request.htmx and request.htmx.target == "model-fields":
        # The edit page: its model fields come back filled with what is now stored.
        team = context["team"]
        form = EndpointForm(spec=spec_for(endpoint), team=team, is_owner=context["is_owner"], instance=endpoint)
        fragment = {**context, "form": form, "endpoint": endpoint, "models_result": result, "models_notice": notice}
        return render(request, f"{FORM}#model_fields", fragment)
    if request.htmx:
        row = {**context, "e": endpoint, "models_result": result, "models_notice": notice}
        return render(request, f"{LIST}#endpoint", row)
    (messages.success if result.ok else messages.error)(request, f"{endpoint.name}: {notice}")
    return redirect("providers")
