"""The measurements of the ws_stream bench: one server (or set of servers) streaming N chats, timed at the client.

Each ``measure_*`` starts its servers, warms them up with one unmeasured chat, runs the chats from client
processes while ``CpuSampler`` reads /proc, and stops every server by its PID however the measurement ends.
bench/ws_stream.py runs them one after the other and prints them (bench/ws_report.py, bench/ws_targets.py).
"""

from __future__ import annotations

import argparse
import contextlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from ws_clients import ChatResult, Target, run_in_processes
from ws_servers import CpuSampler, Server, start_app, start_bare, start_relay, start_upstream
from ws_upstream import WARM_UP_KEY

StartedT = TypeVar("StartedT", bound=Server)
STEADY_MIN_S = 1.0


@dataclass
class Measurement:
    name: str
    results: list[ChatResult]
    sent: dict[str, int]  # deltas written per chat, as the sending server counted them
    cpu: dict[str, float]  # % of one core per process over the streaming window; "machine": % of all cores
    upstream_late_p99_ms: float | None = None
    # The same while every chat streamed (``steady``): no turn starting or ending. Empty when that was under a second.
    steady_cpu: dict[str, float] = field(default_factory=dict)
    steady_window: tuple[float, float] = (0.0, 0.0)

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


@dataclass(frozen=True)
class Summary:
    p50: float
    p99: float
    max: float
    steady_p99: float  # nan when no moment had every chat streaming (the server fell behind starting them)

    @classmethod
    def of(cls, m: Measurement, seconds: float) -> Summary:
        values, steady = m.latencies(), m.latencies(*m.steady(seconds))
        maximum = values[-1] if values else math.nan
        return cls(percentile(values, 0.5), percentile(values, 0.99), maximum, percentile(steady, 0.99))


def daphne_percent(m: Measurement) -> float:
    """The CPU of the daphne process(es) under test, % of one core: the sum when the chats are split over several."""
    return sum(value for name, value in m.cpu.items() if name.startswith("daphne"))


def server_us_per_delta(m: Measurement) -> float:
    """The server's CPU per delta delivered: one process on a whole core tops out near 1e6 / this deltas/s."""
    start, end = m.window
    return daphne_percent(m) / 100 * (end - start) / max(m.received, 1) * 1e6


def steady_us_per_delta(m: Measurement) -> float:
    """The server's CPU per delta while every chat streamed: what streaming costs, without a turn's start or end."""
    daphnes = sum(value for name, value in m.steady_cpu.items() if name.startswith("daphne"))
    start, end = m.steady_window
    deltas = len(m.latencies(start, end))
    return daphnes / 100 * (end - start) / deltas * 1e6 if m.steady_cpu and deltas else math.nan


def turn_ms(m: Measurement) -> float:
    """The server's CPU per turn beyond its deltas: the whole window's CPU less every delta at the steady cost,
    shared over the chats (one turn each), in ms."""
    start, end = m.window
    whole_us = daphne_percent(m) / 100 * (end - start) * 1e6
    return (whole_us - steady_us_per_delta(m) * m.received) / max(len(m.results), 1) / 1000


def _clients(args: argparse.Namespace, target: Target, ids: list[int], sampler: CpuSampler) -> list[ChatResult]:
    def watch(pids: list[int]) -> None:
        sampler.pids.update({f"client {i + 1}": pid for i, pid in enumerate(pids)})
        sampler.start()

    chats = dict(zip(chat_keys(args.chats), ids, strict=True))
    return run_in_processes(target, chats, args.ramp, args.client_procs, watch)


def warm_up(target: Target, conversation_id: int) -> None:
    """One short chat first, unmeasured: a server that has been up has imported its SDKs and opened its database."""
    [result] = run_in_processes(target, {WARM_UP_KEY: conversation_id}, 0, 1, lambda pids: None)
    if result.ended != "done":
        raise RuntimeError(f"the warm-up chat ended with {result.ended!r}")


def _measured(
    name: str, results: list[ChatResult], sampler: CpuSampler, sent: dict[str, int], seconds: float
) -> Measurement:
    sampler.stop()
    measurement = Measurement(name, results, {k: v for k, v in sent.items() if k != WARM_UP_KEY}, {})
    measurement.cpu = sampler.percent(*measurement.window)
    start, end = measurement.steady(seconds)
    if end - start >= STEADY_MIN_S:  # enough CPU samples in it (every 0.2 s) to say something
        measurement.steady_window, measurement.steady_cpu = (start, end), sampler.percent(start, end)
    return measurement


def started(stack: contextlib.ExitStack, server: StartedT) -> StartedT:
    """A server stopped when the measurement ends, however it ends."""
    stack.callback(server.stop)
    return server


def app_target(server: Server, session: str, endpoint_id: int, args: argparse.Namespace) -> Target:
    """The app's chat sockets on ``server`` (a daphne process, or the proxy in front of several)."""
    options = {"endpoint_id": endpoint_id, "model": "bench-1", "tools": [], "stream": True}
    return Target(f"{server.ws_url}/ws/conversations/", server.url, session, options, args.seconds + 60)


def measure_bare(args: argparse.Namespace, work: Path) -> Measurement:
    with contextlib.ExitStack() as stack:
        server = started(stack, start_bare(work, args.rate, args.seconds, args.chars))
        sampler = CpuSampler({"daphne": server.process.pid})
        target = Target(f"{server.ws_url}/ws/", server.url, "none", {}, args.seconds + 60)
        warm_up(target, args.chats)
        results = _clients(args, target, list(range(args.chats)), sampler)
        sent = server.get_json("/stats")["sent"]
        return _measured("bare daphne send", results, sampler, sent, args.seconds)  # type: ignore[arg-type]


def measure_relay(args: argparse.Namespace, work: Path) -> Measurement:
    log_dir = work / "relay"
    log_dir.mkdir()
    with contextlib.ExitStack() as stack:
        upstream = started(stack, start_upstream(log_dir, args.rate, args.seconds, args.chars))
        relay = started(stack, start_relay(log_dir, upstream))
        target = Target(f"{relay.ws_url}/ws/", relay.url, "none", {}, args.seconds + 60)
        warm_up(target, args.chats)
        pids = {"daphne": relay.process.pid}
        return measured_upstream("relay floor", args, target, list(range(args.chats)), pids, upstream)


def measure_app(args: argparse.Namespace, work: Path, name: str = "crosswire app", **settings: str) -> Measurement:
    data_dir = work / name.replace(" ", "-")
    data_dir.mkdir()
    with contextlib.ExitStack() as stack:
        upstream = started(stack, start_upstream(data_dir, args.rate, args.seconds, args.chars))
        app = start_app(data_dir, upstream, args.chats + 1, args.redis_url, **settings)
        started(stack, app.server)
        target = app_target(app.server, app.session, app.endpoint_id, args)
        warm_up_id, *conversation_ids = app.conversation_ids
        warm_up(target, warm_up_id)
        pids = {"daphne": app.server.process.pid}
        return measured_upstream(name, args, target, conversation_ids, pids, upstream)


def measured_upstream(
    name: str, args: argparse.Namespace, target: Target, ids: list[int], pids: dict[str, int], upstream: Server
) -> Measurement:
    """The chats against servers reading the bench upstream; ``pids``: the servers' processes, by name."""
    sampler = CpuSampler({**pids, "upstream": upstream.process.pid})
    results = _clients(args, target, ids, sampler)
    stats = upstream.get_json("/stats")
    measurement = _measured(name, results, sampler, stats["sent"], args.seconds)  # type: ignore[arg-type]
    measurement.upstream_late_p99_ms = float(stats["late_p99_ms"])  # type: ignore[arg-type]
    return measurement
