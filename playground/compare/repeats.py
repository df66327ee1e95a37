"""Consistency across repeats: how often a column made the same calls, and the spread of its latency."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from playground.compare.agreement import consistency
from playground.compare.summary import ColumnSummary
from playground.conversations.models import Conversation

CHART_WIDTH = 300  # px of the latency axis in the small chart
LABEL_WIDTH = 220  # px left of the axis for each row's column name: the chart is read without the table beside it
ENDED = (Conversation.Status.DONE, Conversation.Status.LIMIT)


@dataclass(frozen=True)
class RepeatStats:
    position: int
    label: str
    runs: int
    finished: int
    agreement_rate: float | None
    latency_min: float | None
    latency_median: float | None
    latency_max: float | None

    @property
    def agreement_percent(self) -> str:
        return "-" if self.agreement_rate is None else f"{self.agreement_rate:.0%}"


@dataclass(frozen=True)
class Bar:
    """One column's row in the chart: a line from min to max with a mark at the median, in px."""

    y: int
    x_min: float
    x_median: float
    x_max: float
    stats: RepeatStats


def repeat_stats(position: int, label: str, repeats: list[ColumnSummary]) -> RepeatStats:
    # Runs that ended as a run ends (done, or at a limit): a stopped or failed run's calls and time say nothing of
    # the model's consistency or speed.
    finished = [r for r in repeats if r.round_trips and r.conversation.status in ENDED]
    latencies = sorted(r.total_ms for r in finished if r.total_ms is not None)
    return RepeatStats(
        position,
        label,
        len(repeats),
        len(finished),
        consistency([r.call_keys() for r in finished]),
        latencies[0] if latencies else None,
        statistics.median(latencies) if latencies else None,
        latencies[-1] if latencies else None,
    )


def chart(stats: list[RepeatStats], *, row_height: int = 28) -> tuple[list[Bar], float]:
    """Bars on one shared axis (0 to the slowest repeat), and that axis' maximum in ms."""
    top = max((s.latency_max for s in stats if s.latency_max is not None), default=0.0) or 1.0
    scale = CHART_WIDTH / top
    bars = [
        Bar(
            i * row_height + row_height // 2,
            s.latency_min * scale,
            (s.latency_median or 0) * scale,
            s.latency_max * scale,
            s,
        )
        for i, s in enumerate(stats)
        if s.latency_min is not None and s.latency_max is not None
    ]
    return bars, top
