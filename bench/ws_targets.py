"""The product's targets for the ws_stream bench, as verdict lines: ``target N: <text>: MET|MISSED (<figure>)``.

Every target is a ratio or a count from runs on one machine, minutes apart, so the machine's speed cancels out:

1. Ours over the floor: at 100 chats x 50 deltas/s on one daphne process, the app's whole-run p99 added latency
   <= 2x the relay floor's, and its daphne CPU per delta <= 1.3x the relay floor's.
2. Frames at display rate: bench/ws_display.py (``--display-rate``).
3. 200 chats: zero lost deltas, and the app's CPU per delta <= 2x the relay floor's.
4. Two processes: two daphne processes behind the Compose proxy (nginx), with Redis, hold the 100-chat load split
   between them with zero lost deltas.

A run at another size still gets the verdicts its measurements allow, marked with the size the target is stated for.

A size is measured in rounds (``--rounds``), the relay floor and the app taking turns: on a machine whose speed drifts
by tens of percent within minutes, one pair of runs gives a ratio the drift decides as much as the code. A ratio's
verdict is then the median round's, with every round's ratio beside it (the higher middle one of an even count, so a
tie never rounds the verdict towards MET); zero lost deltas must hold in every round.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ws_measure import Measurement, daphne_percent, percentile, server_us_per_delta, steady_us_per_delta, turn_ms

RATE = 50.0  # deltas/s per chat, for every target here
ONE_CHATS, MAX_P99_RATIO, MAX_CPU_RATIO = 100, 2.0, 1.3  # target 1
MANY_CHATS, MAX_CPU_RATIO_MANY = 200, 2.0  # target 3
TWO_CHATS = 100  # target 4
# A relay floor whose process used this much of a core was saturated: its p99 is its own backlog, not a floor.
FLOOR_SATURATED_PERCENT = 90.0
Pair = tuple[Measurement, Measurement]  # one round's relay floor and app, measured one after the other
TWO_TEXT = "two daphne processes behind nginx with Redis, chats split between them, zero lost deltas"


def verdict(number: int, text: str, met: bool, figure: str) -> str:
    return f"target {number}: {text}: {'MET' if met else 'MISSED'} ({figure})"


def scope(stated_chats: int, chats: int, rate: float) -> str:
    """A note when this run is not the size the target is stated for: its verdict is then only indicative."""
    if chats == stated_chats and rate == RATE:
        return ""
    return f" [stated for {stated_chats} chats x {RATE:g}/s; this run: {chats} x {rate:g}/s]"


def _p99(m: Measurement) -> float:
    return percentile(m.latencies(), 0.99)


def _median(pairs: Sequence[Pair], ratio: Callable[[Pair], float]) -> tuple[Pair, float, str]:
    """The round whose ``ratio`` is the median of the rounds' (the higher middle one of an even count), that ratio,
    and every round's, in the order they ran, when there was more than one (each ratio computed once: a p99 sorts
    every latency of its run)."""
    ratios = [ratio(pair) for pair in pairs]
    middle = sorted(range(len(pairs)), key=ratios.__getitem__)[len(pairs) // 2]
    each = f"; median of {len(pairs)} rounds, each: {', '.join(f'{r:.2f}x' for r in ratios)}" if len(pairs) > 1 else ""
    return pairs[middle], ratios[middle], each


def median_round(pairs: Sequence[Pair], ratio: Callable[[Pair], float]) -> Pair:
    """The round whose ``ratio`` is the median of the rounds' (the higher middle one of an even count)."""
    return _median(pairs, ratio)[0]


def _lost(runs: Sequence[Measurement]) -> tuple[bool, str]:
    """Whether, in every run, every delta the upstream wrote reached its socket and every chat ended done."""
    sent = sum(sum(m.sent.values()) for m in runs)
    lost, undone = sum(m.lost for m in runs), sum(len(m.not_done()) for m in runs)
    figure = f"{lost:,d} of {sent:,d} lost" + (f", {undone} chat(s) not done" if undone else "")
    if len(runs) > 1:
        figure += f" over {len(runs)} rounds"
    return lost == 0 and not undone and sent > 0, figure


def _delivery(number: int, runs: Sequence[Measurement], note: str) -> str:
    return verdict(number, f"zero lost deltas{note}", *_lost(runs))


def cpu_ratio(pair: Pair) -> float:
    relay_us, app_us = server_us_per_delta(pair[0]), server_us_per_delta(pair[1])
    return app_us / relay_us if relay_us else float("inf")


def p99_ratio(pair: Pair) -> float:
    return _p99(pair[1]) / _p99(pair[0])


def _cpu_ratio(number: int, pairs: Sequence[Pair], limit: float, note: str) -> str:
    (relay, app), ratio, each = _median(pairs, cpu_ratio)
    app_us, relay_us = server_us_per_delta(app), server_us_per_delta(relay)
    figure = f"{ratio:.2f}x: {app_us:.0f} against {relay_us:.0f} us/delta"
    app_steady, relay_steady = steady_us_per_delta(app), steady_us_per_delta(relay)
    if not math.isnan(app_steady) and not math.isnan(relay_steady):
        # The two parts of the whole figure: streaming, and each turn's start and end shared over its deltas.
        figure += (
            f"; while every chat streamed {app_steady / relay_steady:.2f}x: {app_steady:.0f} against"
            f" {relay_steady:.0f}; per turn beyond its deltas {turn_ms(app):.1f} against {turn_ms(relay):.1f} ms"
        )
    figure += each
    return verdict(number, f"app CPU per delta <= {limit:g}x the relay floor's{note}", ratio <= limit, figure)


def target_one(chats: int, rate: float, pairs: Sequence[Pair]) -> list[str]:
    """Ours over the floor, one process: the p99 and the CPU per delta against the relay floor's."""
    note = scope(ONE_CHATS, chats, rate)
    (relay, app), ratio, each = _median(pairs, p99_ratio)
    app_p99, relay_p99 = _p99(app), _p99(relay)
    text = f"app p99 added latency <= {MAX_P99_RATIO:g}x the relay floor's{note}"
    figure = f"{ratio:.2f}x: {app_p99:.1f} against {relay_p99:.1f} ms{each}"
    if daphne_percent(relay) >= FLOOR_SATURATED_PERCENT:
        # Both backlogs then: a ratio of two saturated processes' p99s says nothing of the app's added latency.
        busy = f"the relay floor itself used {daphne_percent(relay):.0f}% of a core"
        p99 = f"target 1: {text}: NOT MEASURABLE on this machine ({busy}; {figure})"
    else:
        p99 = verdict(1, text, ratio <= MAX_P99_RATIO, figure)
    apps = [app for _, app in pairs]
    return [p99, _cpu_ratio(1, pairs, MAX_CPU_RATIO, note), _delivery(1, apps, note)]


def target_three(chats: int, rate: float, pairs: Sequence[Pair]) -> list[str]:
    """200 chats on one process: nothing lost, and the CPU per delta within 2x the relay floor's."""
    note = scope(MANY_CHATS, chats, rate)
    return [_delivery(3, [app for _, app in pairs], note), _cpu_ratio(3, pairs, MAX_CPU_RATIO_MANY, note)]


def target_four(chats: int, rate: float, two: Measurement, split: dict[str, int]) -> list[str]:
    """Two processes: zero lost, and the chats really were split (nginx gave each process some of them)."""
    delivered, figure = _lost([two])
    both = len(split) == 2 and all(split.values())
    shares = "/".join(str(count) for count in split.values())
    text = f"{TWO_TEXT}{scope(TWO_CHATS, chats, rate)}"
    return [verdict(4, text, delivered and both, f"{figure}; chats per process {shares}")]


def target_four_not_run(reason: str) -> list[str]:
    return [verdict(4, TWO_TEXT, False, f"could not run: {reason}")]
