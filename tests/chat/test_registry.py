"""The run registry's edges: batches under a slow layer, a double Stop, answers of the wrong kind."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from channels.layers import get_channel_layer

from playground.broadcast import conversation_group
from playground.chat.registry import ActiveRun, Registry, unwatch, watch


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

        async def send_json(self, content: Any, close: bool = False) -> None:
            raise AssertionError("fed only through the layer")

    elsewhere = Elsewhere()

    monkeypatch.setattr(layer, "group_send", slow_group_send)
    watch(990001, elsewhere)
    try:
        run = ActiveRun(990001)
        await run.emit({"n": 1})
        await asyncio.sleep(0.04)  # the first batch is now being sent
        await run.emit({"n": 2})
        await run.emit({"n": 3})  # the last frames of a run: status, run.end
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
