"""The Conversations page: the team's saved chats."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from playground.conversations.models import Conversation
from playground.teams.access import get_current_team


@require_GET
@login_required
def conversations(request: HttpRequest) -> HttpResponse:
    """The team's saved chats, newest first; empty drafts are left out."""
    team = get_current_team(request)
    query = request.GET.get("q", "").strip()
    rows = (
        Conversation.objects.filter(team=team, messages__isnull=False)
        .annotate(message_total=Count("messages", distinct=True), round_trip_total=Count("round_trips", distinct=True))
        .select_related("created_by")
        .order_by("-updated_at")
    )
    if query:
        rows = rows.filter(title__icontains=query)
    context = {"section": "conversations", "conversations": rows[:200], "query": query}
    return render(request, "conversations/list.html", context)
