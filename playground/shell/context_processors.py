from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest

from playground.shell.navigation import OTHER_SHORTCUTS, SECTIONS
from playground.teams.access import get_current_team, may_edit, teams_for


def shell(request: HttpRequest) -> dict[str, Any]:
    """What base.html needs on every page: sections, shortcuts and, when signed in, the current team."""
    context: dict[str, Any] = {
        "sections": SECTIONS,
        "other_shortcuts": OTHER_SHORTCUTS,
        "local_run": settings.DEBUG,
    }
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        team = context["current_team"] = get_current_team(request)
        context["user_teams"] = list(teams_for(user))
        # Whether this user may start chats and import in the current team (a viewer may not): read only by the
        # pages that show those actions, when they ask (a template calls a callable it is given).
        context["may_edit_team"] = lambda: may_edit(user, team)
    return context
