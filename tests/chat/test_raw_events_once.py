"""A streamed round trip's raw events are written once: in the batches saved as they arrive, the last of them with
the round trip's record; its row only counts them. A saver that missed one leaves them all to the row instead."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from channels.db import database_sync_to_async

from playground.chat import event_saver
from playground.chat.event_saver import EventSaver
from playground.chat.hooks import ConversationHooks
from playground.chat.registry import ActiveRun
from playground.conversations.models import Conversation, RoundTrip, WireEventBatch
from playground.conversations.raw_events import add_batched
from providers.client.capture import RoundTrip as ClientRoundTrip
from providers.streaming import MessageAccumulator

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]

EVENTS = [(1.0, '{"a":1}', None), (2.0, '{"a":2}', "x"), (3.0, "[DONE]", None)]


def ended(raw_events: list[Any]) -> ClientRoundTrip:
    result = MessageAccumulator(format="openai-chat").result()
    return ClientRoundTrip("openai-chat", {"model": "m", "messages": []}, [], None, raw_events, 200, result, 1.0, 3.0)


@database_sync_to_async
def stored(row: RoundTrip) -> tuple[RoundTrip, list[tuple[int, list[Any]]], list[Any]]:
    """The row as saved, its batches (seq, events) and its events as every reader reads them."""
    saved = RoundTrip.objects.get(pk=row.pk)
    batches = list(WireEventBatch.objects.filter(round_trip=row).order_by("seq").values_list("seq", "events"))
    whole = RoundTrip.objects.get(pk=row.pk)
    add_batched([whole])
    add_batched([whole])  # a second call adds nothing twice
    return saved, batches, [(e["t_ms"], e["data"], e["event"]) for e in whole.wire_events]


async def until(done: Any, what: str) -> None:
    """Wait for the batch writer (its interval, on a loaded machine, is no promise), at most 10 s."""
    for _ in range(1000):
        if await done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


def batches_of(row: RoundTrip, count: int) -> Any:
    async def written() -> bool:
        return await WireEventBatch.objects.filter(round_trip=row).acount() == count

    return written


async def streamed_hooks(conversation: Conversation, monkeypatch: pytest.MonkeyPatch) -> ConversationHooks:
    monkeypatch.setattr(event_saver, "EVERY_S", 0.01)
    hooks = ConversationHooks(conversation, ActiveRun(conversation.pk, frame_interval_s=0.0), {})
    row = await RoundTrip.objects.acreate(conversation=conversation, position=0, format="openai-chat")
    hooks.rows[0], hooks.savers[0] = row, EventSaver(row)  # inserted when its request went, as in a run
    return hooks


async def test_the_end_saves_the_last_batch_with_the_record_and_copies_no_event(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    hooks = await streamed_hooks(conversation, monkeypatch)
    row = hooks.rows[0]
    for event in EVENTS[:2]:
        hooks.savers[0].add(event)
    await until(batches_of(row, 1), "written while it streams")
    hooks.savers[0].add(EVENTS[2])  # arrives with the end: no batch holds it yet
    await hooks.on_round_trip(0, ended(EVENTS), None)
    saved, batches, whole = await stored(row)
    assert saved.wire_events == [] and saved.event_count == 3 and saved.complete is False and saved.total_ms == 3.0
    assert batches == [(0, [list(EVENTS[0]), list(EVENTS[1])]), (1, [list(EVENTS[2])])]
    assert whole == EVENTS
    await hooks.run.flush()


@pytest.mark.parametrize("landed", [False, True], ids=["database-away", "answer-lost"])
async def test_a_batch_whose_write_failed_is_saved_once_with_the_record(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch, landed: bool
) -> None:
    """The database away: the end saves the failed batch. Or the write committed but its answer was lost (a
    connection dropped at COMMIT): the end finds its number taken, keeps what is there, and saves the rest."""
    hooks = await streamed_hooks(conversation, monkeypatch)
    real = event_saver.INSERT_BATCHES.run

    def failing(rows: list[event_saver.Batch]) -> None:
        if landed:
            real(rows)
        raise RuntimeError("server closed the connection unexpectedly")

    monkeypatch.setattr(event_saver.INSERT_BATCHES, "run", failing)
    saver = hooks.savers[0]
    saver.add(EVENTS[0])

    async def failed() -> bool:
        return bool(saver.failed)

    await until(failed, "the first write failed")
    monkeypatch.setattr(event_saver.INSERT_BATCHES, "run", real)  # back for the next batch and the end
    saver.add(EVENTS[1])
    await until(batches_of(hooks.rows[0], 2 if landed else 1), "the next batch written")
    saver.add(EVENTS[2])
    await hooks.on_round_trip(0, ended(EVENTS), None)
    saved, batches, whole = await stored(hooks.rows[0])
    assert [seq for seq, _ in batches] == [0, 1, 2] and whole == EVENTS, "each event once, in order"
    assert saved.total_ms == 3.0 and saved.event_count == 3, "the record is saved"
    await hooks.run.flush()


async def test_a_saver_that_missed_an_event_leaves_them_all_to_the_row(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    hooks = await streamed_hooks(conversation, monkeypatch)
    hooks.savers[0].add(EVENTS[1])  # the first never reached it (its hand-over failed)
    await until(batches_of(hooks.rows[0], 1), "written while it streams")
    await hooks.on_round_trip(0, ended(EVENTS), None)
    saved, batches, whole = await stored(hooks.rows[0])
    assert [(e["t_ms"], e["data"], e["event"]) for e in saved.wire_events] == EVENTS and saved.event_count == 3
    assert batches == [], "the row's column holds them all: no batch repeats one"
    assert whole == EVENTS
    await hooks.run.flush()


def test_a_record_that_cannot_be_saved_takes_its_last_batch_with_it(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One transaction: a round trip is never left with its last events saved and its record not."""
    from playground.chat import writes

    row = RoundTrip.objects.create(conversation=conversation, position=0, format="openai-chat")
    monkeypatch.setattr(writes._END, "run", lambda values, pk: 0)  # the row is gone as the end is saved
    with pytest.raises(writes.DatabaseError):
        writes._save_ended(row, True, event_saver.Unsaved([], (row.pk, 0, [EVENTS[0]])))
    assert not WireEventBatch.objects.filter(round_trip=row).exists()
