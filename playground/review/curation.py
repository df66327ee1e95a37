"""Verdicts on tool calls (one per reviewer and call) and the team's coloured labels on conversations."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction

from playground.review.access import Refused
from playground.review.anchors import call_ids
from playground.review.models import Label, Verdict

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from playground.conversations.models import Conversation
    from playground.teams.models import Team

MAX_NOTE = 2_000
MAX_LABEL_NAME = 50
COLOR = re.compile(r"#[0-9a-fA-F]{6}")
DEFAULT_COLOR = "#6366f1"


def save_verdict(*, conversation: Conversation, author: Any, call_id: str, kind: str, note: str) -> Verdict | None:
    """The reviewer's verdict on the call: the first save makes it, later ones change it, and going back to no
    verdict (the menu's first entry) withdraws it: None."""
    mine = Verdict.objects.filter(conversation=conversation, call_id=call_id, author=author)
    if kind == "" and mine.exists():
        mine.delete()
        return None
    if kind not in Verdict.Kind.values:
        raise Refused("Pick a verdict: a note goes with one.")
    note = note.strip()
    if len(note) > MAX_NOTE:
        raise Refused(f"A note holds at most {MAX_NOTE:,} characters.")
    if call_id not in call_ids(conversation):
        raise Refused("There is no such tool call in this conversation.", status=404)
    verdict, _ = Verdict.objects.update_or_create(
        conversation=conversation, call_id=call_id, author=author, defaults={"kind": kind, "note": note}
    )
    return verdict


def verdicts_by_call(conversation: Conversation) -> dict[str, list[Verdict]]:
    grouped: dict[str, list[Verdict]] = {}
    for verdict in conversation.verdicts.select_related("author").order_by("created_at", "pk"):
        grouped.setdefault(verdict.call_id, []).append(verdict)
    return grouped


def team_labels(team: Team) -> QuerySet[Label]:
    return Label.objects.filter(team=team).order_by("name")


def clean_label(name: str, color: str) -> tuple[str, str]:
    name = " ".join(name.split())
    if not name:
        raise Refused("Give the label a name.")
    if len(name) > MAX_LABEL_NAME:
        raise Refused(f"A label name holds at most {MAX_LABEL_NAME} characters.")
    color = color.strip() or DEFAULT_COLOR
    if not COLOR.fullmatch(color):
        raise Refused("A colour is written #rrggbb.")
    return name, color.lower()


def add_label(*, conversation: Conversation, name: str, color: str) -> Label:
    """The team's label of that name (any case), made on the fly with ``color`` when new, put on the conversation."""
    name, color = clean_label(name, color)
    team = conversation.team
    label = Label.objects.filter(team=team, name__iexact=name).first()
    if label is None:
        try:
            with transaction.atomic():
                label = Label.objects.create(team=team, name=name, color=color)
        except IntegrityError:  # made by someone else a moment ago
            label = Label.objects.get(team=team, name__iexact=name)
    label.conversations.add(conversation)
    return label


def remove_label(*, conversation: Conversation, label_id: int) -> None:
    """Off this conversation; the label stays the team's, for other conversations and for next time."""
    label = Label.objects.filter(team=conversation.team, pk=label_id).first()
    if label is None:
        raise Refused("No such label.", status=404)
    label.conversations.remove(conversation)
