"""The repeats chart: its axis spans the repeats' times, so a narrow spread still reads as one."""

from __future__ import annotations

from playground.compare.repeats import CHART_WIDTH, RepeatStats, chart


def stats(position: int, low: float, median: float, high: float) -> RepeatStats:
    return RepeatStats(position, f"column {position}", 5, 5, 1.0, low, median, high)


def test_a_spread_of_a_few_percent_spans_most_of_the_chart() -> None:
    bars, axis = chart([stats(0, 1613.0, 1630.0, 1657.0), stats(1, 1620.0, 1625.0, 1640.0)])
    assert 0 < axis.low < 1613 and 1657 < axis.high < 1700, axis
    widest = bars[0]
    assert widest.x_max - widest.x_min > CHART_WIDTH * 0.75, "the slowest and fastest repeats are far apart"
    assert 0 < widest.x_min < widest.x_median < widest.x_max < CHART_WIDTH, "inside the axis, with a margin"
    assert bars[1].x_min > widest.x_min and bars[1].x_max < widest.x_max


def test_repeats_that_all_took_the_same_time_sit_mid_axis() -> None:
    bars, axis = chart([stats(0, 500.0, 500.0, 500.0)])
    assert axis.low < 500 < axis.high
    assert bars[0].x_min == bars[0].x_max == CHART_WIDTH / 2
