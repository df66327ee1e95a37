"""Teams and roles: who may see and change what. Views and consumers call these; they never touch Membership rows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from playground.teams.models import Membership, Role, Team

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser
    from django.db.models import QuerySet
    from django.http import HttpRequest

CURRENT_TEAM_SESSION_KEY = "crosswire_team_id"


class TeamError(Exception):
    """A refused team change; the message is shown to the user as is."""


def ensure_personal_team(user: AbstractBaseUser) -> Team:
    with transaction.atomic():
        team, created = Team.objects.get_or_create(
            personal_for=user, defaults={"name": f"{user.get_username()}'s team"}
        )
        if created:
            Membership.objects.create(user=user, team=team, role=Role.OWNER)
    return team


def teams_for(user: AbstractBaseUser) -> QuerySet[Team]:
    return Team.objects.filter(memberships__user=user)


def membership_for(user: AbstractBaseUser, team: Team) -> Membership | None:
    # One row or none (a person is a member of a team once): unordered. ``first()`` would order by the model's
    # ordering, a join on the user table, compiled in Python on every socket action.
    found = Membership.objects.filter(user=user, team=team).select_related("team").order_by()[:1]
    return next(iter(found), None)


def may_edit(user: AbstractBaseUser, team: Team) -> bool:
    """Whether the user may change things in this team: start chats, import, edit its tools (a viewer may not)."""
    membership = membership_for(user, team)
    return membership is not None and membership.can_edit


def get_current_team(request: HttpRequest) -> Team:
    """The team picked in this session, or the user's personal team when none (or a stale one) is picked."""
    team_id = request.session.get(CURRENT_TEAM_SESSION_KEY)
    if team_id is not None:
        team = teams_for(request.user).filter(pk=team_id).first()
        if team is not None:
            return team
    return ensure_personal_team(request.user)


def follow_team(request: HttpRequest, team: Team) -> None:
    """Opening a page of a team's own (a conversation, a comparison) makes it the current team, as the header and
    its actions then say: a New chat from there starts in that team, not in the one picked before."""
    if request.session.get(CURRENT_TEAM_SESSION_KEY) != team.pk and membership_for(request.user, team) is not None:
        request.session[CURRENT_TEAM_SESSION_KEY] = team.pk


def set_current_team(request: HttpRequest, team: Team) -> None:
    if membership_for(request.user, team) is None:
        raise TeamError("You are not a member of that team.")
    request.session[CURRENT_TEAM_SESSION_KEY] = team.pk


def create_team(*, name: str, owner: AbstractBaseUser) -> Team:
    with transaction.atomic():
        team = Team.objects.create(name=name)
        Membership.objects.create(user=owner, team=team, role=Role.OWNER)
    return team


def require_owner(team: Team, actor: AbstractBaseUser) -> None:
    membership = membership_for(actor, team)
    if membership is None or not membership.is_owner:
        raise TeamError("Only owners can manage members.")


def _is_last_owner(membership: Membership) -> bool:
    if not membership.is_owner:
        return False
    return not membership.team.memberships.filter(role=Role.OWNER).exclude(pk=membership.pk).exists()


def add_member(*, team: Team, actor: AbstractBaseUser, username: str, role: str) -> Membership:
    """Adds an existing user at once: for the demo set-up and administrators. The Team page invites instead
    (playground.teams.invitations), so nobody joins a team without agreeing to it."""
    require_owner(team, actor)
    if role not in Role.values:
        raise TeamError(f"Unknown role {role!r}.")
    user = get_user_model().objects.filter(username=username.strip()).first()
    if user is None:
        raise TeamError(f"There is no user called {username.strip()!r}.")
    try:
        with transaction.atomic():
            return Membership.objects.create(user=user, team=team, role=role)
    except IntegrityError:
        raise TeamError(f"{user.get_username()} is already a member.") from None


def change_role(*, membership: Membership, actor: AbstractBaseUser, role: str) -> Membership:
    require_owner(membership.team, actor)
    if role not in Role.values:
        raise TeamError(f"Unknown role {role!r}.")
    if role != Role.OWNER and _is_last_owner(membership):
        raise TeamError("A team needs at least one owner; make someone else an owner first.")
    membership.role = role
    membership.save(update_fields=["role"])
    return membership


def remove_member(*, membership: Membership, actor: AbstractBaseUser) -> None:
    require_owner(membership.team, actor)
    if _is_last_owner(membership):
        raise TeamError("A team needs at least one owner; make someone else an owner first.")
    _end_membership(membership)


def leave_team(*, membership: Membership) -> None:
    """The member of ``membership`` leaves of their own accord: any role may, but a team keeps an owner, and a
    personal team stays with the account it was made for (it is where someone who leaves a team lands)."""
    team = membership.team
    if team.personal_for_id == membership.user_id:
        raise TeamError("This is your personal team: it stays yours.")
    if _is_last_owner(membership):
        raise TeamError(f"You are the only owner of {team.name}: make someone else an owner before you leave.")
    _end_membership(membership)


def _end_membership(membership: Membership) -> None:
    # Deleting the row is what closes the member's open sockets: its post_delete signal announces the change to them
    # (playground.teams.signals, revocation.py), whoever ended it.
    membership.delete()
