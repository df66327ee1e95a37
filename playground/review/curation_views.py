"""Verdicts on tool calls (every role) and labels on the conversation (editors and owners)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.views.decorators.http import require_POST

from playground.review import live
from playground.review.access import LABEL_REFUSAL, Refused, reviewer_for
from playground.review.curation import add_label, remove_label, save_verdict
from playground.review.views import labels_partial, refused, verdicts_partial

if TYPE_CHECKING:
    from playground.review.views import HtmxHttpRequest


@require_POST
@login_required
def verdict(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Saves this reviewer's verdict on the call; saving again changes it (one per reviewer and call)."""
    reviewer = reviewer_for(request.user, pk)
    call_id = request.POST.get("call_id", "")
    try:
        save_verdict(
            conversation=reviewer.conversation,
            author=request.user,
            call_id=call_id,
            kind=request.POST.get("kind", ""),
            note=request.POST.get("note", ""),
        )
    except Refused as exc:
        return refused(request, exc, pk)
    live.verdicts_changed(pk, call_id)
    return verdicts_partial(request, reviewer, call_id)


@require_POST
@login_required
def label_add(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    reviewer = reviewer_for(request.user, pk)
    try:
        if not reviewer.can_label:
            raise Refused(LABEL_REFUSAL, status=403)
        add_label(
            conversation=reviewer.conversation, name=request.POST.get("name", ""), color=request.POST.get("color", "")
        )
    except Refused as exc:
        return refused(request, exc, pk)
    live.labels_changed(pk)
    return labels_partial(request, reviewer)


@require_POST
@login_required
def label_remove(request: HtmxHttpRequest, pk: int, label_id: int) -> HttpResponse:
    reviewer = reviewer_for(request.user, pk)
    try:
        if not reviewer.can_label:
            raise Refused(LABEL_REFUSAL, status=403)
        remove_label(conversation=reviewer.conversation, label_id=label_id)
    except Refused as exc:
        return refused(request, exc, pk)
    live.labels_changed(pk)
    return labels_partial(request, reviewer)
