"""Who may open a conversation, and whether they may edit it: read before every action on its socket."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.http import Http404

from playground.conversations.models import Conversation
from playground.prepared import PreparedQuery
from playground.teams.access import membership_for
from playground.teams.models import EDIT_ROLES, Membership

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser


_CONVERSATION = PreparedQuery(lambda pk: Conversation.objects.filter(pk=pk).order_by()[:1], int)
# Its key and team only: what a socket's opening needs. The whole row is every word of the conversation (its search
# text) and every tool's schema, read and decoded on each socket opened on it otherwise.
_CONVERSATION_KEYS = PreparedQuery(
    lambda pk: Conversation.objects.filter(pk=pk).only("id", "team_id").order_by()[:1], int
)
_ROLE = PreparedQuery(
    lambda user, team: Membership.objects.filter(user_id=user, team_id=team).order_by().values_list("role")[:1],
    int,
    int,
)


def conversation_access(
    user: AbstractBaseUser, conversation_id: int, *, whole: bool = True
) -> tuple[Conversation | None, bool]:
    """A conversation, if ``user`` is a member of its team, and whether they may edit it (read before every action
    on a conversation's socket). Two narrow queries, unordered and without joins: compiling the team's columns into
    the conversation's read, the membership's ordering (a join on the user table) or a subquery for the role cost
    more, in Python, on every action, than the second statement does; both are built once (playground.prepared).
    ``whole``: False reads the row's key and team only, and leaves the rest deferred."""
    read = _CONVERSATION if whole else _CONVERSATION_KEYS
    conversation = next(iter(read.instances(conversation_id)), None)
    if conversation is None:
        return None, False
    role = next(iter(_ROLE.rows(user.pk, conversation.team_id)), None)
    return (conversation, role[0] in EDIT_ROLES) if role is not None else (None, False)


def member_conversation(user: AbstractBaseUser, pk: int) -> tuple[Conversation, bool]:
    """A page's conversation, with its team, if ``user`` is a member of that team, and whether they may edit it;
    any other (none, another team's) is not found."""
    conversation = Conversation.objects.filter(pk=pk).select_related("team").first()
    membership = membership_for(user, conversation.team) if conversation else None
    if conversation is None or membership is None:
        raise Http404("No such conversation.")
    return conversation, membership.can_edit
