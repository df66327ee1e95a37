"""Nothing lost when a process dies: raw events saved as they stream, dead runs interrupted at once, and resumable."""

from __future__ import annotations

import asyncio
import json
import os
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.utils import timezone

from playground.chat import processes
from playground.chat.models import RunProcess
from playground.chat.options import ChatOptions
from playground.chat.service import TurnRefused, start_turn
from playground.conversations.models import Conversation, Message, RoundTrip, WireEventBatch
from playground.conversations.raw_events import add_batched
from playground.endpoints.models import Endpoint
from tests.chat.conftest import frames_until, next_frame, of_type, open_chat, options

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from pytest_django.fixtures import SettingsWrapper

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]
DEAD = "elsewhere:4242:deadbeef"


def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    return json.dumps(
        {
            "id": "c1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "sim-1",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
    )


def left_by_a_dead_process(conversation: Conversation, *, status: str, history: list[dict[str, Any]]) -> None:
    """The rows a process leaves behind when it is killed: a claim, and maybe a round trip mid-stream."""
    endpoint = Endpoint.objects.get(name="Simulated OpenAI")
    settings = options(tools=["search_docs"], stream=True)
    conversation.endpoint, conversation.format, conversation.model = endpoint, "openai-chat", "sim-1"
    conversation.settings = ChatOptions(**{**settings, "approve": False}).to_dict()
    conversation.tools = [t.config().to_dict() for t in conversation.team.tools.filter(name="search_docs")]
    conversation.status, conversation.run_owner = status, DEAD
    conversation.save()
    for position, message in enumerate(history):
        Message.objects.create(conversation=conversation, position=position, role=message["role"], data=message)
    RunProcess.objects.create(id=DEAD, host="elsewhere", pid=4242, beat_at=timezone.now() - timedelta(seconds=60))


@database_sync_to_async
def die_mid_stream(conversation: Conversation) -> None:
    left_by_a_dead_process(conversation, status="running", history=[{"role": "user", "content": "Say hello"}])
    request = {"model": "sim-1", "stream": True, "messages": [{"role": "user", "content": "Say hello"}]}
    rt = RoundTrip.objects.create(conversation=conversation, position=0, format="openai-chat", request=request)
    events = [[1.0, chunk({"role": "assistant", "content": "Hello"}), None], [2.0, chunk({"content": " wor"}), None]]
    WireEventBatch.objects.create(round_trip=rt, seq=0, events=events[:1])
    WireEventBatch.objects.create(round_trip=rt, seq=1, events=events[1:])


async def test_a_dead_processs_run_is_interrupted_with_what_had_arrived(
    conversation: Conversation, alice: User, headers_for: Any
) -> None:
    await die_mid_stream(conversation)
    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(alice))
    assert (await chat.receive_json_from())["status"] == "running"

    assert await database_sync_to_async(processes.beat)() == [conversation.pk]

    end = (await frames_until(chat, "run.end"))[-1]
    assert end["status"] == "interrupted" and "Everything that had arrived is saved" in end["message"]
    fresh = await Conversation.objects.aget(pk=conversation.pk)
    assert (fresh.status, fresh.run_owner) == ("interrupted", "")
    rt = await RoundTrip.objects.aget(conversation=conversation)
    assert [e["t_ms"] for e in rt.wire_events] == [1.0, 2.0] and not rt.complete
    assert rt.error["type"] == "interrupted"
    assert (rt.finish_reason, rt.raw_finish_reason) == ("error", ""), "cut off, as a failed round trip is"
    partial = await Message.objects.aget(conversation=conversation, role="assistant")
    assert (partial.data["content"], partial.complete, partial.round_trip_id) == ("Hello wor", False, rt.pk)
    assert not await WireEventBatch.objects.aexists()
    assert not await RunProcess.objects.filter(id=DEAD).aexists()

    # Retry from here: the model is asked again from the last complete state; the partial answer stays on record.
    await chat.send_json_to({"type": "retry"})
    frames = await frames_until(chat, "run.end")
    assert frames[-1]["status"] == "done"
    retried = await RoundTrip.objects.aget(conversation=conversation, position=1)
    assert retried.request["messages"][-1] == {"role": "user", "content": "Say hello"}
    roles = [m async for m in Message.objects.filter(conversation=conversation).values_list("role", "complete")]
    assert roles == [("user", True), ("assistant", False), ("assistant", True)]
    await chat.disconnect()


def test_recovery_deletes_only_the_batches_it_moved(conversation: Conversation, monkeypatch: Any) -> None:
    """A process taken for dead may still write (stalled past its heartbeats): a batch it adds while the run is
    recovered is kept, and read after the ones moved into the row."""
    from playground.chat import recovery

    async_to_sync(die_mid_stream)(conversation)
    rt = RoundTrip.objects.get(conversation=conversation)
    real_replay = recovery.replay

    def replay_then_a_late_batch(*args: Any, **kwargs: Any) -> Any:
        WireEventBatch.objects.create(round_trip=rt, seq=2, events=[[3.0, chunk({"content": "ld"}), None]])
        return real_replay(*args, **kwargs)

    monkeypatch.setattr(recovery, "replay", replay_then_a_late_batch)
    assert recovery.interrupt(conversation.pk, owner=DEAD)
    rt.refresh_from_db()
    assert [e["t_ms"] for e in rt.wire_events] == [1.0, 2.0]
    assert list(WireEventBatch.objects.filter(round_trip=rt).values_list("seq", flat=True)) == [2]
    add_batched([rt])
    assert [e["t_ms"] for e in rt.wire_events] == [1.0, 2.0, 3.0]


async def test_an_interrupted_runs_question_stays_answerable(
    conversation: Conversation, alice: User, headers_for: Any
) -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "search_docs", "arguments": '{"query": "x"}'}}
    history = [{"role": "user", "content": "/call search_docs"}, {"role": "assistant", "tool_calls": [call]}]
    await database_sync_to_async(left_by_a_dead_process)(conversation, status="waiting", history=history)
    await database_sync_to_async(processes.beat)()

    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(alice))
    snapshot = await chat.receive_json_from()
    assert snapshot["status"] == "interrupted"
    assert [(w["kind"], w["call_id"], w["name"]) for w in snapshot["waiting"]] == [("manual", "call_1", "search_docs")]

    await chat.send_json_to({"type": "approval", "call_id": "call_1", "action": "approve"})  # not what it waits for
    assert "not waiting for this answer" in (await next_frame(chat))["error"]
    await chat.send_json_to({"type": "tool_result", "call_id": "call_1", "content": "Found it", "is_error": False})
    frames = await frames_until(chat, "run.end")
    assert frames[-1]["status"] == "done"
    [result] = of_type(frames, "tool.result")
    assert (result["call_id"], result["content"], result["source"]) == ("call_1", "Found it", "manual")
    tool = await Message.objects.aget(conversation=conversation, role="tool")
    assert tool.data == {"role": "tool", "tool_call_id": "call_1", "content": "Found it"}
    await chat.disconnect()


async def test_raw_events_are_saved_while_the_stream_goes_on(
    conversation: Conversation, alice: User, headers_for: Any, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_SIMULATOR_PACE_MS = 40
    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(alice))
    await chat.receive_json_from()
    text = "/text " + "words that stream slowly enough to be seen saved " * 6
    await chat.send_json_to({"type": "send", "text": text, "options": await database_sync_to_async(options)(tools=[])})
    saved_midway = 0
    for _ in range(100):
        await asyncio.sleep(0.05)
        saved_midway = sum([len(b.events) async for b in WireEventBatch.objects.all()])
        if saved_midway >= 3:
            break
    assert saved_midway >= 3, "batches are written while the round trip streams"
    assert not (await RoundTrip.objects.aget(conversation=conversation)).wire_events
    frames = await frames_until(chat, "run.end")
    rt = await RoundTrip.objects.aget(conversation=conversation)
    streamed = [f["data"] for f in of_type(frames, "rt.wire")]
    # The batches stay the events' one copy: the end adds the rest as a last batch and only counts them in the row.
    assert rt.complete and not rt.wire_events and rt.event_count == len(streamed) > saved_midway
    batches = [b async for b in WireEventBatch.objects.filter(round_trip=rt).order_by("seq")]
    assert [b.seq for b in batches] == list(range(len(batches))) and len(batches) >= 2
    await database_sync_to_async(add_batched)([rt])
    assert [e["data"] for e in rt.wire_events] == streamed, "read whole, in order, each event once"
    await chat.disconnect()


@database_sync_to_async
def claim_held_by(
    conversation: Conversation, owner: str, beat_ago_s: float, host: str = "elsewhere", pid: int = 1
) -> None:
    conversation.status, conversation.run_owner = "running", owner
    conversation.save()
    RunProcess.objects.create(id=owner, host=host, pid=pid, beat_at=timezone.now() - timedelta(seconds=beat_ago_s))


async def test_a_live_process_keeps_its_claim_and_a_dead_one_loses_it(conversation: Conversation) -> None:
    await claim_held_by(conversation, "alive:1:x", beat_ago_s=1)
    turn = await database_sync_to_async(lambda: ChatOptions(**options(tools=[])))()
    fresh = await Conversation.objects.select_related("team").aget(pk=conversation.pk)
    with pytest.raises(TurnRefused, match="still running"):
        await start_turn(conversation=fresh, text="hi", options=turn)
    await RunProcess.objects.filter(id="alive:1:x").aupdate(beat_at=timezone.now() - timedelta(seconds=60))
    run = (await start_turn(conversation=fresh, text="hi", options=turn)).run
    await run.task
    assert (await Conversation.objects.aget(pk=conversation.pk)).status == "done"


async def test_at_start_up_a_dead_pid_on_this_host_is_gone_at_once(conversation: Conversation) -> None:
    # Its beat is fresh (it died a moment ago), but its pid is not alive here, or is this very process's.
    await claim_held_by(conversation, "restarted", beat_ago_s=0, host=processes.HOST, pid=os.getpid())
    assert await database_sync_to_async(processes.beat)() == []  # not at a later beat: the timeout rules then
    assert await database_sync_to_async(processes.beat)(startup=True) == [conversation.pk]


async def two_chats(conversation: Conversation, alice: User, headers_for: Any) -> tuple[Conversation, Any, Any]:
    """A second conversation of the same person, and a socket open on each, past its snapshot."""
    second = await Conversation.objects.acreate(team_id=conversation.team_id, created_by=alice)
    headers = await database_sync_to_async(headers_for)(alice)
    first_chat, second_chat = await open_chat(conversation.pk, headers), await open_chat(second.pk, headers)
    await first_chat.receive_json_from()
    await second_chat.receive_json_from()
    return second, first_chat, second_chat


async def test_a_person_holds_only_so_many_runs_at_once(
    conversation: Conversation, alice: User, headers_for: Any, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_MAX_RUNS_PER_USER = 1
    second, first_chat, second_chat = await two_chats(conversation, alice, headers_for)
    hanging = await database_sync_to_async(options)(tools=[], model="sim-hang")
    await first_chat.send_json_to({"type": "send", "text": "Tell me about Oslo", "options": hanging})
    await frames_until(first_chat, "rt.start")  # a run at work: its model has not answered yet

    await second_chat.send_json_to({"type": "send", "text": "hi", "options": await database_sync_to_async(options)()})
    refused = await next_frame(second_chat)
    assert refused["error"] == (
        "You have 1 run going already (at most 1 at once), in “Tell me about Oslo”: stop one or wait for one to finish."
    )
    assert await second.messages.acount() == 0

    await first_chat.send_json_to({"type": "stop"})
    await frames_until(first_chat, "run.end")
    await second_chat.send_json_to({"type": "send", "text": "hi", "options": await database_sync_to_async(options)()})
    assert (await frames_until(second_chat, "run.end"))[-1]["status"] == "done"
    await first_chat.disconnect()
    await second_chat.disconnect()


async def test_a_run_waiting_for_a_person_holds_no_place_against_the_limit(
    conversation: Conversation, alice: User, headers_for: Any, settings: SettingsWrapper
) -> None:
    """A chat left waiting for a typed answer must not block the next one (nor a comparison's columns)."""
    settings.CROSSWIRE_MAX_RUNS_PER_USER = 1
    _, first_chat, second_chat = await two_chats(conversation, alice, headers_for)
    waiting = await database_sync_to_async(options)(tools=["search_docs"])
    await first_chat.send_json_to({"type": "send", "text": "/call search_docs", "options": waiting})
    await frames_until(first_chat, "tool.awaiting")
    await second_chat.send_json_to({"type": "send", "text": "hi", "options": await database_sync_to_async(options)()})
    assert (await frames_until(second_chat, "run.end"))[-1]["status"] == "done"
    await first_chat.send_json_to({"type": "stop"})
    await frames_until(first_chat, "run.end")
    await first_chat.disconnect()
    await second_chat.disconnect()


async def test_a_run_this_process_claims_but_no_longer_runs_is_interrupted(conversation: Conversation) -> None:
    # The database went away under a run: it could not save its own end, and its row still says "running".
    await Conversation.objects.filter(pk=conversation.pk).aupdate(status="running", run_owner=processes.PROCESS_ID)
    assert await database_sync_to_async(processes.beat)() == [], "a fresh claim may be a run about to start"
    old = timezone.now() - timedelta(seconds=60)
    await Conversation.objects.filter(pk=conversation.pk).aupdate(updated_at=old)
    assert await database_sync_to_async(processes.beat)() == [conversation.pk]
    assert (await Conversation.objects.aget(pk=conversation.pk)).status == "interrupted"
