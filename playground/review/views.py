"""The review page of a conversation, the partials its live updates fetch, and the "For you" inbox."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from playground.review.access import Refused, Reviewer, reviewer_for
from playground.review.anchors import Anchor, exists_in
from playground.review.comments import threads_for
from playground.review.curation import team_labels, verdicts_by_call
from playground.review.mentions import mark_all_seen, mark_seen, unseen_for
from playground.review.models import Verdict
from playground.review.present import timeline
from playground.review.sharing import EXPIRY_CHOICES, links_of
from playground.teams.access import follow_team

if TYPE_CHECKING:
    from django.http import HttpRequest
    from django_htmx.middleware import HtmxDetails

    class HtmxHttpRequest(HttpRequest):
        htmx: HtmxDetails


# --- answers shared by every review view ------------------------------------------------------------------------


def review_url(conversation_id: int, fragment: str = "") -> str:
    return reverse("review", args=[conversation_id]) + (f"#{fragment}" if fragment else "")


def refused(request: HtmxHttpRequest, exc: Refused, conversation_id: int) -> HttpResponse:
    """htmx shows the plain text beside the form; a plain form post gets the review page with a flash message."""
    if request.htmx or request.method != "POST":
        return HttpResponse(str(exc), status=exc.status, content_type="text/plain; charset=utf-8")
    messages.error(request, str(exc))
    return redirect(review_url(conversation_id))


def anchor_from(data: Any) -> Anchor:
    anchor = Anchor.parse(str(data.get("anchor", "conversation")))
    if anchor is None:
        raise Refused("No such message or tool call.", status=404)
    return anchor


def parent_id_from(data: Any) -> int | None:
    """The comment replied to, when the form names one (ASCII digits only: int() takes other scripts' digits too)."""
    value = str(data.get("parent", ""))
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 18 else None


def comments_partial(request: HtmxHttpRequest, reviewer: Reviewer, anchor: Anchor, **extra: Any) -> HttpResponse:
    """One anchor's threads; a plain form post (no JavaScript) goes back to the page, at that anchor."""
    if not request.htmx:
        return redirect(review_url(reviewer.conversation.pk, f"comments-{anchor.dom}"))
    context = {
        "conversation": reviewer.conversation,
        "anchor": anchor,
        "threads": threads_for(reviewer.conversation, anchor),
        "readonly": False,
        **extra,
    }
    return render(request, "review/_comments.html", context)


def verdicts_partial(request: HtmxHttpRequest, reviewer: Reviewer, call_id: str) -> HttpResponse:
    anchor = Anchor(call_id=call_id)
    if not request.htmx:
        return redirect(review_url(reviewer.conversation.pk, f"verdicts-{anchor.dom}"))
    verdicts = verdicts_by_call(reviewer.conversation).get(call_id, [])
    context = {"conversation": reviewer.conversation, "anchor": anchor, "verdicts": verdicts}
    return render(request, "review/_verdicts.html", context)


def labels_partial(request: HtmxHttpRequest, reviewer: Reviewer) -> HttpResponse:
    if not request.htmx:
        return redirect(review_url(reviewer.conversation.pk))
    return render(request, "review/_labels.html", labels_context(reviewer))


def labels_context(reviewer: Reviewer) -> dict[str, Any]:
    conversation = reviewer.conversation
    on_it = list(conversation.labels.order_by("name"))
    taken = {label.pk for label in on_it}
    return {
        "conversation": conversation,
        "labels": on_it,
        "other_labels": [label for label in team_labels(conversation.team) if label.pk not in taken],
        "can_label": reviewer.can_label,
        "readonly": False,
    }


# --- the page ----------------------------------------------------------------------------------------------------


def page_context(request: HtmxHttpRequest, reviewer: Reviewer, **extra: Any) -> dict[str, Any]:
    conversation = reviewer.conversation
    return {
        "section": "conversations",
        "conversation": conversation,
        "reviewer": reviewer,
        "readonly": False,
        **timeline(conversation, user=request.user),
        **labels_context(reviewer),
        **shares_context(reviewer),
        "verdict_kinds": Verdict.Kind.choices,
        "unseen_count": unseen_for(request.user).count(),
        "members": sorted(m.user.get_username() for m in conversation.team.memberships.select_related("user")),
        **extra,
    }


def shares_context(reviewer: Reviewer, **extra: Any) -> dict[str, Any]:
    return {
        "conversation": reviewer.conversation,
        "can_share": reviewer.can_share,
        "share_rows": links_of(reviewer.conversation) if reviewer.can_share else [],
        "expiry_choices": EXPIRY_CHOICES,
        **extra,
    }


@require_GET
@login_required
def review(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    reviewer = reviewer_for(request.user, pk)
    follow_team(request, reviewer.conversation.team)
    mark_seen(request.user, reviewer.conversation)  # everything pinned here is on the page now
    return render(request, "review/page.html", page_context(request, reviewer))


@require_GET
@login_required
def comment_list(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    reviewer = reviewer_for(request.user, pk)
    try:
        anchor = anchor_from(request.GET)
    except Refused as exc:
        return refused(request, exc, pk)
    return comments_partial(request, reviewer, anchor)


@require_GET
@login_required
def composer(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A comment form on demand (a reply, or a first comment on a message or call): the page stays light, and only
    the conversation's own form is there from the start."""
    reviewer = reviewer_for(request.user, pk)
    conversation = reviewer.conversation
    parent = None
    try:
        if (parent_id := parent_id_from(request.GET)) is not None:
            parent = conversation.comments.filter(pk=parent_id).first()
            if parent is None:
                raise Refused("That comment is gone; reload to see the thread as it is now.", status=404)
            anchor = Anchor.of(parent)
        else:
            anchor = anchor_from(request.GET)
            if not exists_in(conversation, anchor):
                raise Refused("No such message or tool call.", status=404)
    except Refused as exc:
        return refused(request, exc, pk)
    context = {"conversation": conversation, "anchor": anchor, "parent": parent, "on_demand": True}
    return render(request, "review/_composer.html", context)


@require_GET
@login_required
def verdict_list(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    reviewer = reviewer_for(request.user, pk)
    return verdicts_partial(request, reviewer, str(request.GET.get("call", ""))[:200])


@require_GET
@login_required
def label_list(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return labels_partial(request, reviewer_for(request.user, pk))


# --- the inbox ---------------------------------------------------------------------------------------------------


@require_GET
@login_required
def inbox(request: HtmxHttpRequest) -> HttpResponse:
    mentions = list(unseen_for(request.user)[:200])
    return render(request, "review/inbox.html", {"section": "conversations", "mentions": mentions})


@require_POST
@login_required
def inbox_seen(request: HtmxHttpRequest) -> HttpResponse:
    count = mark_all_seen(request.user)
    messages.success(request, f"Marked {count} mention{'s' if count != 1 else ''} as seen.")
    return redirect("review-inbox")
