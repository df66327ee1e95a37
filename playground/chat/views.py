"""The playground pages: a conversation with its settings, transcript and panes; htmx partials of the last two."""

from __future__ import annotations

import json
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from playground.chat.options import ChatOptions, changed_parameters, parse_options
from playground.chat.registry import REGISTRY
from playground.chat.service import TurnRefused, resume_turn, visible_endpoints
from playground.compare.models import Comparison, ComparisonRun
from playground.compare.replay import ComparisonLink, comparison_links, replay_points
from playground.conversations.access import member_conversation
from playground.conversations.models import RETRY_STATUSES, Conversation
from playground.conversations.pane_views import round_trip_part
from playground.conversations.panes import PaneLinks, light_round_trips, page_round_trips
from playground.conversations.present import number_of, transcript, with_failures
from playground.teams.access import follow_team, get_current_team, may_edit
from playground.tools.images import human_size
from playground.tools.models import Tool


def _get_conversation_for_user(request: HttpRequest, pk: int) -> tuple[Conversation, bool]:
    return member_conversation(request.user, pk)  # type: ignore[arg-type]


def _editable(request: HttpRequest, pk: int) -> Conversation:
    conversation, can_edit = _get_conversation_for_user(request, pk)
    if not can_edit:
        raise PermissionDenied("Viewers can read this conversation's settings but not change them.")
    return conversation


def _keep_settings(conversation: Conversation, settings: dict[str, Any]) -> None:
    conversation.settings = settings
    conversation.save(update_fields=["settings", "updated_at"])  # the latest: the one a new chat copies


def _default_options(request: HttpRequest, team: Any) -> dict[str, Any]:
    """A new chat starts from the settings of the user's last one, else the simulator and every team tool."""
    previous = _own_chats(team, request.user).exclude(settings={}).first()
    if previous is not None:
        return dict(previous.settings)
    return _first_chat_options(team)


def _own_chats(team: Any, user: Any) -> QuerySet[Conversation]:
    """The person's own chats, newest first: not the conversations Compare made for its columns and replays, whose
    settings are a comparison's and whose empty repeats are not drafts to type into."""
    made = ComparisonRun.objects.filter(Q(comparison__kind=Comparison.Kind.COMPARE) | Q(position__gt=0))
    return Conversation.objects.filter(team=team, created_by=user).exclude(pk__in=made.values("conversation_id"))


def _first_chat_options(team: Any) -> dict[str, Any]:
    """What a person's first chat starts from: the OpenAI-format simulator, its default model, every team tool."""
    endpoint = visible_endpoints(team).filter(team__isnull=True, format="openai-chat").first()
    tools = list(Tool.objects.filter(team=team).values_list("name", flat=True))
    model = endpoint.default_model if endpoint else ""
    return ChatOptions(endpoint_id=endpoint.pk if endpoint else 0, model=model, tools=tools).to_dict()


VIEWER_NOTICE = "You are a viewer in {team}: you can read its conversations but not start one."


@require_GET
@login_required
def playground(request: HttpRequest) -> HttpResponse:
    """The latest empty chat of this user, or a new one: the playground always opens ready to type. A viewer, who
    cannot run chats, gets the team's conversations instead (and no draft row is made for them)."""
    team = get_current_team(request)
    if not may_edit(request.user, team):  # type: ignore[arg-type]
        messages.info(request, VIEWER_NOTICE.format(team=team.name))
        return redirect("conversations")
    draft = _own_chats(team, request.user).filter(messages__isnull=True).first()
    if draft is None:
        draft = Conversation.objects.create(
            team=team, created_by=request.user, settings=_default_options(request, team)
        )
    return redirect("chat", pk=draft.pk)


@require_POST
@login_required
def new_chat(request: HttpRequest) -> HttpResponse:
    team = get_current_team(request)
    if not may_edit(request.user, team):  # type: ignore[arg-type]
        raise PermissionDenied(VIEWER_NOTICE.format(team=team.name))
    conversation = Conversation.objects.create(
        team=team, created_by=request.user, settings=_default_options(request, team)
    )
    return redirect("chat", pk=conversation.pk)


def _context(request: HttpRequest, conversation: Conversation, can_edit: bool) -> dict[str, Any]:
    saved = list(conversation.messages.order_by("position"))
    round_trips = list(light_round_trips(conversation))
    options = {**ChatOptions(endpoint_id=0, model="").to_dict(), **(conversation.settings or {})}
    endpoints = list(visible_endpoints(conversation.team))
    comparisons = comparison_links(conversation)
    team_tools = list(Tool.objects.select_related("mcp_server").filter(team=conversation.team))
    return {
        "section": "playground",
        "conversation": conversation,
        "can_edit": can_edit,
        "running": REGISTRY.is_running(conversation.pk),
        "can_retry": conversation.status in RETRY_STATUSES,
        "retry_statuses": " ".join(RETRY_STATUSES),
        "options": options,
        "options_changed": changed_parameters(options),
        "endpoints": endpoints,
        # A saved chat whose endpoint is not here (imported from elsewhere, or deleted): no other one is preselected.
        "endpoint_missing": bool(saved) and all(e.pk != options["endpoint_id"] for e in endpoints),
        # Replay on…'s model to start from: this chat's, or (a new chat has none yet) the first endpoint's default.
        "replay_model": conversation.model or (endpoints[0].default_model if endpoints else ""),
        "team_tools": team_tools,
        "hint_tool": _hint_tool(team_tools),
        "transcript_messages": with_failures(
            transcript(conversation, saved, {rt.pk: rt for rt in round_trips}), saved, round_trips
        ),
        "message_count": len(saved),
        "round_trips": page_round_trips(conversation, PaneLinks(conversation.pk)),
        "max_message_bytes": settings.CROSSWIRE_MAX_MESSAGE_BYTES,
        "max_image_bytes": settings.CROSSWIRE_MAX_IMAGE_BYTES,
        "max_image_label": human_size(settings.CROSSWIRE_MAX_IMAGE_BYTES),
        "max_images": settings.CROSSWIRE_MAX_IMAGES,
        "replay_points": replay_points(conversation),
        "comparisons": comparisons,
        "composer_text": _unsent_column_text(saved, comparisons),
        "forked_at_number": _forked_at_number(conversation),
    }


def _hint_tool(team_tools: list[Tool]) -> str:
    """The empty chat's example call: the demo's weather tool where the team has it, else one of its own."""
    names = [t.name for t in team_tools]
    return "get_weather" if "get_weather" in names else next(iter(names), "")


def _forked_at_number(conversation: Conversation) -> int | None:
    if conversation.forked_from_id is None or conversation.forked_at is None:
        return None
    return number_of(conversation.forked_from_id, conversation.forked_at)


def _unsent_column_text(saved: list[Any], comparisons: list[ComparisonLink]) -> str:
    """A Compare column that never ran (refused at its start, or its repeat not run) opens with the comparison's
    message in the composer: Continue in playground then means sending it, not typing it again."""
    return "" if saved else next((c.text for c in comparisons if c.kind == Comparison.Kind.COMPARE), "")


@require_GET
@login_required
def chat(request: HttpRequest, pk: int) -> HttpResponse:
    conversation, can_edit = _get_conversation_for_user(request, pk)
    follow_team(request, conversation.team)
    return render(request, "chat/page.html", _context(request, conversation, can_edit))


@require_GET
@login_required
def transcript_partial(request: HttpRequest, pk: int) -> HttpResponse:
    conversation, can_edit = _get_conversation_for_user(request, pk)
    return render(request, "chat/page.html#transcript", _context(request, conversation, can_edit))


@require_GET
@login_required
def panes_partial(request: HttpRequest, pk: int) -> HttpResponse:
    conversation, can_edit = _get_conversation_for_user(request, pk)
    return render(request, "chat/page.html#panes", _context(request, conversation, can_edit))


@require_POST
@login_required
async def retry(request: HttpRequest, pk: int) -> HttpResponse:
    """Retry from here, as a plain form: the run starts in this process and the page opens on it."""
    conversation, can_edit = await sync_to_async(_get_conversation_for_user)(request, pk)
    if not can_edit:
        raise PermissionDenied("Viewers can read this conversation but not run it.")
    try:
        await resume_turn(conversation=conversation, user=request.user, current_settings=True)
    except TurnRefused as exc:
        await sync_to_async(messages.error)(request, str(exc))
    else:
        await sync_to_async(messages.success)(request, "Retrying from the last complete message.")
    return redirect("chat", pk=pk)


@require_POST
@login_required
def save_settings(request: HttpRequest, pk: int) -> HttpResponse:
    """The settings as the person leaves them, saved as they change and not only with the next message: a new chat
    copies the last one's, so a box unticked and never sent with must not come back. Checked by the chat's rules; a
    form caught half-typed (an empty model) is not saved and the last valid settings stay. That is an answer, not a
    failed request (``saved: false``): the page saves in the background, and the next message says what is wrong."""
    conversation = _editable(request, pk)
    try:
        payload = json.loads(request.body or b"{}")
    except ValueError:
        payload = None
    options, problems = parse_options(payload) if isinstance(payload, dict) else (None, {"": ["Send the settings."]})
    if options is None:
        return JsonResponse({"saved": False, "errors": problems})
    _keep_settings(conversation, options.to_dict())
    return JsonResponse({"saved": True, "changed": changed_parameters(conversation.settings)})


@require_POST
@login_required
def reset_settings(request: HttpRequest, pk: int) -> HttpResponse:
    """Back to a first chat's settings: a new chat copies the last one's, so what was set once stays until reset."""
    conversation = _editable(request, pk)
    _keep_settings(conversation, _first_chat_options(conversation.team))
    messages.success(request, "Settings reset to a first chat's: the next new chat starts from them too.")
    return redirect("chat", pk=pk)


@require_GET
@login_required
def wire_events_partial(request: HttpRequest, pk: int, position: int) -> HttpResponse:
    """The raw events of one round trip, asked for from its pane when there were too many to send with the page."""
    conversation, _ = _get_conversation_for_user(request, pk)
    return round_trip_part(request, conversation, position, "events", PaneLinks(pk), public=False)


@require_GET
@login_required
def round_trip_partial(request: HttpRequest, pk: int, position: int) -> HttpResponse:
    """A folded round trip's whole panes, asked for when it is unfolded."""
    conversation, _ = _get_conversation_for_user(request, pk)
    return round_trip_part(request, conversation, position, "panes", PaneLinks(pk), public=False)


@require_GET
@login_required
def round_trip_copy(request: HttpRequest, pk: int, position: int, kind: str) -> HttpResponse:
    """A round trip's wire request as a curl command or a Python script, as plain text for the clipboard."""
    conversation, _ = _get_conversation_for_user(request, pk)
    return round_trip_part(request, conversation, position, kind, PaneLinks(pk), public=False)
