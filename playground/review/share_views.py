"""Share links: editors make and revoke them; anyone holding one reads the conversation, signed in or not."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from playground.conversations.pane_views import round_trip_part
from playground.conversations.panes import PaneLinks
from playground.review.access import SHARE_REFUSAL, Refused, Reviewer, reviewer_for
from playground.review.models import Verdict
from playground.review.present import timeline
from playground.review.sharing import LinkState, create_link, expiry_from, find_link, revoke
from playground.review.views import page_context, refused, shares_context

if TYPE_CHECKING:
    from playground.review.models import ShareLink
    from playground.review.views import HtmxHttpRequest

GONE_STATUS = {LinkState.UNKNOWN: 404, LinkState.REVOKED: 410, LinkState.EXPIRED: 410}


def _editor(request: HtmxHttpRequest, pk: int) -> Reviewer:
    reviewer = reviewer_for(request.user, pk)
    if not reviewer.can_share:
        raise Refused(SHARE_REFUSAL, status=403)
    return reviewer


def _panel(request: HtmxHttpRequest, reviewer: Reviewer, **extra: str) -> HttpResponse:
    if request.htmx:
        return render(request, "review/_shares.html", shares_context(reviewer, **extra))
    # Without JavaScript the whole page comes back, the new link in its panel: a redirect would lose the token.
    return render(request, "review/page.html", page_context(request, reviewer, **extra))


@require_POST
@login_required
def share_create(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    try:
        reviewer = _editor(request, pk)
        _, token = create_link(
            conversation=reviewer.conversation,
            user=request.user,
            expires_in=expiry_from(request.POST.get("expires", "")),
        )
    except Refused as exc:
        return refused(request, exc, pk)
    # The only time the token exists outside the visitor's address bar: it is never stored, only its hash.
    return _panel(request, reviewer, new_url=request.build_absolute_uri(reverse("shared", args=[token])))


@require_POST
@login_required
def share_revoke(request: HtmxHttpRequest, pk: int, link_id: int) -> HttpResponse:
    try:
        reviewer = _editor(request, pk)
        revoke(conversation=reviewer.conversation, link_id=link_id)
    except Refused as exc:
        return refused(request, exc, pk)
    return _panel(request, reviewer)


def _private(response: HttpResponse) -> HttpResponse:
    """Kept out of search engines, caches and the Referer header of any link followed from the page."""
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response


def _shared_page(request: HtmxHttpRequest, link: ShareLink, token: str) -> HttpResponse:
    conversation = link.conversation
    context = {
        "conversation": conversation,
        "link": link,
        "readonly": True,
        **timeline(conversation, share_token=token),
        "labels": list(conversation.labels.order_by("name")),
        "verdict_kinds": Verdict.Kind.choices,
    }
    return render(request, "review/shared.html", context)


@require_GET
def shared(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The read-only review of a shared conversation; a revoked or expired link says so (410), an unknown one 404."""
    link, state = find_link(token)
    if link is not None and state is LinkState.ACTIVE:
        return _private(_shared_page(request, link, token))
    context = {"state": state.value, "link": link}
    return _private(render(request, "review/link_gone.html", context, status=GONE_STATUS[state]))


@require_GET
def shared_round_trip(request: HttpRequest, token: str, position: int, part: str) -> HttpResponse:
    """What a shared page's round trip fetches on demand (its panes, raw events, snippets), while the link lives."""
    link, state = find_link(token)
    if link is None or state is not LinkState.ACTIVE:
        status = GONE_STATUS.get(state, 404)
        return _private(HttpResponse("This share link no longer works.", status=status, content_type="text/plain"))
    links = PaneLinks(link.conversation_id, token)
    return _private(round_trip_part(request, link.conversation, position, part, links, public=True))
