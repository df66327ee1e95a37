"""The comparison page's context: columns with their saved transcripts, the summary, agreement, repeats, diff."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.http import QueryDict
from django.urls import reverse
from django.utils import timezone

from playground.chat.registry import REGISTRY
from playground.compare import diff
from playground.compare.agreement import agreement
from playground.compare.models import Comparison
from playground.compare.repeats import CHART_WIDTH, LABEL_WIDTH, chart, repeat_stats
from playground.compare.summary import ColumnSummary, summarize
from playground.conversations.models import BUSY_STATUSES, Conversation
from playground.conversations.present import transcript
from playground.conversations.raw_events import add_batched


@dataclass(frozen=True)
class Progress:
    """Where a column is in its repeats: the run going on (or next to start) of how many, and whether any run is
    going on or still to start (its Stop stays while one is: the column's cards show its first run only)."""

    active: bool
    run: int
    runs: int


@dataclass
class ColumnView:
    position: int
    conversation: Conversation
    summary: ColumnSummary
    transcript: list[Any]
    message_count: int
    running: bool
    differing_calls: dict[int, list[str]]
    progress: Progress

    @property
    def label(self) -> str:
        return f"{self.conversation.endpoint_name} · {self.conversation.model}"

    @property
    def ws_url(self) -> str:
        return f"/ws/conversations/{self.conversation.pk}/"


def _column(summary: ColumnSummary, progress: Progress, differing: dict[int, list[str]] | None = None) -> ColumnView:
    position, conversation = summary.position, summary.conversation
    saved = list(conversation.messages.order_by("position"))
    trips = {rt.pk: rt for rt in conversation.round_trips.all()}
    messages = transcript(conversation, saved, trips)
    _mark_differences(messages, differing or {})
    return ColumnView(
        position,
        conversation,
        summary,
        messages,
        len(saved),
        REGISTRY.is_running(conversation.pk) or summary.running,
        differing or {},
        progress,
    )


def _mark_differences(messages: list[Any], differing: dict[int, list[str]]) -> None:
    """Flag the cards of calls that differ from another column's, with the fields that differ."""
    calls = [call for message in messages for call in message.calls]
    for index, call in enumerate(calls):
        call.differs = index in differing
        call.differing_fields = [f for f in differing.get(index, []) if f]


def _runs(comparison: Comparison) -> dict[int, list[Conversation]]:
    columns: dict[int, list[Conversation]] = {}
    for run in comparison.runs.select_related("conversation__endpoint").order_by("position", "repeat"):
        columns.setdefault(run.position, []).append(run.conversation)
    return columns


def column_view(comparison: Comparison, position: int) -> ColumnView | None:
    """One column as the comparison page shows it, its cards marked where they differ from the other columns."""
    runs = _runs(comparison)
    if position not in runs:
        return None
    firsts = {p: summarize(p, conversations[0]) for p, conversations in runs.items()}
    agreed = agreement(list(firsts.values()))
    progress = column_progress(comparison, runs[position])
    return _column(firsts[position], progress, agreed.differing_calls.get(position))


def comparison_context(comparison: Comparison, can_edit: bool, query: QueryDict) -> dict[str, Any]:
    runs = _runs(comparison)
    firsts = [summarize(position, conversations[0]) for position, conversations in runs.items()]
    agreed = agreement(firsts)
    columns = [
        _column(first, column_progress(comparison, runs[first.position]), agreed.differing_calls.get(first.position))
        for first in firsts
    ]
    # Each column's first run is summarised once: the repeats add only the runs after it.
    stats = [
        repeat_stats(column.position, column.label, [first, *(summarize(p, c) for c in conversations[1:])])
        for column, first, (p, conversations) in zip(columns, firsts, runs.items(), strict=True)
    ]
    bars, axis = chart(stats)
    return {
        "section": "compare",
        "comparison": comparison,
        "can_edit": can_edit,
        "columns": columns,
        "agreement": agreed,
        "repeat_stats": stats,
        "bars": bars,
        "chart_width": CHART_WIDTH,
        "chart_label_width": LABEL_WIDTH,
        "chart_height": max(len(stats), 1) * 28,
        "axis": axis,
        "busy": any(c.running or c.progress.active for c in columns),
        "waiting_repeats": _waiting_repeats(columns, runs),
        "results_url": reverse("comparison-results", args=[comparison.pk]),
        **diff_context(comparison, query, runs),
    }


def _waiting_repeats(columns: list[Any], runs: dict[int, list[Conversation]]) -> list[tuple[str, int, int]]:
    """The later runs waiting for a person's answer: (column label, run number, conversation id). The columns show
    each column's first run only, so without a word these would wait unseen until their question timed out."""
    labels = {column.position: column.label for column in columns}
    return [
        (labels[position], repeat + 1, conversation.pk)
        for position, conversations in runs.items()
        for repeat, conversation in enumerate(conversations)
        if repeat > 0 and conversation.status == Conversation.Status.WAITING
    ]


PENDING_FOR = timedelta(minutes=10)  # a repeat not started by then never will be (its runner is gone)


def column_progress(comparison: Comparison, conversations: list[Conversation]) -> Progress:
    """A run going on, or a repeat still to start: the column keeps its Stop, and the results keep refreshing until
    every column is done."""
    young = timezone.now() - comparison.created_at < PENDING_FOR
    for number, conversation in enumerate(conversations, 1):
        if conversation.status in BUSY_STATUSES or (young and conversation.status == Conversation.Status.IDLE):
            return Progress(True, number, len(conversations))
    return Progress(False, len(conversations), len(conversations))


def diff_context(
    comparison: Comparison, query: QueryDict, runs: dict[int, list[Conversation]] | None = None
) -> dict[str, Any]:
    """The wire diff of two columns' first round trips (the first two columns unless ``a``/``b`` say)."""
    runs = runs if runs is not None else _runs(comparison)
    positions = list(runs)
    a, b = _pick(query.get("a"), positions, 0), _pick(query.get("b"), positions, 1)
    if b == a:  # a column against itself says nothing: the other side is the next column
        b = next((p for p in positions if p != a), None)
    context: dict[str, Any] = {"comparison": comparison, "positions": positions, "a": a, "b": b, "diff": None}
    if a is None or b is None:
        return context
    left, right = runs[a][0], runs[b][0]
    trip_a, trip_b = left.round_trips.order_by("position").first(), right.round_trips.order_by("position").first()
    if trip_a is None or trip_b is None or not trip_a.wire_request or not trip_b.wire_request:
        return context
    add_batched([trip_a, trip_b])
    body_a, body_b = trip_a.wire_request.get("body"), trip_b.wire_request.get("body")
    system = str((comparison.settings or {}).get("system") or "")
    context["diff"] = {
        "left": left,
        "right": right,
        "left_url": trip_a.wire_request.get("url", ""),
        "right_url": trip_b.wire_request.get("url", ""),
        "rows": diff.structural_diff(body_a, body_b),
        "system_left": diff.text_locations(body_a, system),
        "system_right": diff.text_locations(body_b, system),
        "notes_left": trip_a.notes,
        "notes_right": trip_b.notes,
        "events_left": diff.event_profile(trip_a),
        "events_right": diff.event_profile(trip_b),
    }
    return context


def _pick(value: str | None, positions: list[int], fallback: int) -> int | None:
    if value is not None and value.isdigit() and int(value) in positions:
        return int(value)
    return positions[fallback] if len(positions) > fallback else None
