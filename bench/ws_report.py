"""The tables of the ws_stream bench: latency, delivery and CPU per measurement, and the p99 second by second."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable

from ws_measure import (
    Measurement,
    Summary,
    daphne_percent,
    percentile,
    server_us_per_delta,
    steady_us_per_delta,
    turn_ms,
)

HEADER = (
    f"  {'path':18s} {'p50 ms':>7s} {'p99 ms':>7s} {'max ms':>8s} {'steady p99':>10s} {'deltas recv/sent':^17s}"
    f" {'lost':>5s} {'msgs/s':>9s} {'B/delta':>8s} {'window s':>9s}"
)


def _ms(value: float, width: int) -> str:
    return f"{'-':>{width}s}" if math.isnan(value) else f"{value:{width}.1f}"


def row(m: Measurement, s: Summary) -> str:
    start, end = m.window
    frames, chars, received = sum(r.frames for r in m.results), sum(r.chars for r in m.results), m.received
    return (
        f"  {m.name:18s} {_ms(s.p50, 7)} {_ms(s.p99, 7)} {_ms(s.max, 8)} {_ms(s.steady_p99, 10)}"
        f" {received:>8,d}/{sum(m.sent.values()):<8,d} {m.lost:5,d} {frames / max(end - start, 1e-9):9,.0f}"
        f" {chars / max(received, 1):8.0f} {end - start:9.1f}"
    )


def others_percent(m: Measurement) -> float:
    """CPU the machine spent on work other than the bench's processes, in % of one core (other people's jobs)."""
    ours = sum(value for name, value in m.cpu.items() if name != "machine")
    return max(0.0, m.cpu["machine"] * (os.cpu_count() or 1) - ours)


def cpu_line(m: Measurement) -> str:
    parts = [f"{name} {value:.0f}%" for name, value in m.cpu.items() if name != "machine"]
    daphnes = [name for name in m.cpu if name.startswith("daphne")]
    # With the chats split over several processes, what a delta costs is their sum.
    label = "daphne" if len(daphnes) == 1 else f"{' + '.join(daphnes)} = {daphne_percent(m):.0f}%,"
    per_delta = f"{label} {server_us_per_delta(m):.0f} us/delta"
    steady = steady_us_per_delta(m)
    if not math.isnan(steady):
        per_delta += f" ({steady:.0f} while every chat streamed; {turn_ms(m):.1f} ms per turn beyond)"
    return f"  {m.name:18s} {', '.join(parts)}, other work {others_percent(m):.0f}%; {per_delta}"


def slices(m: Measurement) -> str:
    """p99 per second of the run, by the time the delta was written: shows a ramp, a backlog or a stall."""
    start, end = m.window
    cells = []
    for second in range(int(end - start) + 1):
        values = m.latencies(start + second, start + second + 1)
        cells.append(f"{percentile(values, 0.99):.0f}" if values else ".")
    return f"  {m.name:18s} " + " ".join(cells)


def print_tables(runs: list[Measurement], seconds: float) -> None:
    """The latency table, the CPU lines and the per-second p99 of ``runs``, with anything that went wrong."""
    print(HEADER)
    for m in runs:
        print(row(m, Summary.of(m, seconds)))
    print(f"CPU over the window, % of one core ({os.cpu_count()} cores; other work: the machine's busy time not ours):")
    for m in runs:
        print(cpu_line(m))
    print("p99 ms per second of the run:")
    for m in runs:
        print(slices(m))
    for m in runs:
        if m.upstream_late_p99_ms is not None:
            print(f"{m.name}: upstream writes late against their schedule, p99: {m.upstream_late_p99_ms:.1f} ms")
        if m.not_done():
            print(f"{m.name}: {len(m.not_done())} chat(s) did not end done, e.g. {m.not_done()[0]}")


def report(args: argparse.Namespace, runs: list[Measurement], load: Callable[[], str]) -> None:
    """One size's bare send, relay floor and app, and the p99 ratios between them."""
    print(f"\n{args.chats} chats x {args.rate:g} deltas/s x {args.seconds:g} s, {args.chars}-char deltas, started over")
    layer = f"Redis at {args.redis_url}" if args.redis_url else "the in-memory layer"
    print(f"{args.ramp:g} s (a run that keeps pace lasts ~{args.ramp + args.seconds:g} s); one daphne process;")
    print(f"the app's channel layer: {layer};")
    print(f"{args.client_procs} client process(es); load average {load()}")
    print_tables(runs, args.seconds)
    bare_s, relay_s, app_s = (Summary.of(m, args.seconds) for m in runs)
    for name, (top, base) in {
        "relay floor/bare": (relay_s, bare_s),
        "crosswire app/bare": (app_s, bare_s),
        "crosswire app/relay floor": (app_s, relay_s),  # what is ours: the same parts, plus the app
    }.items():
        ratio, steady = top.p99 / base.p99, top.steady_p99 / base.steady_p99
        print(f"ratio {name} p99: {ratio:.2f}x (while every chat streamed: {_ms(steady, 0).strip()}x)")


def load_average() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())
