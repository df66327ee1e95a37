"""WebSocket streaming: N concurrent chats through daphne, against an upstream model at a set pace, with the targets.

Run with the bench dependencies:
    ./scripts/bench ws_stream                              # the full run: every target, MET or MISSED (~6-10 min)
    ./scripts/bench ws_stream --chats-list 20 40           # the same full run at smaller sizes: a quick check
    ./scripts/bench ws_stream --chats 100 [--rate 50]      # one size: bare, relay floor and app, and their verdicts
    ./scripts/bench ws_stream --chats 100 --rounds 1       # one pair of runs only, as before rounds (~1 min)
    ./scripts/bench ws_stream --processes 2 [--chats 100]  # only the two-process run behind nginx (Redis needed)
    ./scripts/bench ws_stream --display-rate               # frames at display rate (bench/ws_display.py)

The full run (no size given) measures, one part after the other: 100 chats (target 1), 200 chats (target 3), both
as the trio below, then 100 chats over two app processes behind nginx with Redis (target 4, bench/ws_two.py);
it prints each part as it ends, then every verdict together (bench/ws_targets.py states the targets).

Each size is measured in ``--rounds`` rounds (3 unless told): the bare send once, then the relay floor and the app
in each round, taking turns going first. The machine's speed drifts by tens of percent within minutes, so one pair
of runs gives a ratio its drift decides as much as the code; each ratio's verdict is the median round's, with every
round's ratio printed beside it (bench/ws_targets.py).

The trio, one after the other so they never share the CPU, with the same client code:

- **bare daphne send**: a raw ASGI app under daphne (bench/ws_bare.py) that sends the frames the app would send for
  each delta (same shapes and sizes, same rate, same number of sockets) from timestamps it takes itself. The floor
  of daphne + autobahn + the client on this machine.
- **relay floor**: a raw ASGI app under daphne (bench/ws_relay.py) that reads the same upstream through the
  official SDK on the app's HTTP client and forwards each event as the message the app would send, doing nothing
  else. What reading a provider's stream costs in the same process, with the parts the app must use.
- **crosswire app**: the real app (service, hooks, registry, consumer) in one daphne process, DEBUG off, SQLite in a
  temporary directory, the in-memory channel layer (or Redis with ``--redis-url``). Each chat is a conversation
  whose endpoint is an OpenAI-compatible upstream (bench/ws_upstream.py) streaming text deltas that carry their
  send time.

Added latency per delta = the moment its rt.delta frame arrives at the client - the moment the upstream (or the bare
app) wrote it, both on the system-wide monotonic clock. Lost deltas = deltas the upstream wrote for a chat that
the chat's socket never got. CPU per process comes from /proc; the machine's share includes everyone's work.
Everything listens on 127.0.0.1, every wait is bounded, and every process is stopped by its PID.
"""

from __future__ import annotations

import argparse
import copy
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import ws_display
import ws_targets
from ws_measure import Measurement, measure_app, measure_bare, measure_relay
from ws_report import load_average, report
from ws_two import DEFAULT_REDIS_URL, CannotRun, measure_two, report_two

# What may go wrong starting the two-process run (a server that will not start, a refused sign-in): said as its
# verdict, so the one-process results of the full run are not thrown away with a traceback.
TWO_FAILURES = (CannotRun, RuntimeError, OSError, AssertionError, subprocess.SubprocessError)


def sized(args: argparse.Namespace, chats: int) -> argparse.Namespace:
    """The options of one part of the run, at its own number of chats."""
    part = copy.copy(args)
    part.chats = chats
    return part


def run_trio(args: argparse.Namespace, work: Path) -> list[ws_targets.Pair]:
    """Bare send, then relay floor and app at ``args.chats`` for ``args.rounds`` rounds, each printed as soon as it
    is measured: the relay floor and the app take turns going first, so the machine's drift favours neither."""
    work.mkdir()
    bare, pairs = measure_bare(args, work), []
    for number in range(1, args.rounds + 1):
        here = work / f"round-{number}"
        here.mkdir()
        if number % 2:
            relay, app = measure_relay(args, here), measure_app(args, here)
        else:
            app, relay = measure_app(args, here), measure_relay(args, here)
        if args.rounds > 1:
            order = "relay floor, then app" if number % 2 else "app, then relay floor"
            print(f"\nround {number} of {args.rounds} ({order}; the bare send is round 1's)")
        report(args, [bare, relay, app], load_average)
        pairs.append((relay, app))
    return pairs


def run_two(args: argparse.Namespace, work: Path, one: Measurement | None) -> list[str]:
    """Target 4's measurement, printed beside ``one`` (the one-process app at the same size, if measured)."""
    work.mkdir()
    try:
        two = measure_two(args, work)
    except TWO_FAILURES as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"\ntwo processes: could not run: {exc}")
        return ws_targets.target_four_not_run(reason)
    report_two(two, one, args.seconds, load_average())
    return ws_targets.target_four(args.chats, args.rate, two.measurement, two.split)


def print_verdicts(lines: list[str]) -> list[str]:
    for line in lines:
        print(line)
    return lines


def full_run(args: argparse.Namespace, one_chats: int, many_chats: int) -> None:
    """Every target in one run, on one machine: the ratios compare measurements taken minutes apart at most."""
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="ws-stream-") as tmp:
        one = sized(args, one_chats)
        pairs = run_trio(one, Path(tmp) / "one")
        lines += print_verdicts(ws_targets.target_one(one.chats, one.rate, pairs))
        many = sized(args, many_chats)
        lines += print_verdicts(ws_targets.target_three(many.chats, many.rate, run_trio(many, Path(tmp) / "many")))
        _, app = ws_targets.median_round(pairs, ws_targets.cpu_ratio)
        lines += print_verdicts(run_two(one, Path(tmp) / "two", app))
    print(f"\nTargets ({one_chats} and {many_chats} chats x {args.rate:g} deltas/s, this machine, this run):")
    print_verdicts(lines)


def single_size(args: argparse.Namespace) -> None:
    """One size's trio, with the verdicts a trio can give (marked when the size is not the one they are stated for)."""
    with tempfile.TemporaryDirectory(prefix="ws-stream-") as tmp:
        pairs = run_trio(args, Path(tmp) / "one")
    print_verdicts(ws_targets.target_one(args.chats, args.rate, pairs))
    print_verdicts(ws_targets.target_three(args.chats, args.rate, pairs))


def two_only(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="ws-stream-") as tmp:
        print_verdicts(run_two(args, Path(tmp) / "two", None))


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, help="one size only: concurrent chats (one socket each)")
    parser.add_argument(
        "--chats-list", type=int, nargs=2, metavar=("ONE", "MANY"), help="the full run at these sizes, not 100 200"
    )
    parser.add_argument(
        "--processes", type=int, choices=(1, 2), help="one size only (--chats, default 100): 1 the trio, 2 behind nginx"
    )
    parser.add_argument("--rate", type=float, default=ws_targets.RATE, help="deltas per second per chat")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long each answer streams")
    parser.add_argument("--chars", type=int, default=32, help="characters of text per delta")
    parser.add_argument("--ramp", type=float, default=2.0, help="seconds over which the chats are started")
    parser.add_argument(
        "--rounds", type=int, default=3, help="relay floor and app, taking turns, this many times per size (median)"
    )
    parser.add_argument("--client-procs", type=int, default=1, help="client processes the chats are split over")
    parser.add_argument(
        "--redis-url",
        default="",
        help=f"the app's channel layer on this Redis (default: in-memory; two processes: {DEFAULT_REDIS_URL})",
    )
    parser.add_argument(
        "--display-rate",
        action="store_true",
        help="frames at display rate: the app with and without its frame interval, 20 chats x 500 deltas/s",
    )
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.chats_list and (args.chats or args.processes):
        parser.error("--chats-list is the full run's sizes; --chats and --processes are for one size")
    return args


def main() -> None:
    args = parse_args()
    # SIGTERM unwinds like Ctrl-C, so the finally blocks stop every server.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    print(f"load average before: {load_average()}")
    if args.display_rate:
        ws_display.run(args, measure_app)
    elif args.chats is None and args.processes is None:
        full_run(args, *(args.chats_list or (ws_targets.ONE_CHATS, ws_targets.MANY_CHATS)))
    elif args.processes == 2:
        two_only(sized(args, args.chats or ws_targets.TWO_CHATS))
    else:
        single_size(sized(args, args.chats or ws_targets.ONE_CHATS))


if __name__ == "__main__":
    main()
