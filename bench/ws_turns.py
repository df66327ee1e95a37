"""The CPU of a chat turn: many short turns through daphne, the relay floor and the app, measured in the same run.

Run with the bench dependencies:
    ./scripts/bench ws_turns                          # 150 turns of 10 deltas each, started over 10 s, twice each
    ./scripts/bench ws_turns --turns 300 --rounds 4   # more turns and more alternations: a steadier median

Each turn is what target 1 of ws_stream counts "beyond its deltas": a socket opened, one message sent, one answer
of ``--answer-s`` seconds streamed (at 50 deltas/s), the socket closed. With answers this short the deltas are a
small part of it, so a change to how a turn starts or ends shows here at once, where the 10-second answers of
ws_stream dilute it in 500 deltas. The relay floor (bench/ws_relay.py) does the same turns with no app logic; the
two are run alternately (``--rounds``), since the machine's speed drifts by tens of percent within minutes, and the
medians and their ratio are printed; each goes first every other round. The daphne process's CPU is read from
/proc: its main thread (the event loop), and the rest of the process (the ORM's thread, and asyncio's for DNS
lookups). The app's own heartbeat (every 2 s) falls in the window too, a small part that grows with ``--over-s``.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ws_clients import Target, run_in_processes
from ws_measure import app_target, chat_keys, started, warm_up
from ws_servers import CLOCK_TICKS, Server, cpu_seconds, start_app, start_relay, start_upstream

RATE = 50.0
CHARS = 32


@dataclass(frozen=True)
class TurnCost:
    name: str
    loop_ms: float  # per turn, on the process's main thread (the event loop)
    others_ms: float  # per turn, on its other threads
    done: int  # turns that ended with run.end "done"

    @property
    def total_ms(self) -> float:
        return self.loop_ms + self.others_ms


def main_thread_seconds(pid: int) -> float:
    """utime + stime of the process's main thread (its event loop) so far."""
    fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def measure(name: str, server: Server, target: Target, ids: list[int], over_s: float) -> TurnCost:
    """The other threads are the whole process less its main thread: the process's figure keeps the CPU of a
    thread that ended meanwhile, which reading each thread's would lose."""
    pid = server.process.pid
    whole, loop = cpu_seconds(pid), main_thread_seconds(pid)
    results = run_in_processes(target, dict(zip(chat_keys(len(ids)), ids, strict=True)), over_s, 1, lambda _: None)
    whole, loop = cpu_seconds(pid) - whole, main_thread_seconds(pid) - loop
    others = max(0.0, whole - loop)  # the two are read a moment apart: a tick either way
    turns = len(ids)
    done = sum(result.ended == "done" for result in results)
    return TurnCost(name, loop / turns * 1000, others / turns * 1000, done)


def relay_turns(args: argparse.Namespace, work: Path) -> TurnCost:
    with contextlib.ExitStack() as stack:
        upstream = started(stack, start_upstream(work, RATE, args.answer_s, CHARS))
        relay = started(stack, start_relay(work, upstream))
        target = Target(f"{relay.ws_url}/ws/", relay.url, "none", {}, args.answer_s + 60)
        warm_up(target, args.turns)
        return measure("relay floor", relay, target, list(range(args.turns)), args.over_s)


def app_turns(args: argparse.Namespace, work: Path) -> TurnCost:
    with contextlib.ExitStack() as stack:
        upstream = started(stack, start_upstream(work, RATE, args.answer_s, CHARS))
        app = start_app(work, upstream, args.turns + 1)
        started(stack, app.server)
        target = app_target(app.server, app.session, app.endpoint_id, argparse.Namespace(seconds=args.answer_s))
        warm_up_id, *ids = app.conversation_ids
        warm_up(target, warm_up_id)
        return measure("crosswire app", app.server, target, ids, args.over_s)


def report(costs: list[TurnCost], turns: int) -> None:
    for cost in costs:
        note = "" if cost.done == turns else f" ({turns - cost.done} turns not done)"
        print(
            f"  {cost.name:14s} {cost.total_ms:6.2f} ms of CPU per turn"
            f" (event loop {cost.loop_ms:.2f}, other threads {cost.others_ms:.2f}){note}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=150, help="turns per measurement, each on its own socket")
    parser.add_argument("--answer-s", type=float, default=0.2, help="how long each answer streams")
    parser.add_argument("--over-s", type=float, default=10.0, help="seconds over which the turns are started")
    parser.add_argument("--rounds", type=int, default=2, help="relay floor and app, alternately, this many times")
    args = parser.parse_args()
    relay: list[TurnCost] = []
    app: list[TurnCost] = []
    print(f"{args.turns} turns of {RATE * args.answer_s:g} deltas each, started over {args.over_s:g} s; one daphne")
    for number in range(1, args.rounds + 1):
        with tempfile.TemporaryDirectory(prefix="ws-turns-") as tmp:
            (Path(tmp) / "relay").mkdir()
            (Path(tmp) / "app").mkdir()
            # Each first in turn (relay, app; app, relay; ...): the machine's drift favours neither every round.
            if number % 2:
                pair = [relay_turns(args, Path(tmp) / "relay"), app_turns(args, Path(tmp) / "app")]
            else:
                pair = list(reversed([app_turns(args, Path(tmp) / "app"), relay_turns(args, Path(tmp) / "relay")]))
        print(f"round {number}:")
        report(pair, args.turns)
        relay.append(pair[0])
        app.append(pair[1])
    relay_ms = statistics.median(cost.total_ms for cost in relay)
    app_ms = statistics.median(cost.total_ms for cost in app)
    ratios = sorted(a.total_ms / r.total_ms for r, a in zip(relay, app, strict=True))
    print(
        f"median CPU per turn: app {app_ms:.2f} ms, relay floor {relay_ms:.2f} ms; app beyond the floor"
        f" {app_ms - relay_ms:.2f} ms; app/relay floor {statistics.median(ratios):.2f}x"
        f" (each round: {', '.join(f'{r:.2f}' for r in ratios)})"
    )


if __name__ == "__main__":
    main()
