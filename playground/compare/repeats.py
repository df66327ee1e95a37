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


@dataclass(frozen=True)
class Axis:
    """The chart's shared axis, in ms: its two ends are labelled."""

    low: float
    high: float


def chart(stats: list[RepeatStats], *, row_height: int = 28) -> tuple[list[Bar], Axis]:
    """Bars on one shared axis, scaled to the repeats' range with a margin each side: from 0, a spread of a few
    percent (1613 to 1657 ms) would be a dot."""
    ends = [v for s in stats for v in (s.latency_min, s.latency_max) if v is not None]
    low, high = min(ends, default=0.0), max(ends, default=0.0)
    # A tenth of the spread each side; some room too when every repeat took the same time.
    margin = (high - low) / 10 or max(high / 100, 1.0)
    axis = Axis(max(low - margin, 0.0), high + margin)
    scale = CHART_WIDTH / (axis.high - axis.low)
    bars = [
        Bar(
            i * row_height + row_height // 2,
            (s.latency_min - axis.low) * scale,
            ((s.latency_median or s.latency_min) - axis.low) * scale,
            (s.latency_max - axis.low) * scale,
            s,
        )
        for i, s in enumerate(stats)
        if s.latency_min is not None and s.latency_max is not None
    ]
    return bars, axis
