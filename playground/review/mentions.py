"""@username in a comment: teammates named get a Mention, listed in their "For you" inbox until they look."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from playground.review.models import Comment, Mention

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from playground.conversations.models import Conversation
    from playground.teams.models import Team

# Not after a word character or another @, so "ada@example.com" names nobody.
MENTION = re.compile(r"(?<![\w@])@([\w.+-]+)")
# Sentence punctuation that may follow a name ("thanks @ada.") without being part of it.
TRAILING = ".-+"


def team_members(team: Team) -> dict[str, Any]:
    """The team's members by lower-cased username: a mention need not match the case."""
    return {m.user.get_username().lower(): m.user for m in team.memberships.select_related("user")}


def _member_for(name: str, members: dict[str, Any]) -> Any | None:
    return members.get(name.lower()) or members.get(name.rstrip(TRAILING).lower())


def mentioned(body: str, members: dict[str, Any]) -> list[Any]:
    """The members named in ``body``, each once, in order of first mention."""
    found: dict[int, Any] = {}
    for match in MENTION.finditer(body):
        user = _member_for(match.group(1), members)
        if user is not None:
            found.setdefault(user.pk, user)
    return list(found.values())


def sync_mentions(comment: Comment, team: Team) -> None:
    """Mentions follow the text: a name added by an edit is notified, one removed is no longer listed.

    A name already notified keeps its row, and with it whether it was seen: editing a typo notifies nobody twice.
    """
    named = {u.pk: u for u in mentioned(comment.body, team_members(team)) if u.pk != comment.author_id}
    comment.mentions.exclude(user_id__in=named).delete()
    kept = set(comment.mentions.values_list("user_id", flat=True))
    Mention.objects.bulk_create([Mention(comment=comment, user=u) for pk, u in named.items() if pk not in kept])


def render_body(body: str, members: dict[str, Any]) -> SafeString:
    """The text escaped, with the names of members set apart; whitespace is kept by the stylesheet."""
    parts: list[str] = []
    position = 0
    for match in MENTION.finditer(body):
        if _member_for(match.group(1), members) is None:
            continue
        name = match.group(1)
        if name.lower() not in members:  # the trailing punctuation stays plain text
            name = name.rstrip(TRAILING)
        end = match.start() + 1 + len(name)
        parts.append(escape(body[position : match.start()]))
        parts.append(format_html('<span class="mention">@{}</span>', name))
        position = end
    parts.append(escape(body[position:]))
    return mark_safe("".join(parts))  # every piece is escaped above


def unseen_for(user: Any) -> QuerySet[Mention]:
    """Unseen mentions in conversations of teams the user still belongs to, newest first."""
    return (
        Mention.objects.filter(user=user, seen=False, comment__conversation__team__memberships__user=user)
        .select_related("comment__author", "comment__conversation")
        .order_by("-comment__created_at")
    )


def mark_seen(user: Any, conversation: Conversation) -> int:
    """Opening a conversation's review shows every comment in it: its mentions of this user are seen."""
    if not getattr(user, "is_authenticated", False):
        return 0
    return Mention.objects.filter(user=user, seen=False, comment__conversation=conversation).update(seen=True)


def mark_all_seen(user: Any) -> int:
    return Mention.objects.filter(user=user, seen=False).update(seen=True)
