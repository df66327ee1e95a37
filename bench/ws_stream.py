"""WebSocket streaming: N concurrent chats through one daphne process, against an upstream model at a set pace.

Run with the bench dependencies:  ./scripts/bench ws_stream [--chats 200] [--rate 50] [--seconds 10]
A quick check:                    ./scripts/bench ws_stream --chats 20 --seconds 5

Three measurements, one after the other so they never share the CPU, with the same client code:

- **bare daphne send**: a raw ASGI app under daphne (bench/ws_bare.py) that sends the frames the app would send for
  each delta (same shapes and sizes, same rate, same number of sockets) from timestamps it takes itself. The floor
  of daphne + autobahn + the client on this machine.
- **relay floor**: a raw ASGI app under daphne (bench/ws_relay.py) that reads the same upstream through the
  official SDK on the app's HTTP client and forwards each event as the message the app would send, doing nothing
  else. What reading a provider's stream costs in the same process, with the parts the app must use.
- **crosswire app**: the real app (service, hooks, registry, consumer) in one daphne process, DEBUG off, SQLite in a
  temporary directory, the in-memory channel layer. Each chat is a conversation whose endpoint is an
  OpenAI-compatible upstream (bench/ws_upstream.py) streaming text deltas that carry their send time.

Added latency per delta = the moment its rt.delta frame arrives at the client - the moment the upstream (or the bare
app) wrote it, both on the system-wide monotonic clock. Lost deltas = deltas the upstream wrote for a chat that
the chat's socket never got. CPU per process comes from /proc; the machine's share includes everyone's work.
Everything listens on 127.0.0.1, every wait is bounded, and every process is stopped by its PID.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import signal
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import ws_display
from ws_clients import ChatResult, Target, run_in_processes
from ws_servers import CpuSampler, Server, start_app, start_bare, start_relay, start_upstream
from ws_upstream import WARM_UP_KEY

TARGET_CHATS, TARGET_RATE, TARGET_RATIO = 200, 50.0, 2.0
HEADER = (
    f"  {'path':18s} {'p50 ms':>7s} {'p99 ms':>7s} {'max ms':>8s} {'steady p99':>10s} {'deltas recv/sent':^17s}"
    f" {'lost':>5s} {'msgs/s':>9s} {'B/delta':>8s} {'window s':>9s}"
)


@dataclass
class Measurement:
    name: str
    results: list[ChatResult]
    sent: dict[str, int]  # deltas written per chat, as the sending server counted them
    cpu: dict[str, float]  # % of one core per process over the streaming window; "machine": % of all cores
    upstream_late_p99_ms: float | None = None

    def latencies(self, start: float = 0.0, end: float = float("inf")) -> list[float]:
        """Sorted latencies (ms) of the deltas stamped between ``start`` and ``end``."""
        values = [
            latency
            for r in self.results
            for sent, latency in zip(r.sent_at, r.latencies_ms, strict=True)
            if start <= sent <= end
        ]
        return sorted(values)

    @property
    def received(self) -> int:
        return sum(len(r.seqs) for r in self.results)

    @property
    def lost(self) -> int:
        return sum(max(0, self.sent.get(r.key, 0) - len(r.seqs)) for r in self.results)

    @property
    def window(self) -> tuple[float, float]:
        """From the first delta written to the last one received."""
        firsts = [r.sent_at[0] for r in self.results if r.sent_at]
        lasts = [r.sent_at[-1] + r.latencies_ms[-1] / 1000 for r in self.results if r.sent_at]
        return (min(firsts), max(lasts)) if firsts else (0.0, 0.0)

    def steady(self, seconds: float) -> tuple[float, float]:
        """While every chat was streaming: after the last chat started and before the first one finished."""
        firsts = [r.sent_at[0] for r in self.results if r.sent_at]
        return (max(firsts), min(firsts) + seconds) if firsts else (0.0, 0.0)

    def not_done(self) -> list[str]:
        return [f"{r.key}: {r.ended or 'no run.end'}" for r in self.results if r.ended != "done"]


def percentile(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def chat_keys(count: int) -> list[str]:
    return [f"bench chat {i}" for i in range(count)]


def _clients(args: argparse.Namespace, target: Target, ids: list[int], sampler: CpuSampler) -> list[ChatResult]:
    def watch(pids: list[int]) -> None:
        sampler.pids.update({f"client {i + 1}": pid for i, pid in enumerate(pids)})
        sampler.start()

    chats = dict(zip(chat_keys(args.chats), ids, strict=True))
    return run_in_processes(target, chats, args.ramp, args.client_procs, watch)


def _warm_up(target: Target, conversation_id: int) -> None:
    """One short chat first, unmeasured: a server that has been up has imported its SDKs and opened its database."""
    [result] = run_in_processes(target, {WARM_UP_KEY: conversation_id}, 0, 1, lambda pids: None)
    if result.ended != "done":
        raise RuntimeError(f"the warm-up chat ended with {result.ended!r}")


def _measured(name: str, results: list[ChatResult], sampler: CpuSampler, sent: dict[str, int]) -> Measurement:
    sampler.stop()
    measurement = Measurement(name, results, {k: v for k, v in sent.items() if k != WARM_UP_KEY}, {})
    measurement.cpu = sampler.percent(*measurement.window)
    return measurement


def _started(stack: contextlib.ExitStack, server: Server) -> Server:
    """A server stopped when the measurement ends, however it ends."""
    stack.callback(server.stop)
    return server


def measure_bare(args: argparse.Namespace, work: Path) -> Measurement:
    with contextlib.ExitStack() as stack:
        server = _started(stack, start_bare(work, args.rate, args.seconds, args.chars))
        sampler = CpuSampler({"daphne": server.process.pid})
        target = Target(f"{server.ws_url}/ws/", server.url, "none", {}, args.seconds + 60)
        _warm_up(target, args.chats)
        results = _clients(args, target, list(range(args.chats)), sampler)
        return _measured("bare daphne send", results, sampler, server.get_json("/stats")["sent"])  # type: ignore[arg-type]


def measure_relay(args: argparse.Namespace, work: Path) -> Measurement:
    log_dir = work / "relay"
    log_dir.mkdir()
    with contextlib.ExitStack() as stack:
        upstream = _started(stack, start_upstream(log_dir, args.rate, args.seconds, args.chars))
        relay = _started(stack, start_relay(log_dir, upstream))
        target = Target(f"{relay.ws_url}/ws/", relay.url, "none", {}, args.seconds + 60)
        _warm_up(target, args.chats)
        return _measured_upstream("relay floor", args, target, list(range(args.chats)), relay, upstream)


def measure_app(args: argparse.Namespace, work: Path, name: str = "crosswire app", **settings: str) -> Measurement:
    data_dir = work / name.replace(" ", "-")
    data_dir.mkdir()
    with contextlib.ExitStack() as stack:
        upstream = _started(stack, start_upstream(data_dir, args.rate, args.seconds, args.chars))
        app = start_app(data_dir, upstream, args.chats + 1, args.redis_url, **settings)
        _started(stack, app.server)
        options = {"endpoint_id": app.endpoint_id, "model": "bench-1", "tools": [], "stream": True}
        ws_url = f"{app.server.ws_url}/ws/conversations/"
        target = Target(ws_url, app.server.url, app.session, options, args.seconds + 60)
        warm_up_id, *conversation_ids = app.conversation_ids
        _warm_up(target, warm_up_id)
        return _measured_upstream(name, args, target, conversation_ids, app.server, upstream)


def _measured_upstream(
    name: str, args: argparse.Namespace, target: Target, ids: list[int], server: Server, upstream: Server
) -> Measurement:
    sampler = CpuSampler({"daphne": server.process.pid, "upstream": upstream.process.pid})
    results = _clients(args, target, ids, sampler)
    stats = upstream.get_json("/stats")
    measurement = _measured(name, results, sampler, stats["sent"])  # type: ignore[arg-type]
    measurement.upstream_late_p99_ms = float(stats["late_p99_ms"])  # type: ignore[arg-type]
    return measurement


@dataclass(frozen=True)
class Summary:
    p50: float
    p99: float
    max: float
    steady_p99: float  # nan when no moment had every chat streaming (the server fell behind starting them)

    @classmethod
    def of(cls, m: Measurement, seconds: float) -> Summary:
        values, steady = m.latencies(), m.latencies(*m.steady(seconds))
        return cls(percentile(values, 0.5), percentile(values, 0.99), values[-1], percentile(steady, 0.99))


def _ms(value: float, width: int) -> str:
    return f"{'-':>{width}s}" if math.isnan(value) else f"{value:{width}.1f}"


def _row(m: Measurement, s: Summary) -> str:
    start, end = m.window
    frames, chars, received = sum(r.frames for r in m.results), sum(r.chars for r in m.results), m.received
    return (
        f"  {m.name:18s} {_ms(s.p50, 7)} {_ms(s.p99, 7)} {_ms(s.max, 8)} {_ms(s.steady_p99, 10)}"
        f" {received:>8,d}/{sum(m.sent.values()):<8,d} {m.lost:5,d} {frames / max(end - start, 1e-9):9,.0f}"
        f" {chars / max(received, 1):8.0f} {end - start:9.1f}"
    )


def server_us_per_delta(m: Measurement) -> float:
    """The server's CPU per delta delivered: one process on a whole core tops out near 1e6 / this deltas/s."""
    start, end = m.window
    return m.cpu.get("daphne", 0.0) / 100 * (end - start) / max(m.received, 1) * 1e6


def others_percent(m: Measurement) -> float:
    """CPU the machine spent on work other than the bench's processes, in % of one core (other people's jobs)."""
    ours = sum(value for name, value in m.cpu.items() if name != "machine")
    return max(0.0, m.cpu["machine"] * (os.cpu_count() or 1) - ours)


def _cpu_line(m: Measurement) -> str:
    parts = [f"{name} {value:.0f}%" for name, value in m.cpu.items() if name != "machine"]
    per_delta = f"daphne {server_us_per_delta(m):.0f} us/delta"
    return f"  {m.name:18s} {', '.join(parts)}, other work {others_percent(m):.0f}%; {per_delta}"


def _slices(m: Measurement) -> str:
    """p99 per second of the run, by the time the delta was written: shows a ramp, a backlog or a stall."""
    start, end = m.window
    cells = []
    for second in range(int(end - start) + 1):
        values = m.latencies(start + second, start + second + 1)
        cells.append(f"{percentile(values, 0.99):.0f}" if values else ".")
    return f"  {m.name:18s} " + " ".join(cells)


def report(args: argparse.Namespace, runs: list[Measurement], load: Callable[[], str]) -> None:
    print(f"\n{args.chats} chats x {args.rate:g} deltas/s x {args.seconds:g} s, {args.chars}-char deltas, started over")
    layer = f"Redis at {args.redis_url}" if args.redis_url else "the in-memory layer"
    print(f"{args.ramp:g} s (a run that keeps pace lasts ~{args.ramp + args.seconds:g} s); one daphne process;")
    print(f"the app's channel layer: {layer};")
    print(f"{args.client_procs} client process(es); load average {load()}")
    print(HEADER)
    summaries = [Summary.of(m, args.seconds) for m in runs]
    for m, summary in zip(runs, summaries, strict=True):
        print(_row(m, summary))
    print(f"CPU over the window, % of one core ({os.cpu_count()} cores; other work: the machine's busy time not ours):")
    for m in runs:
        print(_cpu_line(m))
    print("p99 ms per second of the run:")
    for m in runs:
        print(_slices(m))
    for m in runs:
        if m.upstream_late_p99_ms is not None:
            print(f"{m.name}: upstream writes late against their schedule, p99: {m.upstream_late_p99_ms:.1f} ms")
        if m.not_done():
            print(f"{m.name}: {len(m.not_done())} chat(s) did not end done, e.g. {m.not_done()[0]}")
    bare_s, relay_s, app_s = summaries
    for name, (top, base) in {
        "relay floor/bare": (relay_s, bare_s),
        "crosswire app/bare": (app_s, bare_s),
        "crosswire app/relay floor": (app_s, relay_s),  # what is ours: the same parts, plus the app
    }.items():
        ratio, steady = top.p99 / base.p99, top.steady_p99 / base.steady_p99
        print(f"ratio {name} p99: {ratio:.2f}x (while every chat streamed: {_ms(steady, 0).strip()}x)")
    _verdicts(args, runs[-1], app_s.p99 / bare_s.p99)


def _verdicts(args: argparse.Namespace, app: Measurement, ratio: float) -> None:
    at_target = args.chats >= TARGET_CHATS and args.rate >= TARGET_RATE
    scope = "" if at_target else f" (the targets are stated for {TARGET_CHATS} chats at {TARGET_RATE:g}/s)"
    lost_ok = app.lost == 0 and not app.not_done()
    print(f"target: zero lost deltas{scope}: {'MET' if lost_ok else 'MISSED'} ({app.lost} lost)")
    verdict = "MET" if ratio <= TARGET_RATIO else "MISSED"
    print(f"target: p99 added latency <= {TARGET_RATIO:g}x bare send{scope}: {verdict} ({ratio:.2f}x)")


def load_average() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=TARGET_CHATS, help="concurrent chats (one socket each)")
    parser.add_argument("--rate", type=float, default=TARGET_RATE, help="deltas per second per chat")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long each answer streams")
    parser.add_argument("--chars", type=int, default=32, help="characters of text per delta")
    parser.add_argument("--ramp", type=float, default=2.0, help="seconds over which the chats are started")
    parser.add_argument("--client-procs", type=int, default=1, help="client processes the chats are split over")
    parser.add_argument("--redis-url", default="", help="the app's channel layer on this Redis (default: in-memory)")
    parser.add_argument(
        "--display-rate",
        action="store_true",
        help="frames at display rate: the app with and without its frame interval, 20 chats x 500 deltas/s",
    )
    args = parser.parse_args()
    # SIGTERM unwinds like Ctrl-C, so the finally blocks stop every server.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    print(f"load average before: {load_average()}")
    if args.display_rate:
        ws_display.run(args, measure_app)
        return
    with tempfile.TemporaryDirectory(prefix="ws-stream-") as tmp:
        runs = [measure_bare(args, Path(tmp)), measure_relay(args, Path(tmp)), measure_app(args, Path(tmp))]
    report(args, runs, load_average)


if __name__ == "__main__":
    main()
