"""Frames at display rate: the app streaming fast chats with its frame interval and without, in the same run.

    ./scripts/bench ws_stream --display-rate [--chats 20 --rate 500 --seconds 10]

Target (issue "Live streaming speed", item 2): at 20 chats x 500 deltas/s, messages per socket per second <= 60,
the server's CPU per delta <= 0.5x the uncoalesced path, every delta delivered in order, p99 added latency <= 2
frames. The uncoalesced path is the same app with ``CROSSWIRE_FRAME_INTERVAL_MS=0``, measured right before.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

FRAME_MS = 17  # a 60 Hz display frame, rounded up: at most 58.8 messages a second
DEFAULTS = {"chats": 20, "rate": 500.0}
MAX_MESSAGES_PER_S, MAX_CPU_RATIO, MAX_P99_FRAMES = 60.0, 0.5, 2


def messages_per_socket_s(m: Any) -> float:
    """Mean over sockets of messages received per second of that socket's own stream."""
    rates = []
    for r in m.results:
        if len(r.sent_at) > 1:
            span = r.sent_at[-1] + r.latencies_ms[-1] / 1000 - r.sent_at[0]
            rates.append(r.frames / max(span, 1e-9))
    return sum(rates) / len(rates) if rates else float("nan")


def run(args: argparse.Namespace, measure_app: Callable[..., Any]) -> None:
    from ws_measure import Summary, server_us_per_delta
    from ws_report import cpu_line as _cpu_line
    from ws_report import row as _row
    from ws_targets import RATE

    # The main bench's defaults mean "not given" here: this target is stated for fewer, faster chats.
    if args.chats is None:
        args.chats = DEFAULTS["chats"]
    if args.rate == RATE:
        args.rate = DEFAULTS["rate"]
    with tempfile.TemporaryDirectory(prefix="ws-display-") as tmp:
        every = measure_app(args, Path(tmp), "app, every step", CROSSWIRE_FRAME_INTERVAL_MS="0")
        framed = measure_app(args, Path(tmp), f"app, {FRAME_MS} ms frames", CROSSWIRE_FRAME_INTERVAL_MS=str(FRAME_MS))
    print(f"\n{args.chats} chats x {args.rate:g} deltas/s x {args.seconds:g} s, one daphne process")
    for m in (every, framed):
        print(_row(m, Summary.of(m, args.seconds)))
        print(_cpu_line(m))
    rate = messages_per_socket_s(framed)
    cpu_ratio = server_us_per_delta(framed) / server_us_per_delta(every)
    p99 = Summary.of(framed, args.seconds).p99
    disordered = sum(not r.in_order for r in framed.results)
    whole = framed.lost == 0 and not framed.not_done() and not disordered
    print(f"messages per socket per second: every step {messages_per_socket_s(every):.1f}, framed {rate:.1f}")
    print(
        _verdict(f"messages per socket per second <= {MAX_MESSAGES_PER_S:g}", rate <= MAX_MESSAGES_PER_S, f"{rate:.1f}")
    )
    print(_verdict(f"CPU per delta <= {MAX_CPU_RATIO:g}x uncoalesced", cpu_ratio <= MAX_CPU_RATIO, f"{cpu_ratio:.2f}x"))
    figure = f"{framed.lost} lost, {len(framed.not_done())} chats not done, {disordered} out of order"
    print(_verdict("every delta delivered, in order", whole, figure))
    limit = MAX_P99_FRAMES * FRAME_MS
    print(_verdict(f"p99 added latency <= {MAX_P99_FRAMES} frames ({limit} ms)", p99 <= limit, f"{p99:.1f} ms"))


def _verdict(target: str, met: bool, figure: str) -> str:
    return f"target: {target}: {'MET' if met else 'MISSED'} ({figure})"
