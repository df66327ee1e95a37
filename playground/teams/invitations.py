"""Joining a team by invitation: an owner invites a username with a role; that person accepts or declines.

Nobody is added to a team without agreeing to it, and inviting answers the same whether or not the username exists,
so the form cannot be used to find out who has an account.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction

from playground.teams.access import TeamError, require_owner
from playground.teams.models import Invitation, Membership, Role, Team

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser
    from django.db.models import QuerySet


@dataclass(frozen=True)
class Invited:
    """What inviting did: the pending invitation, and the role it offered before (None when it is new)."""

    invitation: Invitation
    before: str | None


def invite(*, team: Team, actor: AbstractBaseUser, username: str, role: str) -> Invited:
    """A pending invitation (an existing one gets the new role); refused only for what the owner can already see."""
    require_owner(team, actor)
    if role not in Role.values:
        raise TeamError(f"Unknown role {role!r}.")
    username = username.strip()
    if not username:
        raise TeamError("Enter a username.")
    if team.memberships.filter(user__username=username).exists():  # the member list shows this already
        raise TeamError(f"{username} is already a member.")
    pending = team.invitations.filter(username=username).first()
    if pending is None:
        invitation, _ = Invitation.objects.update_or_create(
            team=team, username=username, defaults={"role": role, "invited_by": actor}
        )
        return Invited(invitation, before=None)
    before = pending.role
    if before != role:
        pending.role, pending.invited_by = role, actor
        pending.save(update_fields=["role", "invited_by"])
    return Invited(pending, before=before)


def pending_for_team(team: Team) -> QuerySet[Invitation]:
    return team.invitations.select_related("invited_by").order_by("username")


def pending_for_user(user: AbstractBaseUser) -> QuerySet[Invitation]:
    return Invitation.objects.filter(username=user.get_username()).select_related("team", "invited_by")


def accept(*, invitation: Invitation, user: AbstractBaseUser) -> Membership:
    _require_invitee(invitation, user)
    with transaction.atomic():
        try:
            with transaction.atomic():
                membership = Membership.objects.create(user=user, team=invitation.team, role=invitation.role)
        except IntegrityError:  # already a member (added another way): the invitation has done its job
            membership = Membership.objects.get(user=user, team=invitation.team)
        invitation.delete()
    return membership


def decline(*, invitation: Invitation, user: AbstractBaseUser) -> None:
    _require_invitee(invitation, user)
    invitation.delete()


def revoke(*, invitation: Invitation, actor: AbstractBaseUser) -> None:
    require_owner(invitation.team, actor)
    invitation.delete()


def _require_invitee(invitation: Invitation, user: AbstractBaseUser) -> None:
    if invitation.username != user.get_username():
        raise TeamError("This invitation is for someone else.")
