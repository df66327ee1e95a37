"""Who may review a conversation, and what each role may do there. Views and the socket ask here, nowhere else."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.http import Http404

from playground.conversations.models import Conversation
from playground.teams.access import membership_for

if TYPE_CHECKING:
    from playground.teams.models import Membership

LABEL_REFUSAL = "Only editors and owners can label conversations."
SHARE_REFUSAL = "Only editors and owners can share conversations or revoke links."


class Refused(Exception):
    """A refused review change; the message is shown to the user as is, ``status`` is the HTTP status to answer."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Reviewer:
    """A team member looking at one of the team's conversations. Every role reads, comments and gives verdicts."""

    conversation: Conversation
    membership: Membership

    @property
    def can_label(self) -> bool:
        return self.membership.can_edit

    @property
    def can_share(self) -> bool:
        return self.membership.can_edit


def reviewer_or_none(user: Any, conversation_id: int) -> Reviewer | None:
    conversation = Conversation.objects.filter(pk=conversation_id).select_related("team").first()
    membership = membership_for(user, conversation.team) if conversation is not None else None
    if conversation is None or membership is None:
        return None
    return Reviewer(conversation, membership)


def reviewer_for(user: Any, conversation_id: int) -> Reviewer:
    """The reviewer, or a 404: another team's conversation looks exactly like one that does not exist."""
    reviewer = reviewer_or_none(user, conversation_id)
    if reviewer is None:
        raise Http404("No such conversation.")
    return reviewer
