"""A socket's session check (revocation.session_alive), read before every action: signed in, unexpired, same user."""

from __future__ import annotations

from datetime import timedelta
from importlib import import_module
from typing import TYPE_CHECKING

import pytest
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.utils import timezone

from playground.teams.revocation import session_alive

if TYPE_CHECKING:
    from pytest_django.fixtures import SettingsWrapper

pytestmark = pytest.mark.django_db


def signed_in(user: User, engine: str) -> str:
    store = import_module(engine).SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store.save()
    assert store.session_key
    return store.session_key


def test_a_database_session_is_alive_until_signed_out_or_expired(alice: User, bob: User) -> None:
    key, other = (
        signed_in(alice, "django.contrib.sessions.backends.db"),
        signed_in(bob, "django.contrib.sessions.backends.db"),
    )
    assert session_alive(key, alice.pk) and session_alive(other, bob.pk)
    assert not session_alive(key, bob.pk), "the session signs in alice, not bob"
    assert not session_alive("", alice.pk) and not session_alive(None, alice.pk)
    assert not session_alive("no-such-session-key-0123456789", alice.pk)
    Session.objects.filter(session_key=key).update(expire_date=timezone.now() - timedelta(seconds=1))
    assert not session_alive(key, alice.pk), "an expired session signs nobody in"
    Session.objects.filter(session_key=other).delete()  # signed out
    assert not session_alive(other, bob.pk)


def test_another_session_engine_is_asked_through_its_store(alice: User, settings: SettingsWrapper) -> None:
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
    key = signed_in(alice, settings.SESSION_ENGINE)
    assert session_alive(key, alice.pk) and not session_alive(key, alice.pk + 1)
    assert not Session.objects.exists(), "a cookie session has no row: the store itself decides"
