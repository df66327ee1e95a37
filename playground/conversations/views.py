"""The Conversations page: the team's saved chats, searched, filtered and paged through the URL."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from playground.conversations.search import SORTS, ListQuery, facets, search_conversations
from playground.conversations.search_index import index_stale
from playground.review.models import Verdict
from playground.teams.access import get_current_team


@require_GET
@login_required
def conversations(request: HttpRequest) -> HttpResponse:
    """Newest first by default; empty drafts are left out (they have nothing to search)."""
    team = get_current_team(request)
    index_stale(team.pk)
    query = ListQuery.from_get(request.GET)
    page = search_conversations(team.pk, query)
    context = {
        "section": "conversations",
        "page": page,
        "query": query,
        "facets": facets(team.pk),
        "sorts": SORTS,
        "verdict_kinds": Verdict.Kind.choices,
    }
    template = "conversations/list.html#results" if request.htmx else "conversations/list.html"  # type: ignore[attr-defined]
    return render(request, template, context)
