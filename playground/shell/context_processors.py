from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import HttpRequest

from playground.review.mentions import unseen_for
from playground.shell.navigation import OTHER_SHORTCUTS, SECTIONS
from playground.teams.access import get_current_team, may_edit, teams_for
from playground.teams.invitations import pending_for_user


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
        # What waits for this person, badged in the sidebar on every page: invitations (answered on the Team page)
        # and unseen mentions (the For you inbox). Read once per page, when the sidebar is drawn.
        context["waiting_for_you"] = lambda: WaitingForYou(pending_for_user(user).count(), unseen_for(user).count())
    return context


@dataclass(frozen=True)
class WaitingForYou:
    invitations: int
    mentions: int
