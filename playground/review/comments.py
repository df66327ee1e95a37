"""Comments on a conversation, a message or a tool call: threads of replies, edited and deleted by their author."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db import transaction

from playground.review.access import Refused
from playground.review.anchors import Anchor, exists_in
from playground.review.mentions import render_body, sync_mentions, team_members
from playground.review.models import Comment

if TYPE_CHECKING:
    from django.utils.safestring import SafeString

    from playground.conversations.models import Conversation

MAX_BODY = 10_000


def clean_body(body: str) -> str:
    body = body.strip()
    if not body:
        raise Refused("Write something first.")
    if len(body) > MAX_BODY:
        raise Refused(f"A comment holds at most {MAX_BODY:,} characters.")
    return body


def post_comment(
    *, conversation: Conversation, author: Any, body: str, anchor: Anchor | None = None, parent_id: int | None = None
) -> Comment:
    """A new thread on ``anchor``, or a reply to ``parent_id`` (which then decides where it is pinned)."""
    body = clean_body(body)
    parent = None
    if parent_id is not None:
        parent = conversation.comments.filter(pk=parent_id).first()
        if parent is None:
            raise Refused("That comment is gone; reload to see the thread as it is now.", status=404)
        anchor = Anchor.of(parent)
    anchor = anchor or Anchor()
    if parent is None and not exists_in(conversation, anchor):
        raise Refused("There is no such message or tool call in this conversation.", status=404)
    with transaction.atomic():
        comment = Comment.objects.create(
            conversation=conversation,
            author=author,
            parent=parent,
            message_position=anchor.message_position,
            call_id=anchor.call_id,
            body=body,
        )
        sync_mentions(comment, conversation.team)
    return comment


def _require_author(comment: Comment, user: Any) -> None:
    if comment.author_id is None or comment.author_id != user.pk:
        raise Refused("Only its author can change a comment.", status=403)


def edit_comment(*, comment: Comment, user: Any, body: str) -> Comment:
    _require_author(comment, user)
    if is_deleted(comment):
        raise Refused("A deleted comment cannot be edited.")
    body = clean_body(body)
    if body == comment.body:
        return comment
    with transaction.atomic():
        comment.body, comment.edited = body, True
        comment.save(update_fields=["body", "edited", "updated_at"])
        sync_mentions(comment, comment.conversation.team)
    return comment


def delete_comment(*, comment: Comment, user: Any) -> None:
    """Gone, with its mentions. With replies it stays as an empty stub, so nobody else's words go with it; a stub
    whose last reply is deleted goes too."""
    _require_author(comment, user)
    with transaction.atomic():
        if comment.replies.exists():
            comment.body = ""
            comment.save(update_fields=["body", "updated_at"])
            comment.mentions.all().delete()
            return
        parent = comment.parent
        comment.delete()
        while parent is not None and is_deleted(parent) and not parent.replies.exists():
            parent, doomed = parent.parent, parent
            doomed.delete()


def set_resolved(*, comment: Comment, resolved: bool) -> Comment:
    """Resolving is done on a thread: a reply resolves (or reopens) the thread it belongs to."""
    root = comment
    while root.parent is not None:
        root = root.parent
    if root.resolved != resolved:
        root.resolved = resolved
        root.save(update_fields=["resolved", "updated_at"])
    return root


def is_deleted(comment: Comment) -> bool:
    return comment.body == ""


# --- presentation ------------------------------------------------------------------------------------------------


@dataclass
class CommentView:
    comment: Comment
    body_html: SafeString
    replies: list[CommentView] = field(default_factory=list)

    @property
    def anchor(self) -> Anchor:
        return Anchor.of(self.comment)

    @property
    def deleted(self) -> bool:
        return is_deleted(self.comment)

    @property
    def reply_count(self) -> int:
        return sum(1 + r.reply_count for r in self.replies)


def threads_by_anchor(conversation: Conversation) -> dict[str, list[CommentView]]:
    """Every thread of the conversation, oldest first, under its anchor's key."""
    comments = list(conversation.comments.select_related("author").order_by("created_at", "pk"))
    members = team_members(conversation.team)
    views = {c.pk: CommentView(c, render_body(c.body, members)) for c in comments}
    threads: dict[str, list[CommentView]] = {}
    for comment in comments:
        view = views[comment.pk]
        if comment.parent_id is not None and comment.parent_id in views:
            views[comment.parent_id].replies.append(view)
        else:
            threads.setdefault(Anchor.of(comment).key, []).append(view)
    return threads


def threads_for(conversation: Conversation, anchor: Anchor) -> list[CommentView]:
    return threads_by_anchor(conversation).get(anchor.key, [])
