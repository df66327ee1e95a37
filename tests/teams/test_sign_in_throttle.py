"""Sign-in throttling: guessing a password gets five tries per account and address, then a clear lockout page."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.conftest import PASSWORD

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

pytestmark = pytest.mark.django_db


def attempt(client: Client, username: str, password: str, address: str = "203.0.113.7") -> int:
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=address).status_code


def test_fifty_wrong_passwords_then_the_right_one_is_refused(client: Client, alice: User) -> None:
    statuses = [attempt(client, "alice", f"guess-{n}") for n in range(50)]
    assert statuses[:4] == [200] * 4  # the form again, with its error
    assert set(statuses[5:]) == {429}
    response = client.post("/login/", {"username": "alice", "password": PASSWORD}, REMOTE_ADDR="203.0.113.7")
    assert response.status_code == 429
    assert b"Too many failed sign-ins" in response.content
    assert "_auth_user_id" not in client.session


def test_a_lockout_binds_one_account_to_one_address(client: Client, alice: User, bob: User) -> None:
    for n in range(5):
        attempt(client, "alice", f"guess-{n}")
    assert attempt(client, "alice", PASSWORD) == 429
    # Nobody can lock a colleague out from elsewhere, nor lock others out by guessing at one account.
    assert attempt(client, "alice", PASSWORD, address="198.51.100.2") == 302
    assert attempt(client, "bob", PASSWORD) == 302


def test_a_successful_sign_in_resets_the_count(client: Client, alice: User) -> None:
    for n in range(4):
        attempt(client, "alice", f"guess-{n}")
    assert attempt(client, "alice", PASSWORD) == 302
    client.post("/logout/")
    for n in range(4):
        assert attempt(client, "alice", f"again-{n}") == 200
    assert attempt(client, "alice", PASSWORD) == 302
