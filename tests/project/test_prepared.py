"""Statements built once (playground.prepared): the same rows and writes as the ORM's own, on SQLite and PostgreSQL."""

from __future__ import annotations

import gc
import threading
import weakref
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, connections, models, transaction
from django.db.models.signals import post_delete, post_save
from django.db.models.sql.compiler import SQLCompiler
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from playground.conversations.models import Conversation, Message, RoundTrip, WireEventBatch
from playground.endpoints.models import Endpoint
from playground.prepared import PreparedCreate, PreparedDelete, PreparedInsert, PreparedQuery, PreparedUpdate
from playground.teams.models import Team

pytestmark = pytest.mark.django_db


@pytest.fixture
def chats(team: Team) -> list[Conversation]:
    rows = [Conversation.objects.create(team=team, title=f"chat {n}", tools=[{"name": f"t{n}"}]) for n in range(3)]
    for n, row in enumerate(rows):
        for position in range(n + 1):
            data = {"role": "user", "content": [{"type": "text", "text": f"{n}.{position}"}]}
            Message.objects.create(conversation=row, position=position, role="user", data=data, complete=position != 1)
    return rows


def test_rows_are_the_orms_rows_converted_as_the_orm_converts_them(chats: list[Conversation]) -> None:
    def history(conversation: int) -> object:
        return Message.objects.filter(conversation_id=conversation).order_by("position").values_list("data", "complete")

    prepared = PreparedQuery(history, int)
    for chat in [*chats, *chats]:  # a second pass runs the statements already built
        expected = list(history(chat.pk))
        assert prepared.rows(chat.pk) == expected and expected
        assert isinstance(expected[0][0], dict)  # JSON comes back decoded, not as text
    assert prepared.rows(10**9) == []


def test_instances_are_the_orms_instances(chats: list[Conversation]) -> None:
    newest = PreparedQuery(lambda team: Conversation.objects.filter(team_id=team).order_by("-id")[:2], int)
    got = newest.instances(chats[0].team_id)
    expected = list(Conversation.objects.filter(team_id=chats[0].team_id).order_by("-id")[:2])
    assert got == expected
    for mine, theirs in zip(got, expected, strict=True):
        assert (mine.title, mine.tools, mine.created_at, mine.team_id) == (
            theirs.title,
            theirs.tools,
            theirs.created_at,
            theirs.team_id,
        )
        assert not mine._state.adding and mine._state.db == "default"  # saved rows, as the ORM marks them
        mine.title = "renamed"
        mine.save(update_fields=["title"])  # they save like any instance read by the ORM
    assert Conversation.objects.get(pk=got[0].pk).title == "renamed"


def test_a_read_by_a_32_bit_key_is_prepared_on_every_database(alice: User, bob: User) -> None:
    # Django's own tables (auth_user) have 32-bit keys: on PostgreSQL the ORM compiles a lookup whose value does not
    # fit the column into no statement at all, so the value that stands in for the caller's must fit.
    by_key = PreparedQuery(lambda pk: User.objects.filter(pk=pk, is_active=True).only("password")[:1], int)
    assert [user.username for user in by_key.instances(alice.pk)] == ["alice"]
    assert by_key.instances(bob.pk)[0].password == bob.password
    assert by_key.instances(10**6) == []


def test_the_statement_is_built_once_and_only_the_values_change(chats: list[Conversation]) -> None:
    built: list[tuple[object, ...]] = []

    def titles(team: int, title: str) -> object:
        built.append((team, title))
        return Conversation.objects.filter(team_id=team, title=title).values_list("pk")

    prepared = PreparedQuery(titles, int, str)
    sent: list[tuple[str, tuple[object, ...]]] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        sent.append((sql, tuple(params)))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):  # through the connection's own cursor, as every query goes
        found = [prepared.rows(chat.team_id, chat.title) for chat in chats]
    assert found == [[(chat.pk,)] for chat in chats]
    assert len(built) == 1, "one build per connection, whatever the values"
    assert len({sql for sql, _ in sent}) == 1 and [params for _, params in sent] == [
        (chat.team_id, chat.title) for chat in chats
    ]
    assert prepared.rows(chats[0].team_id, "no such title") == []
    assert prepared.rows(str(chats[0].team_id), chats[0].title) == [(chats[0].pk,)]  # values take their kind


def test_the_converters_are_looked_up_once(chats: list[Conversation], monkeypatch: pytest.MonkeyPatch) -> None:
    looked_up: list[int] = []
    original = SQLCompiler.get_converters

    def counted(self: SQLCompiler, expressions: Any) -> Any:
        looked_up.append(len(expressions))
        return original(self, expressions)

    def read(conversation: int) -> Any:
        messages = Message.objects.filter(conversation_id=conversation).order_by("position")
        return messages.values_list("data", "created_at")

    expected = [list(read(chat.pk)) for chat in chats]  # by the ORM, before the lookups are counted
    monkeypatch.setattr(SQLCompiler, "get_converters", counted)
    reads = PreparedQuery(read, int)
    assert [reads.rows(chat.pk) for chat in chats] == expected
    assert isinstance(expected[0][0][0], dict) and expected[0][0][1].tzinfo is not None  # both columns converted
    assert looked_up == [2], "once, when the statement is built"


def test_a_value_the_orm_transforms_is_refused_when_the_statement_is_built(team: Team) -> None:
    # icontains wraps the value in % signs: where it goes cannot be found, so no statement may be kept.
    prepared = PreparedQuery(lambda title: Conversation.objects.filter(title__icontains=title).values_list("pk"), str)
    with pytest.raises(ValueError, match="do not appear"):
        prepared.rows("chat")
    with pytest.raises(TypeError, match="expected 1 values"):
        PreparedQuery(lambda pk: Conversation.objects.filter(pk=pk), int).rows(1, 2)


def test_an_update_writes_what_queryset_update_writes(chats: list[Conversation], alice: User) -> None:
    endpoint = Endpoint.objects.create(name="E", kind="openai-compatible", format="openai-chat", base_url="http://x")
    fields = ("status", "run_by", "endpoint", "settings", "updated_at")
    claim = PreparedUpdate(
        Conversation, fields, lambda pk: Conversation.objects.filter(pk=pk).exclude(status="running"), int
    )
    when = timezone.now() - timedelta(days=3)
    values = {
        "status": "running",
        "run_by": alice,
        "endpoint": endpoint,
        "settings": {"t": [1, "ü"]},
        "updated_at": when,
    }
    assert claim.run(values, chats[0].pk) == 1
    assert claim.run(values, chats[0].pk) == 0, "the WHERE holds: a running conversation is not claimed again"
    Conversation.objects.filter(pk=chats[1].pk).update(**values)  # the ORM's own write, to compare with
    mine, theirs = Conversation.objects.get(pk=chats[0].pk), Conversation.objects.get(pk=chats[1].pk)
    for row in (mine, theirs):
        assert (row.status, row.run_by_id, row.endpoint_id, row.settings, row.updated_at) == (
            "running",
            alice.pk,
            endpoint.pk,
            {"t": [1, "ü"]},
            when,
        )
    assert Conversation.objects.get(pk=chats[2].pk).status != "running", "the other rows are untouched"
    release = PreparedUpdate(
        Conversation, ("status", "run_by", "endpoint"), lambda pk: Conversation.objects.filter(pk=pk), int
    )
    assert release.run({"status": "idle", "run_by": None, "endpoint": None}, chats[0].pk) == 1
    assert Conversation.objects.filter(pk=chats[0].pk, run_by=None, endpoint=None, status="idle").exists()


def stored_events(round_trip: int) -> list[tuple[int, str]]:
    """The batches' events as the database holds them (the JSON text, not the decoded value), by seq."""
    table, quote = WireEventBatch._meta.db_table, connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT seq, events FROM {quote(table)} WHERE round_trip_id = %s ORDER BY seq", [round_trip])
        return list(cursor.fetchall())


@pytest.mark.django_db(transaction=True)  # autocommit, as the ORM's thread runs it: the insert's own transaction
def test_an_insert_writes_what_bulk_create_writes_in_one_transaction(chats: list[Conversation]) -> None:
    mine, theirs = (RoundTrip.objects.create(conversation=chats[0], position=n, format="openai-chat") for n in (0, 1))
    events = [[[0.5, '{"a": "ü \\" \\u2028"}', None], [1.25, "data", "message_start"]], [[2.0, "x" * 3000, None]]]
    insert = PreparedInsert(WireEventBatch, ("round_trip", "seq", "events"))
    sent: list[tuple[str, bool]] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        sent.append((sql, many))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        insert.run([(mine.pk, seq, batch) for seq, batch in enumerate(events)])
        insert.run([])  # nothing to write: no statement
    inserts = [many for sql, many in sent if sql.startswith("INSERT")]
    # One statement holding every row, not one run for each (executemany): SQLite's driver lets go of the interpreter
    # around each row and takes it back from a busy event loop. None for no rows.
    assert inserts == [False], sent
    WireEventBatch.objects.bulk_create(
        [WireEventBatch(round_trip=theirs, seq=seq, events=batch) for seq, batch in enumerate(events)]
    )
    assert stored_events(mine.pk) == stored_events(theirs.pk)
    assert [b.events for b in WireEventBatch.objects.filter(round_trip=mine)] == events
    # The rows go together or not at all: a seq taken fails the whole insert, whose rows may span statements.
    with pytest.raises(IntegrityError):
        insert.run([(theirs.pk, 7, []), (theirs.pk, 0, [])])
    assert not WireEventBatch.objects.filter(round_trip=theirs, seq=7).exists()


@pytest.mark.django_db(transaction=True)
def test_an_insert_splits_its_rows_as_the_database_allows(
    chats: list[Conversation], monkeypatch: pytest.MonkeyPatch
) -> None:
    # As many rows a statement as the ORM's bulk_batch_size says this database takes (its limit on a statement's
    # values); every row lands, in order, in one transaction.
    mine = RoundTrip.objects.create(conversation=chats[0], position=0, format="openai-chat")
    monkeypatch.setattr(connection.ops, "bulk_batch_size", lambda fields, objs: 4)
    insert = PreparedInsert(WireEventBatch, ("round_trip", "seq", "events"))
    sent: list[str] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        sent.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        insert.run([(mine.pk, seq, [[float(seq), f"event {seq}", None]]) for seq in range(10)])
    assert [sql.count("(%s, %s, %s)") for sql in sent if sql.startswith("INSERT")] == [4, 4, 2]
    stored = WireEventBatch.objects.filter(round_trip=mine).order_by("seq")
    assert [(b.seq, b.events) for b in stored] == [(n, [[float(n), f"event {n}", None]]) for n in range(10)]
    with pytest.raises(IntegrityError):  # the last statement fails: the first two's rows go back with it
        insert.run([(mine.pk, seq, []) for seq in range(100, 108)] + [(mine.pk, 0, [])])
    assert not WireEventBatch.objects.filter(round_trip=mine, seq__gte=100).exists()


def test_an_insert_that_would_leave_out_a_value_from_python_is_refused() -> None:
    # Required (conversation, role), defaults from Python (complete, meta), set by the ORM (created_at: auto_now_add).
    # The key is numbered by the database and round_trip may be null: those two may be left out.
    with pytest.raises(ValueError, match=r"need values for conversation, role, complete, meta, created_at$"):
        PreparedInsert(Message, ("position", "data"))


def test_a_delete_removes_what_the_orms_delete_removes_and_refuses_a_cascade(chats: list[Conversation]) -> None:
    drop = PreparedDelete(Message, lambda c: Message.objects.filter(conversation_id=c, complete=True), int)
    assert drop.run(chats[2].pk) == 2  # positions 0 and 2; position 1 is incomplete
    assert list(Message.objects.filter(conversation=chats[2]).values_list("position", flat=True)) == [1]
    assert drop.run(chats[2].pk) == 0 and Message.objects.filter(conversation=chats[0]).count() == 1
    # A conversation's deletion cascades to its messages: the ORM must collect those, so no statement is kept.
    with pytest.raises(ValueError, match="cascades or sends signals"):
        PreparedDelete(Conversation, lambda pk: Conversation.objects.filter(pk=pk), int).run(chats[0].pk)
    assert Conversation.objects.filter(pk=chats[0].pk).exists()


@pytest.mark.django_db(transaction=True)
def test_a_threads_connection_goes_with_the_thread_and_its_statements(chats: list[Conversation]) -> None:
    # Each request thread has its own connection object: its statements must not keep it (and its open database
    # connection) alive once the thread is gone, as a cache beside it would, its compiler referring back to it.
    prepared = PreparedQuery(lambda pk: Conversation.objects.filter(pk=pk)[:1], int)
    held: list[weakref.ref[Any]] = []

    def request() -> None:
        held.append(weakref.ref(connections["default"]))
        assert prepared.instances(chats[0].pk) == [chats[0]]

    worker = threading.Thread(target=request)
    worker.start()
    worker.join()
    gc.collect()
    assert held and held[0]() is None, "the thread's connection object outlived it"


def test_a_delete_receiver_connected_later_gets_its_signals(chats: list[Conversation]) -> None:
    drop = PreparedDelete(Message, lambda c: Message.objects.filter(conversation_id=c), int)
    assert drop.run(chats[0].pk) == 1  # the statement is built, with no receiver
    deleted: list[int] = []

    def receiver(sender: type[Message], instance: Message, **kwargs: Any) -> None:
        deleted.append(instance.position)

    post_delete.connect(receiver, sender=Message)
    try:
        assert drop.run(chats[1].pk) == 2
    finally:
        post_delete.disconnect(receiver, sender=Message)
    assert sorted(deleted) == [0, 1], "the ORM deleted them, and said so"
    assert not Message.objects.filter(conversation__in=chats[:2]).exists()


def _row(model: type[Any], pk: int) -> dict[str, Any]:
    """Every column of a row, as the ORM reads it back, but its key and creation time."""
    values = model.objects.filter(pk=pk).values().get()
    return {k: v for k, v in values.items() if k not in {"id", "created_at", "started_at"}}


@pytest.mark.django_db(transaction=True)  # autocommit, as the ORM's thread runs it
def test_a_create_inserts_what_save_inserts_and_reads_the_key_back(chats: list[Conversation]) -> None:
    create, sent = PreparedCreate(Message), []
    data = {"role": "assistant", "content": 'ü " \u2028', "tool_calls": [{"id": "c1"}]}

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        sent.append(sql)
        return execute(sql, params, many, context)

    before = timezone.now()
    mine = Message(conversation=chats[0], position=5, role="assistant", data=data, complete=False, meta={"a": 1})
    with connection.execute_wrapper(record):
        create.insert(mine)
        again = Message(conversation=chats[0], position=6, role="tool", data={"role": "tool"})
        create.insert(again)  # the statement built for the first runs again
    theirs = Message.objects.create(
        conversation=chats[1], position=5, role="assistant", data=data, complete=False, meta={"a": 1}
    )
    assert len(sent) == 2 and sent[0] == sent[1] and sent[0].startswith("INSERT")
    assert mine.pk is not None and again.pk == mine.pk + 1 and not mine._state.adding and mine._state.db == "default"
    assert before <= mine.created_at <= timezone.now(), "auto_now_add, as save fills it"
    stored = Message.objects.get(pk=mine.pk)
    assert stored.created_at == mine.created_at and stored.data == data
    assert {**_row(Message, mine.pk), "conversation_id": 0} == {**_row(Message, theirs.pk), "conversation_id": 0}
    assert (again.complete, again.meta, again.round_trip_id) == (True, {}, None), "the model's defaults"
    with pytest.raises(IntegrityError):  # the position is taken: as save would fail
        create.insert(Message(conversation=chats[0], position=5, role="user", data={}))


@pytest.mark.django_db(transaction=True)
def test_a_created_round_trip_is_what_saving_it_stores(chats: list[Conversation]) -> None:
    fields = {"format": "openai-chat", "model": "m", "request": {"messages": [{"role": "user"}]}, "notes": ["n"]}
    fields["wire_request"] = {"url": "https://x/v1", "headers": {"authorization": "[redacted]"}, "body": {"a": 1}}
    mine = RoundTrip(conversation=chats[0], position=0, **fields)
    mine.measure()  # what RoundTrip.save does first: the caller's part
    PreparedCreate(RoundTrip).insert(mine)
    theirs = RoundTrip.objects.create(conversation=chats[1], position=0, **fields)
    assert {**_row(RoundTrip, mine.pk), "conversation_id": 0} == {**_row(RoundTrip, theirs.pk), "conversation_id": 0}
    assert RoundTrip.objects.get(pk=mine.pk).body_chars == theirs.body_chars > 0


def test_a_create_with_a_save_receiver_saves_through_the_orm(chats: list[Conversation]) -> None:
    saved: list[bool] = []

    def receiver(sender: type[Message], instance: Message, created: bool, **kwargs: Any) -> None:
        saved.append(created)

    post_save.connect(receiver, sender=Message)
    try:
        message = Message(conversation=chats[0], position=9, role="user", data={"role": "user"})
        PreparedCreate(Message).insert(message)
    finally:
        post_save.disconnect(receiver, sender=Message)
    assert saved == [True] and Message.objects.filter(pk=message.pk, position=9).exists()


def test_a_model_without_an_automatic_key_is_refused() -> None:
    from django.contrib.sessions.models import Session

    with pytest.raises(ValueError, match="automatic key"):
        PreparedCreate(Session)


@pytest.mark.django_db(transaction=True)
def test_a_failed_create_inside_an_atomic_block_marks_it_for_rollback_as_save_does(chats: list[Conversation]) -> None:
    create = PreparedCreate(Message)
    with transaction.atomic():
        with pytest.raises(IntegrityError):  # position 0 is taken
            create.insert(Message(conversation=chats[0], position=0, role="user", data={}))
        with pytest.raises(TransactionManagementError):  # as after a failed save: nothing more until it ends
            Message.objects.count()
    assert Message.objects.filter(conversation=chats[0]).count() == 1


def test_a_create_leaves_expressions_and_unsaved_relations_to_the_orm(chats: list[Conversation]) -> None:
    create = PreparedCreate(Message)
    computed = Message(conversation=chats[0], position=models.Value(41) + 1, role="user", data={})
    create.insert(computed)  # an expression: the ORM compiles it, as save would
    assert Message.objects.filter(pk=computed.pk, position=42).exists()
    with pytest.raises(ValueError, match="unsaved related object"):  # as save refuses it
        create.insert(Message(conversation=Conversation(title="not saved"), position=0, role="user", data={}))


def test_a_model_whose_fields_the_database_fills_is_refused() -> None:
    class Counted(models.Model):
        hits = models.IntegerField(db_default=0)

        class Meta:
            app_label = "playground"
            managed = False

        def __str__(self) -> str:
            return f"{self.hits} hits"

    with pytest.raises(ValueError, match="the database fills in"):
        PreparedCreate(Counted)
