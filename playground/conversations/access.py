"""Who may open a conversation, and whether they may edit it: read before every action on its socket."""

from __future__ import annotations

from typing import TYPE_CHECKING

from playground.conversations.models import Conversation
from playground.teams.models import EDIT_ROLES, Membership

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser


def conversation_access(user: AbstractBaseUser, conversation_id: int) -> tuple[Conversation | None, bool]:
    """A conversation, if ``user`` is a member of its team, and whether they may edit it (read before every action
    on a conversation's socket). Two narrow queries, unordered and without joins: compiling the team's columns into
    the conversation's read, the membership's ordering (a join on the user table) or a subquery for the role cost
    more, in Python, on every action, than the second statement does."""
    conversation = next(iter(Conversation.objects.filter(pk=conversation_id).order_by()[:1]), None)
    if conversation is None:
        return None, False
    roles = Membership.objects.filter(user=user, team_id=conversation.team_id).order_by().values_list("role")
    role = next(iter(roles[:1]), None)
    return (conversation, role[0] in EDIT_ROLES) if role is not None else (None, False)
