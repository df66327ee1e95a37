"""A socket's session check (revocation.session_alive), read before every action: signed in, unexpired, same user,
still active, with the password it was signed in with."""

from __future__ import annotations

from datetime import timedelta
from importlib import import_module
from typing import TYPE_CHECKING

import pytest
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from playground.teams.revocation import session_alive

if TYPE_CHECKING:
    from pytest_django.fixtures import SettingsWrapper

pytestmark = pytest.mark.django_db


def signed_in(user: User, engine: str, *, with_hash: bool = True) -> str:
    """A session as a sign-in leaves it: the user's key and the hash of their password."""
    store = import_module(engine).SessionStore()
    store[SESSION_KEY] = str(user.pk)
    if with_hash:
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
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


def test_a_session_signed_in_before_the_password_changed_is_dead(alice: User) -> None:
    key = signed_in(alice, "django.contrib.sessions.backends.db")
    alice.set_password("a-new-password-5678")
    alice.save()
    assert not session_alive(key, alice.pk)
    assert session_alive(signed_in(alice, "django.contrib.sessions.backends.db"), alice.pk), "a new sign-in is"


def test_a_turned_off_or_deleted_account_signs_nobody_in(alice: User, bob: User) -> None:
    key, other = (
        signed_in(alice, "django.contrib.sessions.backends.db"),
        signed_in(bob, "django.contrib.sessions.backends.db"),
    )
    User.objects.filter(pk=alice.pk).update(is_active=False)
    assert not session_alive(key, alice.pk)
    bob_pk = bob.pk
    bob.delete()
    assert not session_alive(other, bob_pk)


def test_a_session_without_a_password_hash_signs_nobody_in(alice: User) -> None:
    # Django's own rule (django.contrib.auth.get_user): no hash, no user.
    assert not session_alive(signed_in(alice, "django.contrib.sessions.backends.db", with_hash=False), alice.pk)


def test_a_session_signed_with_a_secret_key_still_accepted_lives_on(alice: User, settings: SettingsWrapper) -> None:
    key = signed_in(alice, "django.contrib.sessions.backends.db")
    old_secret = settings.SECRET_KEY
    settings.SECRET_KEY = "a-new-secret-key-" + "x" * 40
    settings.SECRET_KEY_FALLBACKS = [old_secret]
    assert session_alive(key, alice.pk), "the old key is a fallback: Django still signs this session in"
    settings.SECRET_KEY_FALLBACKS = []
    assert not session_alive(key, alice.pk)


def test_a_sign_in_announces_nothing_and_an_account_edit_does(alice: User, monkeypatch: pytest.MonkeyPatch) -> None:
    # A sign-in saves the account (its last_login), which changes no access: the user's sockets are not asked.
    announced: list[int] = []
    monkeypatch.setattr("playground.teams.signals.announce_access_change", announced.append)
    Client().force_login(alice)
    assert announced == []
    alice.set_password("a-new-password-5678")
    alice.save()
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    assert announced == [alice.pk, alice.pk]
