"""The run registry's edges: batches under a slow layer, a double Stop, answers of the wrong kind."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from channels.layers import get_channel_layer

from playground.chat import local_feed, registry
from playground.chat.registry import ActiveRun, Registry
from playground.chat.watchers import unwatch, watch
from playground.conversations.broadcast import conversation_group


async def test_frames_emitted_while_a_batch_is_sent_still_go_out(monkeypatch: pytest.MonkeyPatch) -> None:
    layer = get_channel_layer()
    sent: list[Any] = []

    async def slow_group_send(group: str, message: dict[str, Any]) -> None:
        await asyncio.sleep(0.03)  # a Redis round trip under load
        if group == conversation_group(990001):  # other runs of the test session may still be flushing
            sent.extend(frame["n"] for frame in message["frames"])

    class Elsewhere:
        """A socket showing the conversation that the run does not feed directly (as one of another process)."""

        def follow(self, run: ActiveRun) -> None:
            raise AssertionError("not started through a registry: nothing follows")

        async def send_frames(self, text: str) -> None:
            raise AssertionError("fed only through the layer")

    elsewhere = Elsewhere()

    monkeypatch.setattr(layer, "group_send", slow_group_send)
    watch(990001, elsewhere)
    try:
        run = ActiveRun(990001)
        run.emit({"n": 1})
        await asyncio.sleep(0.04)  # the first batch is now being sent
        run.emit({"n": 2})
        run.emit({"n": 3})  # the last frames of a run: status, run.end
        await run.flush()
    finally:
        unwatch(990001, elsewhere)
    assert sent == [1, 2, 3]


async def test_a_second_stop_does_not_cut_the_saving_of_the_first() -> None:
    saved: list[str] = []

    async def body(run: ActiveRun) -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            await asyncio.sleep(0.05)  # saving what arrived
            saved.append("stopped")
            raise

    registry = Registry()
    run = await registry.start(990002, body)
    await asyncio.sleep(0.01)
    run.stop()
    await asyncio.sleep(0.01)
    run.stop()  # pressed again while the first Stop is being saved
    assert run.task is not None
    await run.task
    assert saved == ["stopped"] and registry.get(990002) is None


async def test_an_answer_of_the_wrong_kind_is_ignored() -> None:
    run = ActiveRun(990003)
    future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    run.answers["call_1"], run.waiting["call_1"] = future, {"kind": "approval", "call_id": "call_1"}
    run.control({"type": "tool_result", "call_id": "call_1", "content": "sneaky"})
    assert not future.done(), "a typed result must never approve a call"
    run.control({"type": "approval", "call_id": "call_1", "action": "deny"})
    assert future.result()["action"] == "deny"


class Socket:
    """A local socket's sender: records each message as the list of frames it holds."""

    def __init__(self, delay: float = 0.0, fail: bool = False) -> None:
        self.messages: list[list[dict[str, Any]]] = []
        self.texts: list[str] = []
        self.delay, self.fail = delay, fail

    async def send(self, text: str) -> None:
        if self.fail:
            raise ConnectionError("the socket closed")
        if self.delay:
            await asyncio.sleep(self.delay)
        self.texts.append(text)
        self.messages.append(json.loads(text))


async def test_frames_of_one_step_reach_each_socket_as_one_message_in_order() -> None:
    run, first, second = ActiveRun(990004), Socket(), Socket()
    run.subscribe(first.send), run.subscribe(second.send)
    for n in range(3):  # one upstream event makes several frames with no await in between
        run.emit({"n": n})
    await run.flush()
    assert first.messages == second.messages == [[{"n": 0}, {"n": 1}, {"n": 2}]]
    run.emit({"n": 3})
    await run.flush()
    assert first.messages[1:] == [[{"n": 3}]]
    assert first.texts[0] is second.texts[0], "encoded once for every socket"


async def test_a_socket_that_joins_gets_only_frames_emitted_after_it_joined() -> None:
    run, early, late = ActiveRun(990005), Socket(), Socket()
    run.subscribe(early.send)
    run.emit({"n": 1})  # queued, not sent yet: a socket joining now has it in its snapshot
    run.subscribe(late.send)
    run.emit({"n": 2})
    await run.flush()
    assert early.messages == [[{"n": 1}, {"n": 2}]]
    assert late.messages == [[{"n": 2}]]


async def test_frames_emitted_while_a_message_is_sent_follow_in_the_next_one() -> None:
    run, slow = ActiveRun(990006), Socket(delay=0.02)
    run.subscribe(slow.send)
    run.emit({"n": 1})
    await asyncio.sleep(0.005)  # the first message is being written
    run.emit({"n": 2})
    run.emit({"n": 3})
    await run.flush()
    assert slow.messages == [[{"n": 1}], [{"n": 2}, {"n": 3}]]


async def test_a_socket_that_fails_is_dropped_and_the_others_still_get_frames() -> None:
    run, broken, fine = ActiveRun(990007), Socket(fail=True), Socket()
    run.subscribe(broken.send), run.subscribe(fine.send)
    run.emit({"n": 1})
    await run.flush()
    run.emit({"n": 2})
    await run.flush()
    assert fine.messages == [[{"n": 1}], [{"n": 2}]]
    assert not run.is_fed(broken.send) and run.is_fed(fine.send)


async def test_a_frame_that_is_not_json_is_logged_and_the_frames_beside_it_still_go(
    caplog: pytest.LogCaptureFixture,
) -> None:
    run, socket, late = ActiveRun(990008), Socket(), Socket()
    run.subscribe(socket.send)
    run.emit({"n": 1})
    run.emit({"n": object()})  # a bug elsewhere must not cost the frames of the same step
    run.subscribe(late.send)  # joined after two frames were queued: skips both, the bad one included
    run.emit({"n": 3})
    await run.flush()
    assert socket.messages == [[{"n": 1}, {"n": 3}]] and late.messages == [[{"n": 3}]]
    assert "could not be encoded" in caplog.text


async def test_frames_that_need_the_slower_encoder_go_with_the_others() -> None:
    # An integer beyond 64 bits sends the whole message through json; a UUID or a NaN beside it must not break it.
    import math
    import uuid

    run, socket = ActiveRun(990010), Socket()
    run.subscribe(socket.send)
    ident = uuid.UUID(int=7)
    run.emit({"id": ident}), run.emit({"n": 2**70}), run.emit({"x": math.nan})
    await run.flush()
    assert socket.messages == [[{"id": str(ident)}, {"n": 2**70}, {"x": None}]]


async def test_subscribing_again_keeps_the_frames_a_socket_is_owed() -> None:
    run, socket = ActiveRun(990009), Socket()
    run.subscribe(socket.send)
    run.emit({"n": 1})
    run.subscribe(socket.send)  # e.g. the tab that started the run follows it once more
    await run.flush()
    assert socket.messages == [[{"n": 1}]]


class Recorder:
    """A socket of another process (its frames go through the layer) that records the batches it would get."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def follow(self, run: ActiveRun) -> None:
        return None  # not fed directly: it is elsewhere

    async def send_frames(self, text: str) -> None:
        raise AssertionError("fed only through the layer")


async def test_a_stop_after_the_work_is_done_does_not_cut_the_last_frames(monkeypatch: pytest.MonkeyPatch) -> None:
    layer, elsewhere, local = get_channel_layer(), Recorder(), Socket()
    group_send = layer.group_send

    async def recording_group_send(group: str, message: dict[str, Any]) -> None:
        if group == conversation_group(990010):
            elsewhere.batches.append([frame["type"] for frame in message["frames"]])
        else:
            await group_send(group, message)

    async def body(run: ActiveRun) -> None:
        await asyncio.sleep(0.01)
        run.emit({"type": "status"}, live=False)
        run.emit({"type": "run.end"}, live=False)

    monkeypatch.setattr(layer, "group_send", recording_group_send)
    watch(990010, elsewhere)
    try:
        registry = Registry()
        run = await registry.start(990010, body)
        run.subscribe(local.send)
        await asyncio.sleep(0.015)  # the body has returned; the last batch waits for its 25 ms
        run.control({"type": "stop"})  # a Stop from another tab that crossed the end of the run
        assert run.task is not None
        await asyncio.wait_for(run.task, 2)
    finally:
        unwatch(990010, elsewhere)
    assert not run.task.cancelled()
    assert local.messages == [[{"type": "status"}, {"type": "run.end"}]]
    assert elsewhere.batches == [["status", "run.end"]]
    assert run._listener is not None and run._listener.done(), "the control channel is closed"


async def test_with_a_shared_layer_batches_go_only_while_a_socket_elsewhere_watches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from playground.chat import registry

    layer, sent = get_channel_layer(), []

    async def recording_group_send(group: str, message: dict[str, Any]) -> None:
        if group == conversation_group(990012):
            sent.append([frame["n"] for frame in message["frames"]])

    monkeypatch.setattr(layer, "group_send", recording_group_send)
    monkeypatch.setattr(registry, "REMOTE_GRACE_S", 0.05)
    run = ActiveRun(990012, shared_layer=True)  # as with Redis
    run.emit({"n": 1})  # the run's first moments: a socket elsewhere may be open already
    await run.flush()
    await asyncio.sleep(0.06)
    run.emit({"n": 2})  # nobody elsewhere said it watches: no batch
    await run.flush()
    run.control({"type": "watch", "channel": "specific.other!1"})
    run.emit({"n": 3})
    await run.flush()
    run.control({"type": "unwatch", "channel": "specific.other!1"})
    run.emit({"n": 4})
    await run.flush()
    assert sent == [[1], [3]]


async def test_a_control_channel_that_comes_back_replays_the_run_to_every_socket_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Redis restarted: a watcher of another process that came back first asked for a replay while this run listened
    to nothing (a restarted Redis forgets every group). Once this run listens again, each watcher gets the replay."""
    layer = get_channel_layer()
    real_receive = layer.receive
    calls: list[str] = []

    async def away_once(channel: str) -> dict[str, Any]:
        calls.append(channel)
        if len(calls) == 1:
            raise ConnectionError("Redis restarting")
        return await real_receive(channel)

    monkeypatch.setattr(registry, "LISTEN_RETRY_S", 0.01)
    monkeypatch.setattr(layer, "receive", away_once)
    run = ActiveRun(990201, shared_layer=False)
    run.new_round_trip()
    run.emit({"type": "rt.delta", "rt": 0, "kind": "text", "text": "so far"})
    run.remote_watchers.update({"elsewhere.one", "elsewhere.two"})
    await run.listen()
    try:
        replays = [await asyncio.wait_for(real_receive(name), 5) for name in ("elsewhere.one", "elsewhere.two")]
    finally:
        assert run._listener is not None
        run._listener.cancel()
    for replay in replays:
        assert replay["type"] == "conversation.sync" and replay["run_id"] == run.run_id
        assert [frame.get("text") for frame in replay["frames"]] == ["so far"]
    assert len(calls) >= 2, "the run listens again after the failure"


async def test_sockets_whose_send_never_waits_get_their_messages_without_a_task_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server's send never waits: a task per message cost a streaming chat more than the send (eager.py)."""
    loop = asyncio.get_running_loop()
    created: list[object] = []
    create_task = loop.create_task

    def counting_create_task(coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        created.append(coro)
        return create_task(coro, **kwargs)

    run, first, second = ActiveRun(990011, frame_interval_s=0.0), Socket(), Socket()
    run.subscribe(first.send), run.subscribe(second.send)
    monkeypatch.setattr(loop, "create_task", counting_create_task)
    for n in range(20):
        run.emit({"n": n, "kind": "wire"})
        run.emit({"n": n, "kind": "delta"})
        await asyncio.sleep(0)  # the run awaits the next chunk: the step's frames go out now
        assert first.messages[-1] == [{"n": n, "kind": "wire"}, {"n": n, "kind": "delta"}]
    await run.send_queued()
    # With a shared layer (Redis) the run's first second also goes out as batches, in a task of their own.
    local = [coro for coro in created if getattr(coro, "__qualname__", "") != "ActiveRun._flush_soon"]
    assert local == []
    assert first.messages == second.messages and len(first.messages) == 20


async def test_a_socket_that_does_not_wait_gets_a_message_before_a_slow_one_has_finished_it() -> None:
    run, slow, fast = ActiveRun(990012, frame_interval_s=0.0), Socket(delay=0.02), Socket()
    run.subscribe(slow.send), run.subscribe(fast.send)
    run.emit({"n": 1})
    await asyncio.sleep(0.005)
    assert fast.messages == [[{"n": 1}]], "the slow socket's send did not hold the fast one's"
    assert slow.messages == []
    run.emit({"n": 2})
    await asyncio.sleep(0.005)
    assert fast.messages == [[{"n": 1}]], "the next message waits until every send of the last one is done"
    await run.send_queued()
    assert slow.messages == fast.messages == [[{"n": 1}], [{"n": 2}]]


async def test_a_message_never_overtakes_one_whose_send_is_still_waiting() -> None:
    gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    received: list[list[dict[str, Any]]] = []
    calls = 0

    async def send(text: str) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            await gate  # the first message's send waits; the next ones would not
        received.append(json.loads(text))

    run = ActiveRun(990014, frame_interval_s=0.0)
    run.subscribe(send)
    run.emit({"n": 1})
    await asyncio.sleep(0)
    run.emit({"n": 2})
    run.emit({"n": 3})
    await asyncio.sleep(0.01)
    assert received == [], "nothing overtakes the waiting first message"
    gate.set_result(None)
    await asyncio.wait_for(run.send_queued(), 1)
    assert received == [[{"n": 1}], [{"n": 2}, {"n": 3}]]


async def test_a_send_cancelled_on_its_own_costs_only_its_socket() -> None:
    class Cancelled(Socket):
        async def send(self, text: str) -> None:
            await asyncio.sleep(0.005)
            raise asyncio.CancelledError  # e.g. a send through a wrapper whose own task was cancelled

    run, cancelled, slow = ActiveRun(990015, frame_interval_s=0.0), Cancelled(), Socket(delay=0.01)
    run.subscribe(cancelled.send), run.subscribe(slow.send)
    run.emit({"n": 1})
    await asyncio.wait_for(run.send_queued(), 1)
    assert slow.messages == [[{"n": 1}]], "the send after the cancelled one was still finished"
    assert not run.is_fed(cancelled.send) and run.is_fed(slow.send)


@pytest.mark.parametrize("broken", ["next_due", "fan_out"])  # before the frames are taken from the queue, and after
async def test_a_send_step_that_fails_drops_its_frames_and_never_leaves_a_flush_waiting(
    broken: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    run, socket = ActiveRun(990013, frame_interval_s=0.0), Socket()
    run.subscribe(socket.send)

    def bug(*args: Any) -> Any:
        raise RuntimeError(f"a bug in {broken}")

    monkeypatch.setattr(local_feed, broken, bug)
    run.emit({"n": 1})
    await asyncio.wait_for(run.flush(), 1)  # the run's end flushes: no step retried for good, no flush left waiting
    assert "could not be sent" in caplog.text and socket.messages == []
    monkeypatch.undo()
    run.emit({"n": 2})
    await asyncio.wait_for(run.flush(), 1)
    assert socket.messages == [[{"n": 2}]], "the next step's frames still go"
