"""Posting, editing, deleting and resolving comments. Each answers with the anchor's threads and tells every other
open review page of the conversation to fetch them too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from playground.review import live
from playground.review.access import Refused, Reviewer, reviewer_for
from playground.review.anchors import Anchor
from playground.review.comments import delete_comment, edit_comment, is_deleted, post_comment, set_resolved
from playground.review.views import anchor_from, comments_partial, parent_id_from, refused

if TYPE_CHECKING:
    from playground.review.models import Comment
    from playground.review.views import HtmxHttpRequest


def _comment(reviewer: Reviewer, comment_id: int) -> Comment:
    comment = reviewer.conversation.comments.select_related("conversation__team").filter(pk=comment_id).first()
    if comment is None:
        raise Refused("That comment is gone; reload to see the thread as it is now.", status=404)
    return comment


@require_POST
@login_required
def create(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    reviewer = reviewer_for(request.user, pk)
    parent_id = parent_id_from(request.POST)
    try:
        anchor = None if parent_id is not None else anchor_from(request.POST)
        comment = post_comment(
            conversation=reviewer.conversation,
            author=request.user,
            body=request.POST.get("body", ""),
            anchor=anchor,
            parent_id=parent_id,
        )
    except Refused as exc:
        return refused(request, exc, pk)
    anchor = Anchor.of(comment)
    live.comments_changed(pk, anchor, comment.pk)
    return comments_partial(request, reviewer, anchor, fresh=comment.pk)


@require_http_methods(["GET", "POST"])
@login_required
def edit(request: HtmxHttpRequest, pk: int, comment_id: int) -> HttpResponse:
    """GET: the form in place of the comment's text (its author only); POST: the new text."""
    reviewer = reviewer_for(request.user, pk)
    try:
        comment = _comment(reviewer, comment_id)
        if request.method == "GET":
            if comment.author_id != request.user.pk or is_deleted(comment):
                raise Refused("Only its author can change a comment.", status=403)
            context = {"conversation": reviewer.conversation, "comment": comment, "anchor": Anchor.of(comment)}
            return render(request, "review/_edit.html", context)
        edit_comment(comment=comment, user=request.user, body=request.POST.get("body", ""))
    except Refused as exc:
        return refused(request, exc, pk)
    anchor = Anchor.of(comment)
    live.comments_changed(pk, anchor, comment.pk)
    return comments_partial(request, reviewer, anchor)


@require_POST
@login_required
def delete(request: HtmxHttpRequest, pk: int, comment_id: int) -> HttpResponse:
    reviewer = reviewer_for(request.user, pk)
    try:
        comment = _comment(reviewer, comment_id)
        anchor = Anchor.of(comment)
        delete_comment(comment=comment, user=request.user)
    except Refused as exc:
        return refused(request, exc, pk)
    live.comments_changed(pk, anchor)
    return comments_partial(request, reviewer, anchor)


@require_POST
@login_required
def resolve(request: HtmxHttpRequest, pk: int, comment_id: int) -> HttpResponse:
    """Resolve (``resolved=1``) or reopen (``resolved=0``) the thread; every role may, as every role comments."""
    reviewer = reviewer_for(request.user, pk)
    try:
        root = set_resolved(comment=_comment(reviewer, comment_id), resolved=request.POST.get("resolved") == "1")
    except Refused as exc:
        return refused(request, exc, pk)
    anchor = Anchor.of(root)
    live.comments_changed(pk, anchor, root.pk)
    return comments_partial(request, reviewer, anchor)


@require_GET
@login_required
def cancel_edit(request: HtmxHttpRequest, pk: int, comment_id: int) -> HttpResponse:
    """Cancel an edit: the thread as it is now (it may have changed meanwhile)."""
    reviewer = reviewer_for(request.user, pk)
    try:
        comment = _comment(reviewer, comment_id)
    except Refused as exc:
        return refused(request, exc, pk)
    return comments_partial(request, reviewer, Anchor.of(comment))
