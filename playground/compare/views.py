"""The Compare pages: the form that starts a comparison, a comparison's live columns, and its htmx partials."""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from playground.chat.registry import send_control
from playground.chat.service import TurnRefused, resume_turn, visible_endpoints
from playground.compare import forms, pages
from playground.compare.models import Comparison
from playground.compare.replay import create_replay, replay_points
from playground.compare.service import (
    MAX_COLUMNS,
    MAX_REPEAT,
    CompareRefused,
    create_comparison,
    parse_plan,
    start_comparison,
    stop_column,
)
from playground.conversations.access import member_conversation
from playground.conversations.models import Conversation
from playground.teams.access import follow_team, get_current_team, membership_for
from playground.tools.models import Tool


def _builder_context(request: HttpRequest, **extra: Any) -> dict[str, Any]:
    team = get_current_team(request)
    membership = membership_for(request.user, team)  # type: ignore[arg-type]
    endpoints = list(visible_endpoints(team))
    return {
        "section": "compare",
        "team": team,
        "can_edit": bool(membership and membership.can_edit),
        "endpoints": endpoints,
        "team_tools": list(Tool.objects.select_related("mcp_server").filter(team=team)),
        "comparisons": list(Comparison.objects.filter(team=team).select_related("created_by")[:50]),
        "max_columns": MAX_COLUMNS,
        "max_repeat": MAX_REPEAT,
        **extra,
    }


def _defaults(request: HttpRequest, context: dict[str, Any]) -> dict[str, Any]:
    """The form's values: those of the comparison named by ?from= (Run again), else the three simulator dialects."""
    source = Comparison.objects.filter(team=context["team"], pk=request.GET.get("from") or 0).first()
    if source is not None:
        columns = source.settings.get("columns") or _columns_of(source)  # a replay saved no form: its runs say
        return {**source.settings, "columns": columns, "repeat": source.repeat}
    tools = [t.name for t in context["team_tools"] if t.name in ("get_weather", "calculator")]
    return {
        "text": "What's the weather in Paris and Tokyo?",
        "tools": tools or [t.name for t in context["team_tools"]],
        "tool_choice": "auto",
        "parallel_tool_calls": True,
        "repeat": 1,
        "columns": forms.initial_columns(context["endpoints"]),
    }


def _columns_of(comparison: Comparison) -> list[dict[str, Any]]:
    runs = comparison.runs.filter(repeat=0).select_related("conversation").order_by("position")
    return [
        {"endpoint_id": run.conversation.endpoint_id, "model": run.conversation.model, "max_tokens": 1024}
        for run in runs
    ]


@require_GET
@login_required
def compare(request: HttpRequest) -> HttpResponse:
    context = _builder_context(request)
    return render(request, "compare/page.html", {**context, "form": _defaults(request, context), "errors": {}})


@require_POST
@login_required
async def compare_run(request: HttpRequest) -> HttpResponse:
    """Run all: save the comparison and its conversations, start every column, open the comparison."""
    context = await sync_to_async(_builder_context)(request)
    if not context["can_edit"]:
        raise PermissionDenied("Viewers can read comparisons but not run them.")
    shared, columns = forms.posted_shared(request.POST), forms.posted_columns(request.POST)
    try:
        plan = parse_plan(shared, columns, request.POST.get("repeat"))
        comparison = await sync_to_async(create_comparison)(context["team"], request.user, plan)
    except CompareRefused as refused:
        form = {**shared, "columns": columns, "repeat": request.POST.get("repeat")}
        page = {**context, "form": form, "errors": refused.errors}
        return await sync_to_async(render)(request, "compare/page.html", page, status=400)
    start_comparison(comparison.pk, request.user)
    return redirect("comparison", pk=comparison.pk)


def _comparison_for(request: HttpRequest, pk: int) -> tuple[Comparison, bool]:
    comparison = Comparison.objects.filter(pk=pk).select_related("team", "created_by").first()
    membership = membership_for(request.user, comparison.team) if comparison else None  # type: ignore[arg-type]
    if comparison is None or membership is None:
        raise Http404("No such comparison.")
    return comparison, membership.can_edit


@require_GET
@login_required
def comparison_page(request: HttpRequest, pk: int) -> HttpResponse:
    comparison, can_edit = _comparison_for(request, pk)
    follow_team(request, comparison.team)
    return render(request, "compare/comparison.html", pages.comparison_context(comparison, can_edit, request.GET))


@require_GET
@login_required
def summary_partial(request: HttpRequest, pk: int) -> HttpResponse:
    comparison, can_edit = _comparison_for(request, pk)
    context = pages.comparison_context(comparison, can_edit, request.GET)
    return render(request, "compare/comparison.html#results", context)


@require_GET
@login_required
def column_partial(request: HttpRequest, pk: int, position: int) -> HttpResponse:
    comparison, can_edit = _comparison_for(request, pk)
    column = pages.column_view(comparison, position)
    if column is None:
        raise Http404("No such column.")
    return render(request, "compare/_column_body.html", {"column": column, "can_edit": can_edit})


@require_GET
@login_required
def diff_partial(request: HttpRequest, pk: int) -> HttpResponse:
    comparison, _ = _comparison_for(request, pk)
    return render(request, "compare/_diff.html", pages.diff_context(comparison, request.GET))


@require_POST
@login_required
async def stop_all(request: HttpRequest, pk: int) -> HttpResponse:
    comparison, can_edit = await sync_to_async(_comparison_for)(request, pk)
    if not can_edit:
        raise PermissionDenied("Viewers can read comparisons but not run them.")
    busy = Conversation.objects.filter(
        comparison_runs__comparison=comparison,
        status__in=[Conversation.Status.RUNNING, Conversation.Status.WAITING],
    )
    async for conversation_id in busy.values_list("pk", flat=True):
        await send_control(conversation_id, {"type": "stop"})
    await _stop_repeats(comparison)
    return redirect("comparison", pk=pk)


@require_POST
@login_required
async def column_stop(request: HttpRequest, pk: int, position: int) -> HttpResponse:
    """A column's Stop, for whichever of its repeats is running: its first run's socket only reaches the first."""
    comparison, can_edit = await sync_to_async(_comparison_for)(request, pk)
    if not can_edit:
        raise PermissionDenied("Viewers can read comparisons but not run them.")
    await stop_column(comparison.pk, position)
    return HttpResponse(status=204)


async def _stop_repeats(comparison: Comparison) -> None:
    """Repeats not started yet will not start: they are marked stopped, as their column's Stop would leave them."""
    await Conversation.objects.filter(
        comparison_runs__comparison=comparison, status=Conversation.Status.IDLE, messages__isnull=True
    ).aupdate(status=Conversation.Status.STOPPED, status_message="Stopped before it started.")


@require_POST
@login_required
async def replay(request: HttpRequest, conversation_pk: int) -> HttpResponse:
    """Replay on…: copy the history up to the chosen message, run it on the other endpoint, open both side by side."""
    original, can_edit = await sync_to_async(_conversation_for)(request, conversation_pk)
    if not can_edit:
        raise PermissionDenied("Viewers can read conversations but not replay them.")
    try:
        comparison, replayed = await sync_to_async(create_replay)(
            original,
            request.user,
            endpoint_id=_int(request.POST.get("endpoint_id")),
            model=request.POST.get("model", ""),
            from_position=_int(request.POST.get("from_position")),
        )
        await resume_turn(conversation=replayed, user=request.user)
    except (CompareRefused, TurnRefused) as refused:
        await sync_to_async(messages.error)(request, f"Could not replay: {refused}")
        return redirect("chat", pk=conversation_pk)
    return redirect("comparison", pk=comparison.pk)


@require_GET
@login_required
def replay_menu(request: HttpRequest, conversation_pk: int) -> HttpResponse:
    """Replay on…'s messages, fetched when it opens: the page may have run its first turn since it loaded."""
    conversation, can_edit = _conversation_for(request, conversation_pk)
    if not can_edit:
        raise PermissionDenied("Viewers can read conversations but not replay them.")
    return render(request, "compare/_replay_points.html", {"replay_points": replay_points(conversation)})


def _conversation_for(request: HttpRequest, pk: int) -> tuple[Conversation, bool]:
    return member_conversation(request.user, pk)  # type: ignore[arg-type]


def _int(value: str | None) -> int:
    return int(value) if value and value.isdigit() else -1
