"""A whole chat over the WebSocket: the real ASGI stack, the service, the database and the simulator."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from channels.db import database_sync_to_async

from playground.conversations.models import Conversation, Message, RoundTrip
from playground.conversations.present import transcript
from tests.chat.conftest import frames_until, next_frame, nothing_unread, of_type, open_chat, options
from tests.chat.saved import saved_round_trips

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from pytest_django.fixtures import SettingsWrapper

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]
Headers = Callable[["User"], list[tuple[bytes, bytes]]]


@database_sync_to_async
def saved(conversation: Conversation) -> tuple[list[Message], list[RoundTrip], Conversation]:
    return (
        list(conversation.messages.order_by("position")),
        saved_round_trips(conversation),
        Conversation.objects.get(pk=conversation.pk),
    )


@database_sync_to_async
def chat_options(endpoint_name: str = "Simulated OpenAI", **overrides: object) -> dict[str, object]:
    return options(endpoint_name, **overrides)


@pytest.mark.parametrize("endpoint", ["Simulated OpenAI", "Simulated Anthropic"])
async def test_a_builtin_tool_loop_streams_and_is_saved(
    conversation: Conversation, alice: User, headers_for: Headers, endpoint: str
) -> None:
    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(alice))
    snapshot = await chat.receive_json_from()
    assert snapshot["type"] == "snapshot" and snapshot["running"] is False and snapshot["message_count"] == 0
    text = '/call calculator {"expression": "6 * 7"}'
    await chat.send_json_to({"type": "send", "text": text, "options": await chat_options(endpoint)})
    frames = await frames_until(chat, "run.end")
    assert frames[0]["type"] == "turn.started"
    starts = of_type(frames, "rt.start")
    assert len(starts) == 2 and starts[0]["wire_request"]["headers"]
    assert starts[0]["format"] == ("anthropic" if endpoint == "Simulated Anthropic" else "openai-chat")
    assert starts[0]["request"]["messages"][-1] == {"role": "user", "content": text}
    deltas = [f for f in of_type(frames, "rt.delta") if f["kind"] == "tool_call_delta"]
    assert len(deltas) >= 2, "arguments stream in fragments"
    [check] = of_type(frames, "tool.check")
    assert check["ok"] is True
    fields = of_type(frames, "tool.fields")
    assert fields and fields[-1]["fields"] == [{"name": "expression", "state": "ok", "message": ""}]
    [result] = of_type(frames, "tool.result")
    assert json.loads(result["content"])["result"] == 42 and result["source"] == "builtin:calculator"
    assert frames[-1] == {"type": "run.end", "status": "done", "message": "The model finished."}
    messages, round_trips, fresh = await saved(conversation)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert "42" in messages[-1].data["content"]
    assert [rt.complete for rt in round_trips] == [True, True] and round_trips[0].wire_events
    assert fresh.status == "done" and {t["name"] for t in fresh.tools} == {
        "calculator",
        "get_weather",
        "lookup_order",
        "search_docs",
    }
    wire_tools = round_trips[0].wire_request["body"]["tools"]
    assert ("input_schema" in wire_tools[0]) == (endpoint == "Simulated Anthropic")
    await chat.disconnect()


async def test_manual_tool_waits_for_the_typed_result(
    conversation: Conversation, alice: User, headers_for: Headers
) -> None:
    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(alice))
    await chat.receive_json_from()
    text = '/call search_docs {"query": "refunds"}'
    await chat.send_json_to({"type": "send", "text": text, "options": await chat_options()})
    frames = await frames_until(chat, "tool.awaiting")
    awaiting = frames[-1]
    assert awaiting["kind"] == "manual" and awaiting["name"] == "search_docs"
    assert of_type(frames, "status")[-1]["status"] == "waiting"
    answer = {
        "type": "tool_result",
        "call_id": awaiting["call_id"],
        "content": "Refunds take 5 days",
        "is_error": False,
    }
    await chat.send_json_to(answer)
    frames = await frames_until(chat, "run.end")
    [result] = of_type(frames, "tool.result")
    assert result["content"] == "Refunds take 5 days" and result["source"] == "manual"
    messages, _, _ = await saved(conversation)
    assert "Refunds take 5 days" in messages[-1].data["content"]
    await chat.disconnect()


async def asked_to_approve(
    conversation: Conversation, alice: User, headers_for: Headers, text: str
) -> tuple[Any, dict[str, Any]]:
    """A socket that sent ``text`` with approvals on, and the approval it is asked for."""
    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(alice))
    await chat.receive_json_from()
    await chat.send_json_to({"type": "send", "text": text, "options": await chat_options(approve=True)})
    approval = (await frames_until(chat, "tool.awaiting"))[-1]
    assert approval["kind"] == "approval"
    return chat, approval


async def test_denied_call_is_answered_with_an_error(
    conversation: Conversation, alice: User, headers_for: Headers
) -> None:
    chat, awaiting = await asked_to_approve(conversation, alice, headers_for, '/call calculator {"expression": "1+1"}')
    await chat.send_json_to({"type": "approval", "call_id": awaiting["call_id"], "action": "deny", "reason": "No."})
    [result] = of_type(await frames_until(chat, "run.end"), "tool.result")
    assert result == {**result, "content": "No.", "is_error": True, "source": "denied"}
    await chat.disconnect()


async def test_an_approved_hand_answered_call_then_asks_for_its_answer_and_saves_the_edit(
    conversation: Conversation, alice: User, headers_for: Headers
) -> None:
    chat, approval = await asked_to_approve(conversation, alice, headers_for, '/call search_docs {"query": "refunds"}')
    edit = '{"query": "refund policy"}'
    approve = {"type": "approval", "call_id": approval["call_id"], "action": "approve", "arguments": edit}
    await chat.send_json_to(approve)
    question = (await frames_until(chat, "tool.awaiting"))[-1]
    assert (question["kind"], question["call_id"]) == ("manual", approval["call_id"])
    answer = {"type": "tool_result", "call_id": question["call_id"], "content": "5 days", "is_error": False}
    await chat.send_json_to(answer)
    [result] = of_type(await frames_until(chat, "run.end"), "tool.result")
    assert result["edited_arguments"] == edit and result["content"] == "5 days"
    messages, _, _ = await saved(conversation)
    [tool_message] = [m for m in messages if m.role == "tool"]
    assert tool_message.meta["edited_arguments"] == edit
    assert messages[1].data["tool_calls"][0]["function"]["arguments"] == '{"query": "refunds"}', "the model's, kept"
    await chat.disconnect()


async def test_stop_while_waiting_saves_what_arrived(
    conversation: Conversation, alice: User, headers_for: Headers
) -> None:
    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(alice))
    await chat.receive_json_from()
    await chat.send_json_to({"type": "send", "text": "/call search_docs", "options": await chat_options()})
    await frames_until(chat, "tool.awaiting")
    await chat.send_json_to({"type": "stop"})
    end = (await frames_until(chat, "run.end"))[-1]
    assert end["status"] == "stopped" and "saved" in end["message"]
    messages, round_trips, fresh = await saved(conversation)
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[1].data["tool_calls"][0]["function"]["name"] == "search_docs"
    assert fresh.status == "stopped" and round_trips[0].complete
    await chat.disconnect()


async def test_a_tab_that_joins_mid_run_gets_the_live_state(
    conversation: Conversation, alice: User, headers_for: Headers
) -> None:
    headers = await database_sync_to_async(headers_for)(alice)
    first = await open_chat(conversation.pk, headers)
    await first.receive_json_from()
    await first.send_json_to({"type": "send", "text": "/call search_docs", "options": await chat_options()})
    awaiting = (await frames_until(first, "tool.awaiting"))[-1]
    await first.disconnect()  # the tab closes; the run goes on
    second = await open_chat(conversation.pk, headers)
    snapshot = await second.receive_json_from()
    assert snapshot["running"] is True and snapshot["status"] == "waiting"
    assert [w["call_id"] for w in snapshot["waiting"]] == [awaiting["call_id"]]
    assert snapshot["frames"] == [], "the round trip is over and saved: the page shows it, nothing is replayed"
    await second.send_json_to({"type": "tool_result", "call_id": awaiting["call_id"], "content": "found it"})
    assert (await frames_until(second, "run.end"))[-1]["status"] == "done"
    await second.disconnect()


@pytest.fixture
def layer_messages(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The types of the messages sent to groups through the channel layer."""
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    sent: list[str] = []
    group_send = layer.group_send

    async def spy(group: str, message: dict[str, object]) -> None:
        sent.append(str(message["type"]))
        await group_send(group, message)

    monkeypatch.setattr(layer, "group_send", spy)
    return sent


async def test_a_tab_open_before_the_run_starts_gets_every_frame_directly(
    conversation: Conversation, alice: User, headers_for: Headers
) -> None:
    headers = await database_sync_to_async(headers_for)(alice)
    runner, watcher = await open_chat(conversation.pk, headers), await open_chat(conversation.pk, headers)
    await runner.receive_json_from(), await watcher.receive_json_from()  # snapshots
    text = '/call calculator {"expression": "6 * 7"}'
    await runner.send_json_to({"type": "send", "text": text, "options": await chat_options()})
    direct, watched = await frames_until(runner, "run.end"), await frames_until(watcher, "run.end")
    # Same process, same frames, in the same order, and none twice (batches of the same run are ignored).
    assert direct[0]["type"] == "turn.started" and watched == direct[1:]
    assert nothing_unread(watcher) and await watcher.receive_nothing(timeout=0.2)
    await runner.disconnect(), await watcher.disconnect()


async def test_batches_go_through_the_layer_only_when_a_socket_may_need_them(
    conversation: Conversation, alice: User, headers_for: Headers, layer_messages: list[str]
) -> None:
    from channels.layers import InMemoryChannelLayer, get_channel_layer

    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(alice))
    await chat.receive_json_from()
    text = '/call calculator {"expression": "6 * 7"}'
    await chat.send_json_to({"type": "send", "text": text, "options": await chat_options()})
    assert (await frames_until(chat, "run.end"))[-1]["status"] == "done"
    if isinstance(get_channel_layer(), InMemoryChannelLayer):
        # It reaches no other process, and the one socket got every frame directly: no batch is needed.
        assert "conversation.batch" not in layer_messages
    else:
        # A shared layer (Redis) may reach sockets of other processes: batches always go.
        assert "conversation.batch" in layer_messages
    await chat.disconnect()


async def test_provider_error_is_readable_and_saved_incomplete(
    conversation: Conversation, alice: User, headers_for: Headers
) -> None:
    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(alice))
    await chat.receive_json_from()
    await chat.send_json_to({"type": "send", "text": "hello", "options": await chat_options(model="sim-429")})
    frames = await frames_until(chat, "run.end")
    [end] = of_type(frames, "rt.end")
    assert end["error"]["type"] == "rate_limit" and end["status_code"] == 429 and end["complete"] is False
    assert frames[-1]["status"] == "error" and "Retry after" in frames[-1]["message"]
    _, round_trips, _ = await saved(conversation)
    assert round_trips[0].error["type"] == "rate_limit" and round_trips[0].wire_events
    await chat.disconnect()


async def test_cut_stream_keeps_the_partial_message(
    conversation: Conversation, alice: User, headers_for: Headers, chat_settings: SettingsWrapper
) -> None:
    chat_settings.CROSSWIRE_SIMULATOR_PACE_MS = 5  # bytes before the cut arrive on their own, as from a real API
    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(alice))
    await chat.receive_json_from()
    text = '/call get_weather {"city": "Paris"}'
    await chat.send_json_to({"type": "send", "text": text, "options": await chat_options(model="sim-cut")})
    frames = await frames_until(chat, "run.end")
    assert frames[-1]["status"] == "error"
    assert of_type(frames, "rt.end")[0]["error"]["type"] == "connection"
    messages, round_trips, fresh = await saved(conversation)
    assert round_trips[0].complete is False
    [partial] = [m for m in messages if m.role == "assistant"]
    assert partial.complete is False
    assert partial.data["tool_calls"][0]["function"]["name"] == "get_weather"
    views = transcript(fresh, messages, {rt.pk: rt for rt in round_trips})
    assert [c.status for v in views for c in v.calls] == ["incomplete"], "the card says it was never run, not pending"
    await chat.disconnect()


async def test_viewers_watch_but_cannot_run(conversation: Conversation, carol: User, headers_for: Headers) -> None:
    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(carol))
    assert (await chat.receive_json_from())["type"] == "snapshot"
    await chat.send_json_to({"type": "send", "text": "hi", "options": await chat_options()})
    frame = await chat.receive_json_from()
    assert frame == {"type": "error", "error": "Viewers can read this conversation but not run it."}
    await chat.disconnect()


async def test_other_teams_cannot_open_the_socket(
    conversation: Conversation, headers_for: Headers, django_user_model: type[User]
) -> None:
    outsider = await database_sync_to_async(django_user_model.objects.create_user)("mallory", password="x-pass-1234")
    from channels.testing import WebsocketCommunicator

    from playground.asgi import application

    headers = await database_sync_to_async(headers_for)(outsider)
    communicator = WebsocketCommunicator(application, f"/ws/conversations/{conversation.pk}/", headers=headers)
    connected, _ = await communicator.connect()
    assert not connected


async def test_invalid_settings_are_reported_per_field(
    conversation: Conversation, alice: User, headers_for: Headers
) -> None:
    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(alice))
    await chat.receive_json_from()
    bad = await chat_options(tool_choice="teleport", max_tokens=0)
    await chat.send_json_to({"type": "send", "text": "hi", "options": bad})
    frame = await chat.receive_json_from()
    assert frame["type"] == "error" and set(frame["fields"]) == {"tool_choice", "max_tokens"}
    await chat.disconnect()


async def test_malformed_options_get_an_error_and_the_socket_lives_on(
    conversation: Conversation, alice: User, headers_for: Headers
) -> None:
    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(alice))
    await chat.receive_json_from()
    await chat.send_json_to({"type": "send", "text": "hi", "options": ["not", "a", "dict"]})
    assert (await chat.receive_json_from())["error"] == "Check the chat settings."
    await chat.send_json_to({"type": "ping"})
    assert await chat.receive_json_from() == {"type": "pong"}
    await chat.disconnect()


async def test_a_member_made_viewer_while_connected_can_no_longer_run(
    conversation: Conversation, bob: User, headers_for: Headers
) -> None:
    from playground.teams.models import Membership

    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(bob))
    await chat.receive_json_from()
    await Membership.objects.filter(user=bob, team_id=conversation.team_id).aupdate(role="viewer")
    await chat.send_json_to({"type": "send", "text": "hi", "options": await chat_options()})
    assert (await chat.receive_json_from())["error"] == "Viewers can read this conversation but not run it."
    await chat.disconnect()


async def test_a_tab_that_joins_mid_stream_gets_the_round_trip_so_far(
    conversation: Conversation, alice: User, headers_for: Headers, chat_settings: SettingsWrapper
) -> None:
    chat_settings.CROSSWIRE_SIMULATOR_PACE_MS = 40  # slow enough to join while the answer is still streaming
    headers = await database_sync_to_async(headers_for)(alice)
    first = await open_chat(conversation.pk, headers)
    await first.receive_json_from()
    text = "/text " + "a long answer that takes a while to stream " * 4
    await first.send_json_to({"type": "send", "text": text, "options": await chat_options()})
    while (await next_frame(first))["type"] != "rt.delta":
        pass
    second = await open_chat(conversation.pk, headers)
    snapshot = await second.receive_json_from()
    assert snapshot["running"] is True and snapshot["frames"][0]["type"] == "rt.start"
    replayed = "".join(f.get("text", "") for f in snapshot["frames"] if f.get("kind") == "text")
    later = "".join([f.get("text", "") for f in await frames_until(second, "rt.end") if f.get("kind") == "text"])
    assert replayed and (replayed + later).startswith("a long answer")
    await frames_until(first, "run.end")
    await first.disconnect()
    await second.disconnect()


async def test_a_late_batch_of_an_earlier_run_is_not_shown_twice(conversation: Conversation) -> None:
    # With Redis every run's frames also go through the layer, 25 ms late: the last batch of one run can arrive after
    # the next run of the conversation started. The socket had both runs' frames directly, so it drops both batches.
    from playground.chat.consumer import ChatConsumer
    from playground.chat.registry import ActiveRun

    consumer, sent = ChatConsumer(), []
    consumer.conversation = conversation
    consumer.channel_name = "test.channel"

    async def send_frames(text: str) -> None:
        sent.append(json.loads(text))

    consumer.send_frames = send_frames  # type: ignore[method-assign]
    first, second = ActiveRun(conversation.pk), ActiveRun(conversation.pk)
    consumer.follow(first)
    consumer.follow(second)
    await consumer.conversation_batch({"run_id": first.run_id, "frames": [{"type": "run.end"}]})
    await consumer.conversation_batch({"run_id": second.run_id, "frames": [{"type": "status"}]})
    assert sent == []
    await consumer.conversation_batch({"run_id": "another process's run", "frames": [{"type": "status"}]})
    assert sent == [[{"type": "status"}]]


def bare_consumer(conversation: Conversation) -> tuple[Any, list[Any]]:
    """A chat socket's consumer without a connection: what it would send, as JSON, in order."""
    from playground.chat.consumer import ChatConsumer

    consumer, sent = ChatConsumer(), []
    consumer.conversation = conversation
    consumer.channel_name = "test.channel"

    async def send_frames(text: str) -> None:
        sent.append(json.loads(text))

    async def send_json(content: Any, close: bool = False) -> None:
        sent.append(content)

    async def ask_for_batches(*, replay: bool = False) -> None:
        sent.append({"asked": "sync" if replay else "watch"})

    consumer.send_frames = send_frames  # type: ignore[method-assign]
    consumer.send_json = send_json  # type: ignore[method-assign]
    consumer._ask_for_batches = ask_for_batches  # type: ignore[method-assign]
    return consumer, sent


@database_sync_to_async
def set_status(conversation: Conversation, status: str) -> None:
    Conversation.objects.filter(pk=conversation.pk).update(status=status)


TAIL = [
    {"type": "rt.delta", "rt": 0, "kind": "text", "text": "the end"},
    {"type": "rt.end", "rt": 0},
    {"type": "status", "status": "done"},
    {"type": "run.end", "status": "done"},
]


async def test_the_tail_of_a_run_that_ended_before_the_snapshot_is_not_drawn_twice(conversation: Conversation) -> None:
    # With Redis, a run's last frames cross the layer ~25 ms after it ended and saved everything. A socket that opened
    # in between shows all of it from its snapshot: drawn again, the tail would make a second, live copy of the last
    # answer. Only where the run stands goes on, which changes nothing.
    consumer, sent = bare_consumer(conversation)
    await consumer._saved_state()  # the socket's opening reads the conversation settled
    await consumer.conversation_batch({"run_id": "ended", "frames": TAIL})
    await consumer.conversation_batch({"run_id": "ended", "frames": TAIL[:2]})
    assert sent == [{"asked": "watch"}, TAIL[2:]], "asked for the rest all the same: a batch may have been lost"
    sent.clear()
    # A run that starts after the snapshot (the conversation is running again) is shown whole.
    await set_status(conversation, Conversation.Status.RUNNING)
    await consumer.conversation_batch({"run_id": "new", "frames": TAIL[:2]})
    await consumer.conversation_batch({"run_id": "new", "frames": TAIL})
    await consumer.conversation_batch({"run_id": "ended", "frames": TAIL})  # the earlier run stays ended
    assert sent == [{"asked": "watch"}, TAIL[:2], TAIL, TAIL[2:]]


async def test_the_tail_of_a_run_still_going_at_the_snapshot_is_drawn(conversation: Conversation) -> None:
    # The snapshot was read before the run's last save: the batch holds what the snapshot lacks.
    consumer, sent = bare_consumer(conversation)
    await set_status(conversation, Conversation.Status.RUNNING)
    await consumer._saved_state()
    await set_status(conversation, Conversation.Status.DONE)  # saved since
    await consumer.conversation_batch({"run_id": "ending", "frames": TAIL})
    assert sent == [{"asked": "watch"}, TAIL]


async def test_a_replay_asked_as_the_run_ended_does_not_show_it_running(conversation: Conversation) -> None:
    # A socket that opens as a run elsewhere ends asks for its replay; the run may answer after its status is saved.
    # The page must not show a finished run as running (its Stop button up, its Send button off), nor its last
    # frames again when they follow.
    consumer, sent = bare_consumer(conversation)
    await set_status(conversation, Conversation.Status.DONE)
    replay = {"run_id": "ending", "frames": [{"type": "rt.start", "rt": 0}], "waiting": []}
    await consumer.conversation_sync(replay)
    await consumer.conversation_batch({"run_id": "ending", "frames": TAIL})
    snapshot, tail = sent
    assert snapshot["type"] == "snapshot" and snapshot["running"] is False and snapshot["status"] == "done"
    assert snapshot["frames"] == [] and snapshot["waiting"] == [] and tail == TAIL[2:]
    sent.clear()
    await set_status(conversation, Conversation.Status.RUNNING)
    await consumer.conversation_sync({**replay, "run_id": "going"})
    [snapshot] = sent
    assert snapshot["running"] is True and snapshot["frames"] == replay["frames"]


async def test_a_tab_opened_as_a_run_ends_shows_it_once_and_not_running(
    conversation: Conversation, alice: User, headers_for: Headers, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The run has saved everything and left the registry; its batches (through a shared layer, as with Redis) and its
    # answer to the new tab's replay request are still on their way. The new tab's snapshot holds the whole run: what
    # follows must not draw it again, nor say it runs. The layer's batches wait until the new tab has its snapshot;
    # the in-memory layer is used as a shared one (it reaches the sockets of this process all the same).
    import asyncio

    from channels.layers import get_channel_layer

    from playground.chat import consumer as consumer_module
    from playground.chat import registry
    from playground.chat.registry import ActiveRun

    ended, gate, held = asyncio.Event(), asyncio.Event(), []
    close, layer = ActiveRun.close, get_channel_layer()
    group_send = layer.group_send

    async def held_close(run: ActiveRun) -> None:
        held.append(run)
        ended.set()
        await close(run)

    async def held_group_send(group: str, message: dict[str, Any]) -> None:
        if message["type"] == "conversation.batch":
            await gate.wait()
        await group_send(group, message)

    monkeypatch.setattr(ActiveRun, "close", held_close)
    monkeypatch.setattr(layer, "group_send", held_group_send)
    monkeypatch.setattr(registry, "layer_is_shared", lambda: True)
    monkeypatch.setattr(consumer_module, "layer_is_shared", lambda: True)
    headers = await database_sync_to_async(headers_for)(alice)
    first = await open_chat(conversation.pk, headers)
    await first.receive_json_from()
    await first.send_json_to({"type": "send", "text": "/text all of it", "options": await chat_options()})
    await frames_until(first, "run.end")
    await asyncio.wait_for(ended.wait(), 10)
    second = await open_chat(conversation.pk, headers)
    snapshot = await second.receive_json_from()
    assert snapshot["status"] == "done" and snapshot["running"] is False and snapshot["message_count"] == 2
    gate.set()
    await asyncio.wait_for(held[0].task, 10)  # its batches sent: nothing of it reaches the next test
    later: list[dict[str, Any]] = []
    while not await second.receive_nothing(timeout=0.5):
        message = await second.receive_json_from()
        later.extend(message if isinstance(message, list) else [message])
    assert of_type(later, "run.end"), "where the run stands still goes on (it has the page read what is saved)"
    assert not [frame for frame in later if frame["type"].startswith(("rt.", "tool."))], later
    assert all(not s["running"] and not s["frames"] for s in of_type(later, "snapshot")), later
    await first.disconnect(), await second.disconnect()


async def test_an_answer_cut_by_max_tokens_ends_the_run_saying_so(
    conversation: Conversation, alice: User, headers_for: Headers
) -> None:
    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(alice))
    await chat.receive_json_from()
    text = '/call calculator {"expression": "1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10"}'
    await chat.send_json_to({"type": "send", "text": text, "options": await chat_options(max_tokens=6)})
    frames = await frames_until(chat, "run.end")
    [end] = of_type(frames, "rt.end")
    assert end["finish_reason"] == "length" and end["raw_finish_reason"] == "length"
    assert of_type(frames, "tool.result") == []
    assert frames[-1]["status"] == "limit" and "max tokens limit (6)" in frames[-1]["message"]
    messages, round_trips, fresh = await saved(conversation)
    assert fresh.status == "limit" and round_trips[0].finish_reason == "length"
    views = transcript(fresh, messages, {rt.pk: rt for rt in round_trips})
    assert [c.status for v in views for c in v.calls] == ["truncated"], "the saved card says why it never ran"
    await chat.disconnect()
