"""A streaming answer's path through the app in one process, against the relay floor's handling of the same bytes.

Run with the bench dependencies:  ./scripts/bench stream_path [--deltas 500] [--answers 40] [--rounds 5] [--path app]

ws_stream measures whole processes under daphne, on a machine whose speed drifts by tens of percent within minutes:
a change worth a few microseconds per delta is lost in it. This bench takes the network, daphne and the database
away and keeps the code that is ours. Each answer is the SSE bytes of the ws_stream upstream (bench/ws_upstream.py,
``--deltas`` text deltas), fed chunk by chunk:

- **relay floor**: what bench/ws_relay.py does with each event: split the SSE, parse the JSON, build the
  ``rt.wire`` and ``rt.delta`` frames and encode them as one message.
- **crosswire app**: the round trip's own reading (``RoundTripRun._on_sse``: the key scrub, the decoder, the
  strategy's reader, the accumulator), the saved conversation's hooks, the run's queue and pacing (no frame
  interval: one message per chunk, as at 50 deltas/s) and the fan-out to one socket, through the event loop as a
  run does: the socket's send does nothing, and the raw events are handed to a batch writer that drops them (their
  saving is the ORM thread's work, not this path's).

Both run on one event loop, one turn of it per chunk, taking turns within each round; each one's best round's CPU
per delta is printed, with the ratio. On a machine this noisy, count instructions instead, which the same code and
inputs repeat exactly: ``valgrind --tool=callgrind`` over ``--path app --rounds 1`` at two ``--answers`` counts
(2 and 12, say); the difference of the two totals, divided by the deltas between them, is the path's instructions
per delta, start-up and set-up cancelled out.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ws_upstream import StreamTemplate

from providers import jsontext

Answer = Callable[[], Awaitable[int]]


def chunks(deltas: int) -> list[bytes]:
    """One answer's bytes as the upstream writes them: its head, one chunk per delta, its tail."""
    template = StreamTemplate.build()
    return [template.head, *(template.chunk(f"{n:08d}" + "x" * 24) for n in range(deltas)), template.tail]


def relay_answer(parts: list[bytes]) -> Answer:
    async def answer() -> int:
        sent, pending = 0, b""
        for chunk in parts:
            *events, pending = (pending + chunk).split(b"\n\n")
            for event in events:
                data = event.removeprefix(b"data: ").decode()
                if data == "[DONE]":
                    continue
                frames = [{"type": "rt.wire", "rt": 0, "t_ms": 1.0, "event": None, "data": data}]
                delta = (jsontext.loads(data).get("choices") or [{}])[0].get("delta", {})
                if delta.get("content"):
                    frames.append({"type": "rt.delta", "rt": 0, "kind": "text", "text": delta["content"]})
                sent += len(jsontext.dumps(frames))
            await asyncio.sleep(0)  # the next chunk comes from the network: a turn of the event loop
        return sent

    return answer


def app_answer(parts: list[bytes]) -> Answer:
    from playground.chat.event_saver import EventSaver
    from playground.chat.hooks import ConversationHooks
    from playground.chat.registry import ActiveRun
    from playground.conversations.models import Conversation, RoundTrip
    from providers.client.run import RoundTripRun
    from providers.client.sdk import Endpoint
    from providers.sse import SSEParser

    class DroppedEvents:
        """The process's batch writer, without the database: what a saver hands it is dropped."""

        def want(self, saver: EventSaver) -> None:
            saver.pending.clear()

    async def answer() -> int:
        sent = 0

        async def socket(text: str) -> None:
            nonlocal sent
            sent += len(text)

        conversation = Conversation(pk=1, format="openai-chat", model="bench-1")
        run = ActiveRun(conversation_id=1, frame_interval_s=0.0)
        run.subscribe(socket)
        hooks = ConversationHooks(conversation, run, {})
        request = {"model": "bench-1", "messages": [{"role": "user", "content": "go"}], "stream": True}
        endpoint = Endpoint("openai-chat", "http://127.0.0.1:9/v1", "sk-bench-not-a-key")
        trip = RoundTripRun(endpoint, request, functools.partial(hooks.on_update, 0))
        trip.emit_now = functools.partial(hooks.on_stream, 0)  # as the tool loop passes them
        run.new_round_trip()
        saver = EventSaver(RoundTrip(pk=1))
        saver._writer = DroppedEvents()  # type: ignore[assignment]
        hooks.savers[0] = saver
        parser, decoder = SSEParser(), trip.codec.new_stream_decoder()
        for chunk in parts:
            for sse in parser.feed(chunk):
                await trip._on_sse(decoder, sse.event, sse.data, sse)
            await asyncio.sleep(0)  # as the relay: the run awaits the next chunk, and what it queued goes out
        await run.send_queued()
        return sent

    return answer


def us_per_delta(loop: asyncio.AbstractEventLoop, answer: Answer, args: argparse.Namespace) -> float:
    started = time.process_time()
    for _ in range(args.answers):
        assert loop.run_until_complete(answer()) > 0, "nothing was sent"
    return (time.process_time() - started) / args.answers / args.deltas * 1e6


def best_of_rounds(loop: asyncio.AbstractEventLoop, paths: list[Answer], args: argparse.Namespace) -> list[float]:
    """Each path's best round; the paths take turns within each round, so both meet the machine's drift alike."""
    for answer in paths:
        loop.run_until_complete(answer())  # warm: imports, first calls
    best = [float("inf")] * len(paths)
    for _ in range(args.rounds):
        for n, answer in enumerate(paths):
            best[n] = min(best[n], us_per_delta(loop, answer, args))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=500, help="text deltas per answer (ws_stream: 500)")
    parser.add_argument("--answers", type=int, default=40, help="answers per round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; the best one counts")
    parser.add_argument(
        "--path", choices=("both", "relay", "app"), default="both", help="one path alone (for an instruction count)"
    )
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
    import django

    django.setup()
    parts = chunks(args.deltas)
    loop = asyncio.new_event_loop()
    paths = {"relay floor": relay_answer(parts), "crosswire app": app_answer(parts)}
    if args.path != "both":
        name = "relay floor" if args.path == "relay" else "crosswire app"
        paths = {name: paths[name]}
    best = dict(zip(paths, best_of_rounds(loop, list(paths.values()), args), strict=True))
    print(f"{args.answers} answers of {args.deltas} deltas, best of {args.rounds} rounds, CPU per delta in process:")
    for name, us in best.items():
        print(f"  {name:<15} {us:6.1f} us")
    if len(best) == 2:
        relay, app = best.values()
        print(f"app/relay floor: {app / relay:.2f}x; the app's own: {app - relay:.1f} us per delta")


if __name__ == "__main__":
    main()
