"""Joining a team by invitation: an owner invites a username with a role; that person accepts or declines.

Nobody is added to a team without agreeing to it, and inviting answers the same whether or not the username exists,
so the form cannot be used to find out who has an account.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q

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
    account = _account_named(username)
    if account is not None and team.memberships.filter(user=account).exists():
        # The member list shows this already, under the name the account has: saying it reveals nothing.
        raise TeamError(f"{account.get_username()} is already a member.")
    pending = _pending_named(team, username)
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


def _account_named(name: str) -> AbstractBaseUser | None:
    """The account an invitation to ``name`` reaches: the one spelled exactly so, else the only one spelled so in
    another case (people type names as they say them); none when several accounts differ from it only in case."""
    users = get_user_model()._default_manager
    exact = users.filter(username=name).first()
    if exact is not None:
        return exact
    near = list(users.filter(username__iexact=name)[:2])
    return near[0] if len(near) == 1 else None


def _pending_named(team: Team, name: str) -> Invitation | None:
    """The team's pending invitation to ``name`` in any case: inviting "DAVE" after "dave" changes that one."""
    found = list(team.invitations.filter(username__iexact=name))
    return min(found, key=lambda inv: inv.username != name, default=None)


def pending_for_team(team: Team) -> QuerySet[Invitation]:
    return team.invitations.select_related("invited_by").order_by("username")


def pending_for_user(user: AbstractBaseUser) -> QuerySet[Invitation]:
    """The invitations that reach ``user`` by the rule of ``_account_named``: spelled as their username in any case,
    unless the name is spelled exactly as another account's or matches several."""
    name = user.get_username()
    others = get_user_model()._default_manager.filter(username__iexact=OuterRef("username")).exclude(pk=user.pk)
    return (
        Invitation.objects.filter(username__iexact=name)
        .filter(Q(username=name) | ~Exists(others))
        .select_related("team", "invited_by")
    )


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
    if not pending_for_user(user).filter(pk=invitation.pk).exists():
        raise TeamError("This invitation is for someone else.")
