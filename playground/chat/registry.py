"""Runs in flight in this process, and how their frames reach browsers.

A run belongs to the process that started it, not to a socket: closing the tab does not stop it. Frames go two
ways: straight to the sockets of this process that watch the run (no channel layer, so nothing is dropped and
nothing waits), and, coalesced every ~25 ms, through the channel layer to sockets in other processes.
Control messages (a typed tool result, an approval, Stop) come back through the layer from any process.

Local sockets get the frames of one step of the run together (local_feed.py): ``emit`` only queues, and a callback
of the event loop sends whatever has queued, serialised once as one JSON array, as soon as the run awaits (the next
chunk from the provider); the server's send never waits, so it runs in that callback, not in a task per message
(eager.py). One upstream event makes an ``rt.wire`` and an ``rt.delta`` frame, so this halves the WebSocket
messages and the serialising of a streaming chat without delaying any frame (see docs/performance.md).

Every socket of this process that shows the conversation is fed directly, whether it opened before the run or
joined during it, so batches go through the layer only for sockets that need them: with the in-memory layer, which
reaches no other process, not at all; with a shared one (Redis), while a socket of another process says it watches
(a ``watch`` control message, sent when it opens and when it first gets a batch of a run), and during a run's first
second, so that sockets already open elsewhere get its start and can say so. Batches that nobody needs cost the
layer a deep copy or a Redis round trip, and every socket of the run's own process a message to drop: with Redis
and 50 chats streaming, a quarter of the server's CPU (docs/performance.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from channels.layers import InMemoryChannelLayer, get_channel_layer

from playground.chat import watchers
from playground.chat.fanout import Frame
from playground.chat.local_feed import LocalFeed
from playground.conversations.broadcast import conversation_group

COALESCE_S = 0.025
# A new run's batches go through a shared layer this long even when no socket elsewhere is known to watch: one that
# was open before the run gets its first frames this way, and answers with a ``watch``.
REMOTE_GRACE_S = 1.0
BATCH_TYPE = "conversation.batch"
SYNC_TYPE = "conversation.sync"  # a run's replay of its round trip so far, to one socket of another process
LISTEN_RETRY_S = 0.5
LISTEN_RETRY_MAX_S = 5.0
CONTROL_TYPE = "run.control"

logger = logging.getLogger(__name__)


def layer_is_shared() -> bool:
    """Whether the channel layer reaches other processes (Redis) rather than this one only (in-memory)."""
    return not isinstance(get_channel_layer(), InMemoryChannelLayer)


def control_group(conversation_id: int) -> str:
    return f"run.{conversation_id}"


async def send_control(conversation_id: int, message: dict[str, Any]) -> None:
    """Deliver a control message to the run of a conversation, whichever process holds it."""
    layer = get_channel_layer()
    assert layer is not None
    await layer.group_send(control_group(conversation_id), {"type": CONTROL_TYPE, "message": message})


@dataclass
class ActiveRun(LocalFeed):
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    round_trip_frames: list[Frame] = field(default_factory=list)  # replayed to a socket that joins mid-run
    in_flight: bool = False  # a round trip is streaming (its frames are the only record of it so far)
    waiting: dict[str, Frame] = field(default_factory=dict)  # call id -> the frame that asked for input
    answers: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None
    started: bool = False
    stop_requested: bool = False
    finishing: bool = False  # the work is done and its end is being saved and sent: a Stop must not cut that
    shared_layer: bool | None = None  # the layer reaches other processes (Redis); None: look it up on first use
    remote_watchers: set[str] = field(default_factory=set)  # channels of sockets elsewhere that asked for batches
    started_at: float = field(default_factory=time.monotonic)
    _outbox: list[Frame] = field(default_factory=list)  # for other processes, coalesced through the layer
    _flusher: asyncio.Task[None] | None = None
    _listener: asyncio.Task[None] | None = None
    _channel: str = ""
    _syncs: set[asyncio.Task[None]] = field(default_factory=set)  # replays on their way to sockets elsewhere
    _unfed_local: tuple[int, int, bool] = (-1, -1, False)  # (watch generation, subscribers version, answer)

    def emit(self, frame: Frame, *, live: bool = True) -> None:
        """Queue a frame for local sockets (sent as soon as the run awaits) and, soon, for remote ones.
        ``live`` frames are replayed to a socket that joins mid-round-trip."""
        if live:
            self.round_trip_frames.append(frame)
        self.queue_local(frame)
        if self._batch_wanted():
            self._outbox.append(frame)
            if self._flusher is None or self._flusher.done():
                self._flusher = asyncio.create_task(self._flush_soon())

    def new_round_trip(self) -> None:
        self.round_trip_frames, self.in_flight = [], True

    def round_trip_done(self) -> None:
        """Saved from here on: a socket that joins now reads it from the page, not from a replay."""
        self.round_trip_frames, self.in_flight = [], False

    async def _flush_soon(self) -> None:
        await asyncio.sleep(COALESCE_S)
        # Frames emitted while a batch is being sent (a Redis round trip) go in the next one: loop until none are left.
        while self._outbox:
            frames, self._outbox = self._outbox, []
            message = {"type": BATCH_TYPE, "run_id": self.run_id, "frames": frames}
            try:
                await get_channel_layer().group_send(conversation_group(self.conversation_id), message)  # type: ignore[union-attr]
            except Exception:
                # The layer (Redis) is away. The run goes on, saved as it happens; sockets of other processes lost
                # their connection with it and get a fresh snapshot when they reconnect, so these are dropped.
                logger.warning("conversation %s: a batch could not cross the channel layer", self.conversation_id)

    def _batch_wanted(self) -> bool:
        """Whether a socket may need the frame through the layer: one here that is not fed directly, or, with a
        shared layer, one elsewhere that watches (or may, in the run's first second)."""
        if self._local_socket_unfed():
            return True
        if self.shared_layer is None:
            self.shared_layer = layer_is_shared()
        return self.shared_layer and (bool(self.remote_watchers) or time.monotonic() - self.started_at < REMOTE_GRACE_S)

    def _local_socket_unfed(self) -> bool:
        generation, version, unfed = self._unfed_local
        if generation != watchers.generation() or version != self._subscribers_version:
            unfed = watchers.any_unfed(self.conversation_id, self.subscribers)
            self._unfed_local = (watchers.generation(), self._subscribers_version, unfed)
        return unfed

    async def flush(self) -> None:
        """Send every frame emitted so far; the last ones of a run (its status, run.end) must reach every socket.
        Shielded: whoever waits here may be cancelled, the sending is not."""
        await self.send_queued()
        while self._flusher is not None and not self._flusher.done():
            await asyncio.shield(self._flusher)
        if self._outbox:
            self._flusher = asyncio.create_task(self._flush_soon())
            await asyncio.shield(self._flusher)

    async def _sync(self, channel: str) -> None:
        """Replay the round trip in flight to one socket of another process (one that just opened, or whose layer
        came back): batches queued before go first, so after this replay the socket misses nothing."""
        try:
            await self.flush()
            frames = list(self.round_trip_frames) if self.in_flight else []
            message = {
                "type": SYNC_TYPE,
                "run_id": self.run_id,
                "frames": frames,
                "waiting": list(self.waiting.values()),
            }
            await get_channel_layer().send(channel, message)  # type: ignore[union-attr]
        except Exception:
            logger.warning("conversation %s: could not replay the run to a socket elsewhere", self.conversation_id)
        finally:
            self._syncs.discard(asyncio.current_task())  # type: ignore[arg-type]

    async def wait_for_answer(self, call_id: str, frame: Frame) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.answers[call_id], self.waiting[call_id] = future, frame
        self.emit(frame, live=False)
        try:
            return await future
        finally:
            self.answers.pop(call_id, None)
            self.waiting.pop(call_id, None)

    async def listen(self) -> None:
        layer = get_channel_layer()
        assert layer is not None
        self._channel = await layer.new_channel()
        await layer.group_add(control_group(self.conversation_id), self._channel)
        self._listener = asyncio.create_task(self._receive(layer))

    async def _receive(self, layer: Any) -> None:
        backoff = LISTEN_RETRY_S
        while True:
            try:
                event = await layer.receive(self._channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                # The layer (Redis) went away: keep running, and listen again once it is back, so Stop and answers
                # from any process work again.
                logger.warning("conversation %s: control channel lost; listening again", self.conversation_id)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, LISTEN_RETRY_MAX_S)
                with contextlib.suppress(Exception):
                    await layer.group_add(control_group(self.conversation_id), self._channel)
                    # A watcher elsewhere that came back first asked for a replay while nobody listened here (a
                    # restarted Redis forgets every group): replay to every known watcher, whose batches were lost.
                    for channel in self.remote_watchers:
                        self._syncs.add(asyncio.get_running_loop().create_task(self._sync(channel)))
                continue
            backoff = LISTEN_RETRY_S
            if event.get("type") == CONTROL_TYPE:
                self.control(event["message"])

    def control(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "stop":
            self.stop()
        elif kind == "watch":
            self.remote_watchers.add(str(message.get("channel")))
        elif kind == "sync":
            channel = str(message.get("channel"))
            self.remote_watchers.add(channel)
            self._syncs.add(asyncio.get_running_loop().create_task(self._sync(channel)))
        elif kind == "unwatch":
            self.remote_watchers.discard(str(message.get("channel")))
        elif kind in {"tool_result", "approval"}:
            call_id = str(message.get("call_id"))
            asked = self.waiting.get(call_id, {}).get("kind")
            # An answer must be the one the call waits for: a typed result never approves a call, and vice versa.
            if (asked, kind) not in {("manual", "tool_result"), ("approval", "approval")}:
                return
            future = self.answers.get(call_id)
            if future is not None and not future.done():
                future.set_result(message)

    def stop(self) -> None:
        """Cancel the run. A task cancelled before its first step would run no code at all (no cleanup, no saved
        status), so until it has started the request is only noted, and the run checks it when it begins."""
        if self.stop_requested or self.finishing:
            return  # a second Stop would cancel the saving of the first; a finished run has nothing to stop
        self.stop_requested = True
        if self.task is not None and self.started:
            self.task.cancel()

    async def close(self) -> None:
        try:
            await self.flush()
        except Exception:  # the layer is away; the local sockets got everything already
            logger.warning("conversation %s: the last batch could not cross the channel layer", self.conversation_id)
        finally:  # the control channel goes even if the last frames could not
            if self._listener is not None:
                self._listener.cancel()
                # redis-py reports a cancelled blocking read as a TimeoutError rather than CancelledError.
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self._listener
            layer = get_channel_layer()
            if layer is not None and self._channel:
                with contextlib.suppress(Exception):  # an unreachable layer expires the membership itself
                    await layer.group_discard(control_group(self.conversation_id), self._channel)


class Registry:
    def __init__(self) -> None:
        self.runs: dict[int, ActiveRun] = {}

    def get(self, conversation_id: int) -> ActiveRun | None:
        return self.runs.get(conversation_id)

    def is_running(self, conversation_id: int) -> bool:
        return conversation_id in self.runs

    async def start(self, conversation_id: int, body: Callable[[ActiveRun], Awaitable[None]]) -> ActiveRun:
        if conversation_id in self.runs:
            raise RuntimeError("This conversation is already running.")
        run = ActiveRun(conversation_id)
        self.runs[conversation_id] = run
        try:
            await run.listen()
        except BaseException:
            del self.runs[conversation_id]  # the layer is unreachable: the conversation must not stay blocked
            raise
        # Sockets of this process that already show the conversation get the run's frames directly, like the one
        # that started it: the channel layer is for other processes only.
        for watcher in watchers.watchers_of(conversation_id):
            watcher.follow(run)
        # A context of its own: a run started from an HTTP request must not inherit that request's worker thread
        # (asgiref's executor), which is gone once the response is sent and would break every ORM call after it.
        run.task = asyncio.create_task(self._run(run, body), context=contextvars.Context())
        return run

    async def _run(self, run: ActiveRun, body: Callable[[ActiveRun], Awaitable[None]]) -> None:
        run.started = True
        try:
            await body(run)
        except asyncio.CancelledError:
            pass  # Stop: the body saved what it had; the task ends quietly
        except Exception:
            logger.exception("run of conversation %s failed", run.conversation_id)
        finally:
            run.finishing = True  # a Stop from now on would cancel the sending of the run's last frames
            self.runs.pop(run.conversation_id, None)
            await run.close()


REGISTRY = Registry()
