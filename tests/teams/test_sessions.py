"""The session store (playground.teams.sessions): Django's database store, with its read built once."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore as DjangoStore
from django.contrib.sessions.models import Session
from django.db import connection
from django.db.models import QuerySet
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from playground.teams.sessions import SessionStore

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

pytestmark = pytest.mark.django_db


def saved(store: Any, **data: str) -> str:
    for name, value in data.items():
        store[name] = value
    store.save()
    assert store.session_key
    return str(store.session_key)


def test_it_reads_what_djangos_store_wrote_and_the_other_way_round() -> None:
    theirs, ours = saved(DjangoStore(), who="alice", tab="chats"), saved(SessionStore(), who="bob")
    assert SessionStore(theirs).load() == {"who": "alice", "tab": "chats"}
    assert DjangoStore(ours).load() == {"who": "bob"}
    unknown = SessionStore("no-such-session-key-0123456789")
    assert unknown.load() == {} and unknown.session_key is None, "an unknown key is forgotten, not kept"


def test_an_expired_or_malformed_key_reads_nothing_and_is_forgotten() -> None:
    key = saved(SessionStore(), who="alice")
    Session.objects.filter(session_key=key).update(expire_date=timezone.now() - timedelta(seconds=1))
    for store_class in (DjangoStore, SessionStore):
        store = store_class(key)
        assert store.load() == {} and store.session_key is None, store_class
    with CaptureQueriesContext(connection) as queries:
        short = SessionStore("short")  # too short to be a key: not looked up (Django's store asks for a NULL key)
        assert short.load() == {} and short.session_key is None
    assert len(queries) == 0


def test_the_read_is_built_once_then_runs_without_building_a_query(monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = saved(SessionStore(), who="alice"), saved(SessionStore(), who="bob")
    assert SessionStore(first).load() == {"who": "alice"}  # builds the statement for this connection

    def no_building(*args: object, **kwargs: object) -> None:
        raise AssertionError("a query was built")

    monkeypatch.setattr(QuerySet, "filter", no_building)
    with CaptureQueriesContext(connection) as queries:
        assert SessionStore(second).load() == {"who": "bob"}
    assert len(queries) == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")  # PostgreSQL drops the test database only once they are closed
async def test_the_async_read_answers_as_the_sync_one(monkeypatch: pytest.MonkeyPatch) -> None:
    key, expired = await sync_to_async(saved)(SessionStore(), who="alice"), await sync_to_async(saved)(SessionStore())
    await Session.objects.filter(session_key=expired).aupdate(expire_date=timezone.now() - timedelta(seconds=1))
    assert await SessionStore(key).aload() == {"who": "alice"}  # builds the statement for the ORM thread's connection

    def no_building(*args: object, **kwargs: object) -> None:
        raise AssertionError("a query was built")

    monkeypatch.setattr(QuerySet, "filter", no_building)
    assert await SessionStore(key).aload() == {"who": "alice"}
    for gone in (expired, "no-such-session-key-0123456789"):
        store = SessionStore(gone)
        assert await store.aload() == {} and store.session_key is None, gone


def test_signing_in_through_the_app_uses_this_store(client: Client, alice: User) -> None:
    client.force_login(alice)
    assert isinstance(client.session, SessionStore)
    assert SessionStore(client.session.session_key).load()[SESSION_KEY] == str(alice.pk)
