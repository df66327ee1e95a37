"""What a streaming run costs the process: raw events of every round trip written together, no thread hop or
connection close per layer batch, and the "does a socket need batches?" answer kept between changes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.sessions import InstanceSessionWrapper

from playground.chat import event_saver
from playground.chat.consumer import ChatConsumer
from playground.chat.event_saver import EventSaver, Unsaved, writer_for_loop
from playground.chat.registry import ActiveRun
from playground.chat.watchers import unwatch, watch
from playground.conversations.models import Conversation, RoundTrip, WireEventBatch
from tests.chat.conftest import frames_until, of_type, open_chat, options

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


@database_sync_to_async
def round_trips(conversation: Conversation, count: int) -> list[RoundTrip]:
    return [RoundTrip.objects.create(conversation=conversation, position=i, format="openai-chat") for i in range(count)]


@database_sync_to_async
def saved_batches() -> list[tuple[int, int, list[Any]]]:
    return list(WireEventBatch.objects.order_by("round_trip_id", "seq").values_list("round_trip_id", "seq", "events"))


def count_writes(monkeypatch: pytest.MonkeyPatch, every_s: float = 0.05) -> list[set[int]]:
    """The round trips of each write the batch writer makes (it still writes them), every ``every_s``."""
    monkeypatch.setattr(event_saver, "EVERY_S", every_s)
    writes: list[set[int]] = []
    real = event_saver.INSERT_BATCHES.run

    def counted(rows: list[event_saver.Batch]) -> None:
        writes.append({round_trip for round_trip, _, _ in rows})
        real(rows)

    monkeypatch.setattr(event_saver.INSERT_BATCHES, "run", counted)
    return writes


def ours(writes: list[set[int]], rows: list[RoundTrip]) -> list[set[int]]:
    """The writes that held these round trips (a run of an earlier test may still be saving on the same loop)."""
    ids = {row.pk for row in rows}
    return [write & ids for write in writes if write & ids]


async def test_the_events_of_every_streaming_round_trip_are_written_in_one_insert(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes = count_writes(monkeypatch)
    rows = await round_trips(conversation, 5)
    await asyncio.sleep(0.3)  # a writer already waiting (an earlier test's) has woken with the short interval
    savers = [EventSaver(row) for row in rows]
    for n in range(3):
        for i, saver in enumerate(savers):
            saver.add((float(n), f"rt{i} event{n}", None))
    await asyncio.sleep(0.2)
    everyone = {row.pk for row in rows}
    assert ours(writes, rows) == [everyone], "one write for the five round trips, not one each"
    savers[0].add((9.0, "rt0 later", None))
    await asyncio.sleep(0.2)
    assert ours(writes, rows) == [everyone, {rows[0].pk}]
    batches = await saved_batches()
    first = [(seq, [e[1] for e in events]) for rt, seq, events in batches if rt == rows[0].pk]
    assert first == [(0, ["rt0 event0", "rt0 event1", "rt0 event2"]), (1, ["rt0 later"])]
    assert {rt for rt, _, _ in batches} == {row.pk for row in rows}


async def test_a_round_trip_with_many_events_waiting_is_written_before_the_interval(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes = count_writes(monkeypatch, every_s=30.0)
    [row] = await round_trips(conversation, 1)
    saver = EventSaver(row)
    for n in range(event_saver.MAX_EVENTS):
        saver.add((float(n), f"e{n}", None))
    await asyncio.sleep(0.3)
    assert ours(writes, [row]) == [{row.pk}], "a full batch does not wait the 30 s interval"
    [(_, _, events)] = await saved_batches()
    assert len(events) == event_saver.MAX_EVENTS


async def test_closing_waits_for_a_write_in_progress_and_returns_what_is_not_written(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = event_saver.INSERT_BATCHES.run
    started, finished = threading.Event(), threading.Event()

    def slow(rows: list[event_saver.Batch]) -> None:
        started.set()
        time.sleep(0.2)  # a busy database (on the ORM's thread, where the write runs)
        real(rows)
        finished.set()

    monkeypatch.setattr(event_saver.INSERT_BATCHES, "run", slow)
    monkeypatch.setattr(event_saver, "EVERY_S", 0.01)
    [row, other] = await round_trips(conversation, 2)
    await asyncio.sleep(0.3)
    saver, other_saver = EventSaver(row), EventSaver(other)
    saver.add((1.0, "written", None))
    other_saver.add((1.0, "other", None))
    await asyncio.to_thread(started.wait, 5)
    saver.add((2.0, "not written yet", None))
    rest = await saver.close()
    # Once close returns, the batch being written has landed: deleting the batches now leaves none behind. (Read
    # on the ORM's thread, the rows would be there anyway: that read waits for the write. The event does not.)
    assert finished.is_set(), "close returned while its batch was still being written"
    assert [events[0][1] for rt, _, events in await saved_batches() if rt == row.pk] == ["written"]
    assert rest == Unsaved([], (row.pk, 1, [(2.0, "not written yet", None)])), "the round trip's end saves it"
    await other_saver.close()
    saver.add((3.0, "after close", None))
    assert not saver.pending
    assert not writer_for_loop().waiting


async def test_a_failed_write_loses_no_event_of_the_round_trip_kept_in_memory(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def database_away(rows: list[event_saver.Batch]) -> None:
        raise RuntimeError("database is away")

    monkeypatch.setattr(event_saver.INSERT_BATCHES, "run", database_away)
    monkeypatch.setattr(event_saver, "EVERY_S", 0.01)
    [row] = await round_trips(conversation, 1)
    await asyncio.sleep(0.3)
    saver = EventSaver(row)
    saver.add((1.0, "e", None))
    await asyncio.sleep(0.1)
    assert "could not save 1 batch(es) of raw events" in caplog.text
    monkeypatch.undo()  # the database is back
    monkeypatch.setattr(event_saver, "EVERY_S", 0.01)
    saver.add((2.0, "f", None))
    await asyncio.sleep(0.1)
    assert [(seq, events) for _, seq, events in await saved_batches()] == [(1, [[2.0, "f", None]])]
    # The failed batch was not written again with the next (one that never can be would fail every later write):
    # the round trip's end saves it, with its own number, so the events read back in order.
    assert await saver.close() == Unsaved([(row.pk, 0, [(1.0, "e", None)])], None)


async def test_layer_batches_skip_channels_connection_check(
    conversation: Conversation, alice_ws_headers: list[tuple[bytes, bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A layer message that is not hot keeps the check (tests/chat/test_connection_checks.py); a batch does not.
    The page's own messages skip it too: their handlers check in their own first trip (SELF_CHECKED_TYPES)."""
    checks: list[str] = []

    async def counted() -> None:
        checks.append("closed")

    monkeypatch.setattr("channels.consumer.aclose_old_connections", counted)
    chat = await open_chat(conversation.pk, alice_ws_headers)
    await chat.receive_json_from()  # the snapshot
    before = len(checks)
    await chat.send_json_to({"type": "ping"})
    assert (await chat.receive_json_from())["type"] == "pong"
    assert len(checks) == before, "a message from the page is checked in its handler's own trip, if it has one"
    frames = [{"type": "status", "status": "running", "label": "Running", "message": ""}]
    await chat.send_input({"type": "conversation.batch", "run_id": "elsewhere", "frames": frames})
    assert await chat.receive_json_from() == frames
    assert len(checks) == before, "nor a batch of frames"
    assert "conversation.batch" in ChatConsumer.hot_types
    await chat.disconnect()


class Socket:
    def __init__(self) -> None:
        self.texts: list[str] = []

    def follow(self, run: ActiveRun) -> None:
        run.subscribe(self.send_frames)

    async def send_frames(self, text: str) -> None:
        self.texts.append(text)


async def test_batches_are_wanted_exactly_while_a_local_socket_is_not_fed_directly() -> None:
    # The layer in-process only: with Redis a run's first second goes through it whatever the local sockets do.
    run, socket, other = ActiveRun(990101, shared_layer=False), Socket(), Socket()
    assert not run._batch_wanted()
    watch(990101, socket)
    try:
        assert run._batch_wanted(), "a socket that watches but is not fed needs batches"
        socket.follow(run)
        assert not run._batch_wanted()
        watch(990101, other)
        assert run._batch_wanted(), "a second socket joined: asked again, not remembered"
        run.unsubscribe(socket.send_frames)
        other.follow(run)
        assert run._batch_wanted(), "the first socket is no longer fed"
        unwatch(990101, socket)
        assert not run._batch_wanted()
    finally:
        unwatch(990101, socket)
        unwatch(990101, other)


def test_the_server_process_runs_full_collections_ten_times_less_often() -> None:
    code = "import gc; d = gc.get_threshold(); import playground.asgi; print(d[2], gc.get_threshold()[2])"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "playground.settings"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, check=True)
    default, served = map(int, out.stdout.split())
    assert served == default * 10


async def test_a_runs_frames_go_straight_to_the_server_and_replies_through_the_wrappers(
    conversation: Conversation, alice_ws_headers: list[tuple[bytes, bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    through_wrappers: list[str] = []
    real = InstanceSessionWrapper.send

    async def counted(self: InstanceSessionWrapper, message: dict[str, Any]) -> None:
        if message.get("type") == "websocket.send":
            through_wrappers.append(message["text"])
        await real(self, message)

    monkeypatch.setattr(InstanceSessionWrapper, "send", counted)
    chat = await open_chat(conversation.pk, alice_ws_headers)
    await chat.receive_json_from()  # the snapshot
    chat_options = await database_sync_to_async(options)(tools=[])
    await chat.send_json_to({"type": "send", "text": "/text hello there", "options": chat_options})
    frames = await frames_until(chat, "run.end")
    assert [f["text"] for f in of_type(frames, "rt.delta") if f.get("kind") == "text"], "the text streamed"
    assert frames[-1]["status"] == "done"
    assert through_wrappers, "replies to the page (the snapshot, turn.started) still go through the consumer"
    assert not [text for text in through_wrappers if text.startswith("[")], "no array of a run's frames did"
    await chat.disconnect()


async def test_a_round_trips_last_deltas_reach_the_socket_before_its_record_is_saved(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream's last chunk and its end arrive together, and ending a round trip (its whole record built and
    saved) is the longest stretch of a run: the last delta must not wait behind it."""
    from playground.chat import hooks as hooks_module
    from playground.chat.hooks import ConversationHooks
    from providers.client.capture import RoundTrip as ClientRoundTrip
    from providers.streaming import MessageAccumulator

    run = ActiveRun(conversation.pk, frame_interval_s=0.0)
    got: list[str] = []

    async def socket(text: str) -> None:
        got.append(text)

    run.subscribe(socket)
    seen_at_fill: list[list[str]] = []
    real_fill = hooks_module._fill_round_trip

    def fill(row: RoundTrip, round_trip: Any, **kwargs: Any) -> None:  # the record: no await from here to the save
        seen_at_fill.append(list(got))
        real_fill(row, round_trip, **kwargs)

    monkeypatch.setattr(hooks_module, "_fill_round_trip", fill)
    hooks = ConversationHooks(conversation, run, {})
    hooks.rows[0] = (await round_trips(conversation, 1))[0]  # inserted when the request went, as in a run
    run.emit({"type": "rt.delta", "rt": 0, "kind": "text", "text": "the last words"})  # no await since: the end
    ended = ClientRoundTrip("openai-chat", {"model": "m", "messages": []}, [], None, [], 200,
                            MessageAccumulator(format="openai-chat").result(), 1.0, 2.0)  # fmt: skip
    await hooks.on_round_trip(0, ended, None)
    assert seen_at_fill and any("the last words" in text for text in seen_at_fill[0])
    await run.flush()


async def test_a_round_trips_end_writes_what_came_back_not_the_request_again(conversation: Conversation) -> None:
    """The request and its wire form (each a whole history) were saved when the request went; the end writes only
    the reply's fields and the event count, and does not encode the request again to measure it."""
    from playground.chat.hooks import ConversationHooks
    from providers.client.capture import RoundTrip as ClientRoundTrip
    from providers.streaming import MessageAccumulator

    run = ActiveRun(conversation.pk, frame_interval_s=0.0)
    hooks = ConversationHooks(conversation, run, {})
    [row] = await round_trips(conversation, 1)
    hooks.rows[0] = row
    # Out of band, so a rewrite would show: the end must leave these columns as they are in the database.
    await RoundTrip.objects.filter(pk=row.pk).aupdate(request={"kept": True}, body_chars=12345)
    events = [(1.0, '{"a":1}', None), (2.0, "[DONE]", None)]
    ended = ClientRoundTrip("openai-chat", {"model": "m", "messages": []}, ["a note"], None, events, 200,
                            MessageAccumulator(format="openai-chat").result(), 1.0, 2.0)  # fmt: skip
    await hooks.on_round_trip(0, ended, None)
    saved = await RoundTrip.objects.aget(pk=row.pk)
    assert saved.request == {"kept": True} and saved.body_chars == 12345
    assert [e["data"] for e in saved.wire_events] == ['{"a":1}', "[DONE]"] and saved.event_count == 2
    assert saved.status_code == 200 and saved.notes == ["a note"] and saved.total_ms == 2.0
    await run.flush()


async def test_a_round_trip_saved_whose_message_was_not_is_still_ended_for_the_pages(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record and the message go in one trip; when the message fails after the record is saved, the pages are
    told the round trip ended (a socket opened meanwhile would otherwise get its frames replayed over the saved
    record), and the run gets the message's error."""
    from django.db import DatabaseError

    from playground.chat import writes
    from playground.chat.hooks import ConversationHooks
    from providers.client.capture import RoundTrip as ClientRoundTrip
    from providers.streaming import MessageAccumulator

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise DatabaseError("the disk is full")

    monkeypatch.setattr(writes, "save_message", refuse)
    run, socket = ActiveRun(conversation.pk, frame_interval_s=0.0), Socket()
    run.subscribe(socket.send_frames)
    hooks = ConversationHooks(conversation, run, {})
    [row] = await round_trips(conversation, 1)
    hooks.rows[0] = row
    run.new_round_trip()
    ended = ClientRoundTrip("openai-chat", {"model": "m", "messages": []}, [], None, [(1.0, '{"a":1}', None)], 200,
                            MessageAccumulator(format="openai-chat").result(), 1.0, 2.0)  # fmt: skip
    with pytest.raises(DatabaseError, match="the disk is full"):
        await hooks.on_round_trip(0, ended, {"role": "assistant", "content": "hello"})
    await run.flush()
    assert (await RoundTrip.objects.aget(pk=row.pk)).status_code == 200  # the record is saved
    assert '"rt.end"' in "".join(socket.texts) and not run.in_flight
    assert '"message.saved"' not in "".join(socket.texts)
