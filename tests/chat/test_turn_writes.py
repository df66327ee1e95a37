"""What starting a turn, opening a socket and saving a run's messages write and read: only what changed, in as few
trips to the ORM's thread as the rules allow (each one holds the interpreter a while, beside every stream)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from asgiref.sync import SyncToAsync
from channels.db import database_sync_to_async
from django.contrib.auth.models import User
from django.db import DatabaseError, connection
from django.db.backends.utils import CursorWrapper
from django.db.models import QuerySet
from django.test.utils import CaptureQueriesContext

from playground.chat import event_saver, opening, service
from playground.chat.opening import TurnRefused, claim, configure
from playground.chat.options import ChatOptions
from playground.chat.orm import orm_thread
from playground.chat.processes import PROCESS_ID
from playground.chat.questions import saved_state
from playground.chat.writes import save_message
from playground.conversations.access import conversation_access
from playground.conversations.models import Conversation, Message
from playground.endpoints.models import Endpoint
from playground.teams.models import Membership, Role, Team
from tests.chat.conftest import frames_until, open_chat, options

if TYPE_CHECKING:
    from collections.abc import Callable

    from pytest_django.fixtures import SettingsWrapper

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


def test_a_sockets_saved_state_is_one_small_statement_not_the_whole_row(conversation: Conversation) -> None:
    for position in range(3):
        data = {"role": "user", "content": f"hi {position}"}
        Message.objects.create(conversation=conversation, position=position, role="user", data=data)
    Conversation.objects.filter(pk=conversation.pk).update(status_message="all good")
    with CaptureQueriesContext(connection) as queries:
        state = saved_state(conversation.pk)
    assert state == {"status": "idle", "label": "Ready", "message": "all good", "message_count": 3, "questions": []}
    assert len(queries) == 1, "status and message count together, on every socket that opens"
    assert "search_text" not in queries[0]["sql"], "the search text is not read to say the status"
    empty = Conversation.objects.create(team=conversation.team, created_by=conversation.created_by)
    assert saved_state(empty.pk)["message_count"] == 0
    with pytest.raises(Conversation.DoesNotExist):
        saved_state(empty.pk + 1000)


def test_an_interrupted_conversations_saved_state_holds_its_open_questions(conversation: Conversation) -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "ask_user", "arguments": "{}"}}
    Message.objects.create(
        conversation=conversation, position=0, role="assistant", data={"role": "assistant", "tool_calls": [call]}
    )
    tools = [{"name": "ask_user", "description": "", "parameters": {"type": "object"}, "mode": "manual"}]
    Conversation.objects.filter(pk=conversation.pk).update(status=Conversation.Status.INTERRUPTED, tools=tools)
    state = saved_state(conversation.pk)
    assert state["status"] == "interrupted" and state["message_count"] == 1
    assert [(q["call_id"], q["kind"]) for q in state["questions"]] == [("call_1", "manual")]


def recorded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every statement sent from now on, from every thread (the ORM's own runs the async queries)."""
    statements: list[str] = []
    real = CursorWrapper.execute

    def execute(self: CursorWrapper, sql: str, params: Any = None) -> Any:
        statements.append(sql)
        return real(self, sql, params)

    monkeypatch.setattr(CursorWrapper, "execute", execute)
    return statements


def trips(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The name of every function sent to the ORM's thread from now on (each trip is a hand-off both ways), but the
    raw-event batches': the process's one writer sends those on its own clock (``event_saver.EVERY_S``), whatever
    turns are going, and a wait it began before a test changed that clock may end within the test's turn."""
    sent: list[str] = []
    real = SyncToAsync.__call__

    async def call(self: SyncToAsync[..., Any], *args: Any, **kwargs: Any) -> Any:
        function = getattr(self.func, "func", self.func)  # a partial: the function it calls
        if function != event_saver.INSERT_BATCHES.run:
            sent.append(getattr(function, "__name__", "?"))
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", call)
    return sent


async def test_starting_a_turn_writes_its_settings_and_leaves_the_search_text(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint = await Endpoint.objects.filter(name="Simulated OpenAI").afirst()
    assert endpoint is not None
    # Written by the indexer since the page loaded the row: a whole-row save would put the stale text back.
    await Conversation.objects.filter(pk=conversation.pk).aupdate(search_text="indexed words")
    options = ChatOptions(endpoint_id=endpoint.pk, model="sim-1")
    statements = recorded(monkeypatch)
    await orm_thread(claim)(conversation, None, configure(conversation, endpoint, options, [], "A title"))
    monkeypatch.undo()
    # Nobody runs it: the claim and the settings are one statement, and the row is not read first.
    assert len(statements) == 1 and statements[0].startswith("UPDATE"), statements
    row = await Conversation.objects.aget(pk=conversation.pk)
    assert row.search_text == "indexed words"
    assert (row.endpoint_id, row.model, row.title, row.status) == (endpoint.pk, "sim-1", "A title", "running")
    assert row.settings == options.to_dict() and row.run_owner == PROCESS_ID


async def test_a_refused_claim_saves_none_of_the_turns_settings(conversation: Conversation) -> None:
    endpoint = await Endpoint.objects.filter(name="Simulated OpenAI").afirst()
    assert endpoint is not None
    await Conversation.objects.filter(pk=conversation.pk).aupdate(status="running", run_owner=PROCESS_ID)
    options = ChatOptions(endpoint_id=endpoint.pk, model="sim-1")
    with pytest.raises(TurnRefused, match="still running"):
        await orm_thread(claim)(conversation, None, configure(conversation, endpoint, options, [], "A title"))
    row = await Conversation.objects.aget(pk=conversation.pk)
    assert (row.endpoint_id, row.model, row.title, row.settings) == (None, "", "", {})


async def test_a_turn_with_an_unknown_tool_or_endpoint_is_refused_before_anything_is_saved(
    conversation: Conversation,
) -> None:
    known = ChatOptions(**await database_sync_to_async(options)(tools=["calculator"]))  # type: ignore[arg-type]
    fresh = await Conversation.objects.select_related("team").aget(pk=conversation.pk)
    for changed, refusal in (
        ({"tools": ["calculator", "launch_rocket"]}, "Unknown tools: launch_rocket."),
        ({"endpoint_id": known.endpoint_id + 1000}, "Pick a provider endpoint."),
    ):
        refused = ChatOptions(**{**known.to_dict(), **changed})  # type: ignore[arg-type]
        with pytest.raises(TurnRefused, match=refusal):
            await service.start_turn(conversation=fresh, text="hello", options=refused)
    row = await Conversation.objects.aget(pk=conversation.pk)
    assert (row.status, row.tools, row.endpoint_id) == ("idle", [], None)
    assert await row.messages.acount() == 0
    started = await service.start_turn(conversation=fresh, text="hello", options=known)
    await started.run.task  # type: ignore[misc]
    row = await Conversation.objects.aget(pk=conversation.pk)
    assert [tool["name"] for tool in row.tools] == ["calculator"] and await row.messages.acount() >= 2


async def test_a_turn_whose_message_cannot_be_saved_releases_its_claim(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat_options = ChatOptions(**await database_sync_to_async(options)(tools=[]))  # type: ignore[arg-type]

    def broken(*args: object, **kwargs: object) -> Message:
        raise DatabaseError("disk I/O error")

    monkeypatch.setattr(opening, "save_message", broken)
    fresh = await Conversation.objects.select_related("team").aget(pk=conversation.pk)
    with pytest.raises(DatabaseError, match="disk I/O error"):
        await service.start_turn(conversation=fresh, text="hello", options=chat_options)
    # Claimed in the same trip, then released: the conversation is not left running for a run that never began.
    row = await Conversation.objects.aget(pk=conversation.pk)
    assert (row.status, row.run_owner) == ("idle", "")
    assert not service.REGISTRY.is_running(conversation.pk)
    assert await row.messages.acount() == 0


async def test_a_message_at_a_known_position_skips_reading_the_last_and_falls_back_when_taken(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = await orm_thread(save_message)(conversation, {"role": "user", "content": "one"})
    reads: list[object] = []
    real = QuerySet.aggregate

    def counted(self: QuerySet[Message], *args: object, **kwargs: object) -> dict[str, object]:
        reads.append(kwargs)
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(QuerySet, "aggregate", counted)
    second = await orm_thread(save_message)(conversation, {"role": "assistant", "content": "two"}, position=1)
    assert (first.position, second.position) == (0, 1)
    assert reads == [], "the position was known: no read of the last one"
    # Someone else took the position the run counted on: the message goes after the last one, nothing is lost.
    third = await orm_thread(save_message)(conversation, {"role": "user", "content": "three"}, position=1)
    assert third.position == 2 and len(reads) == 1
    saved = [m async for m in Message.objects.filter(conversation=conversation).order_by("position")]
    assert [m.data["content"] for m in saved] == ["one", "two", "three"]


def test_a_sockets_access_check_is_two_narrow_queries(conversation: Conversation, alice: User, team: Team) -> None:
    with CaptureQueriesContext(connection) as queries:
        loaded, can_edit = conversation_access(alice, conversation.pk)
    assert loaded == conversation and loaded.team_id == team.pk and can_edit is True
    # Read before every action on the socket, where building each query in Python costs more than running it: no
    # model ordering (the membership's joins the user table), no join of the team's columns, the role alone.
    assert len(queries) == 2
    assert not any(word in q["sql"] for q in queries for word in ("ORDER BY", "JOIN", "auth_user")), queries
    assert queries[1]["sql"].startswith('SELECT "playground_membership"."role" AS "role" FROM'), queries[1]["sql"]
    outsider = User.objects.create_user("mallory")
    assert conversation_access(outsider, conversation.pk) == (None, False)
    assert conversation_access(alice, conversation.pk + 1000) == (None, False)
    Membership.objects.filter(user=alice, team=team).update(role=Role.VIEWER)
    assert conversation_access(alice, conversation.pk) == (conversation, False)
    other = Team.objects.create(name="Elsewhere")
    Membership.objects.create(user=alice, team=other, role=Role.OWNER)  # a role in another team changes nothing
    assert conversation_access(alice, conversation.pk) == (conversation, False)


async def test_claims_under_the_per_person_limit_are_counted_not_read(
    conversation: Conversation, alice: User, settings: SettingsWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.CROSSWIRE_MAX_RUNS_PER_USER = 3
    read: list[list[dict[str, Any]]] = []

    def live_claims(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        read.append(rows)
        return rows

    monkeypatch.setattr(opening, "live_claims", live_claims)
    held = {"team_id": conversation.team_id, "run_by": alice, "status": "running", "run_owner": PROCESS_ID}
    for _ in range(2):
        await Conversation.objects.acreate(**held)
    await orm_thread(opening.check_user_runs)(conversation, alice)
    assert read == [], "two claims cannot reach a limit of three: none is read or checked"
    await Conversation.objects.acreate(**held)
    with pytest.raises(TurnRefused, match="You have 3 runs going already"):
        await orm_thread(opening.check_user_runs)(conversation, alice)
    assert [len(rows) for rows in read] == [3]


async def say_hi(
    conversation: Conversation,
    user: User,
    headers_for: Callable[[User], list[tuple[bytes, bytes]]],
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """One turn over a socket ("hi", no tools): its frames, and from the send on, the statements it ran and the
    functions it sent to the ORM's thread."""
    chat = await open_chat(conversation.pk, await database_sync_to_async(headers_for)(user))
    await chat.receive_json_from()  # the snapshot
    sent_options = await database_sync_to_async(options)(tools=[])
    # Raw-event batches are written on a timer while a stream lasts (event_saver.EVERY_S): on a loaded machine this
    # short answer could outlast it, and add a trip that is the stream's length, not the turn's.
    monkeypatch.setattr(event_saver, "EVERY_S", 60.0)
    statements, sent = recorded(monkeypatch), trips(monkeypatch)
    await chat.send_json_to({"type": "send", "text": "hi", "options": sent_options})
    frames = await frames_until(chat, "run.end")
    monkeypatch.undo()
    # The writer's wait began with the interval above, and the event loop outlives this test: woken now, so a later
    # test's stream finds a writer on the usual interval, not one asleep for a minute.
    event_saver.writer_for_loop()._wake.set()
    await chat.disconnect()
    return frames, statements, sent


async def test_a_turn_reads_its_conversations_whole_row_once_for_its_access_check(
    conversation: Conversation,
    alice: User,
    headers_for: Callable[[User], list[tuple[bytes, bytes]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ended, statements, _ = await say_hi(conversation, alice, headers_for, monkeypatch)
    assert ended[-1]["status"] == "done"
    # The access check reads the row (all of it, search text included); starting the turn and the run used to read
    # it twice more, moments later, where the check's row and the claimed one say the same.
    whole = [sql for sql in statements if sql.startswith("SELECT") and '"playground_conversation"."search_text"' in sql]
    assert len(whole) == 1, whole
    assert '"playground_membership"' not in whole[0]
    saved = await Conversation.objects.aget(pk=conversation.pk)
    assert (saved.status, saved.model, saved.run_owner) == ("done", "sim-1", "")
    roles = saved.messages.order_by("position").values_list("role", flat=True)
    assert [role async for role in roles] == ["user", "assistant"]


async def test_opening_a_socket_reads_the_conversations_key_and_team_only(
    conversation: Conversation,
    alice: User,
    headers_for: Callable[[User], list[tuple[bytes, bytes]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await Conversation.objects.filter(pk=conversation.pk).aupdate(search_text="every word " * 1000)
    headers = await database_sync_to_async(headers_for)(alice)
    statements = recorded(monkeypatch)
    chat = await open_chat(conversation.pk, headers)
    snapshot = await chat.receive_json_from()
    assert snapshot["type"] == "snapshot" and snapshot["running"] is False
    reads = [sql for sql in statements if sql.startswith("SELECT") and 'FROM "playground_conversation"' in sql]
    assert reads and not [sql for sql in reads if '"search_text"' in sql or '"tools"' in sql], reads
    await chat.send_json_to({"type": "ping"})
    assert await chat.receive_json_from() == {"type": "pong"}
    await chat.disconnect()


async def test_opening_a_socket_is_two_trips_the_sign_in_with_the_access_check_then_the_saved_state(
    conversation: Conversation,
    alice: User,
    headers_for: Callable[[User], list[tuple[bytes, bytes]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    headers = await database_sync_to_async(headers_for)(alice)
    statements, sent = recorded(monkeypatch), trips(monkeypatch)
    chat = await open_chat(conversation.pk, headers)
    snapshot = await chat.receive_json_from()
    monkeypatch.undo()
    assert snapshot["type"] == "snapshot" and snapshot["running"] is False
    # Channels' auth middleware read the user in a trip of its own, before the access check's.
    ours = [name for name in sent if name != "no_op"]  # no_op: the test communicator's own
    assert ours == ["_admitted_user", "saved_state"], sent
    tables = [sql.split(" FROM ")[1].split()[0] for sql in statements if sql.startswith("SELECT")]
    assert tables[:2] == ['"django_session"', '"auth_user"'], "the session, then its user, as Channels reads them"
    assert '"playground_membership"' in tables, "the access check, in the same trip"
    await chat.send_json_to({"type": "ping"})
    assert await chat.receive_json_from() == {"type": "pong"}
    await chat.disconnect()


async def test_the_search_index_is_made_from_the_messages_the_run_holds(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    await orm_thread(save_message)(conversation, {"role": "user", "content": "an earlier question about lighthouses"})
    chat_options = ChatOptions(**await database_sync_to_async(options)(tools=["calculator"]))  # type: ignore[arg-type]
    fresh = await Conversation.objects.select_related("team").aget(pk=conversation.pk)
    statements = recorded(monkeypatch)
    started = await service.start_turn(
        conversation=fresh, text='/call calculator {"expression": "6*7"}', options=chat_options
    )
    run = started.run
    assert run.task is not None
    await run.task
    monkeypatch.undo()
    # The history is read once, when the run starts; the index is made from it and what the run saved.
    reads = [sql for sql in statements if sql.startswith("SELECT") and '"playground_message"."data"' in sql]
    assert len(reads) == 1 and '"playground_message"."complete"' in reads[0], reads
    saved = await Conversation.objects.aget(pk=conversation.pk)
    roles = [role async for role in saved.messages.order_by("position").values_list("role", flat=True)]
    assert roles == ["user", "user", "assistant", "tool", "assistant"]
    for words in ("lighthouses", "calculator", "6*7", "expression"):
        assert words in saved.search_text, (words, saved.search_text)
    assert saved.called_tools == " calculator " and saved.indexed_at is not None


async def test_opening_a_turn_is_one_trip_to_the_orms_thread(
    conversation: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat_options = ChatOptions(**await database_sync_to_async(options)(tools=["calculator"]))  # type: ignore[arg-type]
    fresh = await Conversation.objects.select_related("team").aget(pk=conversation.pk)
    sent = trips(monkeypatch)
    before_run: list[list[str]] = []
    real_start = service.REGISTRY.start

    async def start(*args: Any, **kwargs: Any) -> Any:
        before_run.append(list(sent))
        return await real_start(*args, **kwargs)

    monkeypatch.setattr(service.REGISTRY, "start", start)
    started = await service.start_turn(conversation=fresh, text="hello", options=chat_options)
    assert started.run.task is not None
    await started.run.task
    monkeypatch.undo()
    # The endpoint, the policy, the person's runs, the tools, the claim, the message and the history: one trip.
    assert before_run == [["open_turn"]]
    assert started.message_count == 1
    saved = await Conversation.objects.aget(pk=conversation.pk)
    assert saved.status == "done" and saved.tools[0]["name"] == "calculator"


async def test_a_turn_makes_four_trips_and_reads_what_it_opened_with_only_once(
    conversation: Conversation,
    alice: User,
    headers_for: Callable[[User], list[tuple[bytes, bytes]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frames, statements, sent = await say_hi(conversation, alice, headers_for, monkeypatch)
    assert frames[-1]["status"] == "done"
    started = next(f for f in frames if f["type"] == "turn.started")
    assert started["message_count"] == 1
    # The access check with the turn's opening; the round trip's row as its request goes; its whole record with its
    # batches deleted, then the answer; the status with the search index. Each trip used to hold one statement.
    ours = [name for name in sent if name != "no_op"]  # no_op: the test communicator's own
    assert ours == ["open_admitted_turn", "_insert_round_trip", "_save_ended_and_message", "_save_status"], sent
    counts = [sql for sql in statements if sql.startswith('SELECT COUNT(*) AS "__count" FROM "playground_message"')]
    assert counts == [], "the page's message count comes from the history the turn read"
    last_round_trip = [sql for sql in statements if sql.startswith('SELECT "playground_roundtrip"."position"')]
    assert len(last_round_trip) == 1, last_round_trip
    # The history is read once, before the user's message, whose position it gives: no MAX over the messages.
    history = [sql for sql in statements if sql.startswith('SELECT "playground_message"."position"')]
    assert len(history) == 1, history
    assert not [sql for sql in statements if sql.startswith("SELECT MAX(")], statements
    assert not [sql for sql in statements if 'FROM "playground_tool"' in sql], "a turn without tools reads none"
    saved = await Conversation.objects.aget(pk=conversation.pk)
    assert saved.search_text and saved.indexed_at is not None and saved.status == "done"
