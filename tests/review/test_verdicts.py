"""Verdicts on tool calls: every role gives one, one per reviewer and call; saving again changes it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from playground.review.models import Verdict
from tests.review.conftest import CALLS, HTMX

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.http import HttpResponse
    from django.test import Client

    from playground.conversations.models import Conversation

pytestmark = pytest.mark.django_db
Clients = Callable[["User | None"], "Client"]


def judge(client: Client, conversation: Conversation, call_id: str, kind: str, note: str = "") -> HttpResponse:
    data = {"call_id": call_id, "kind": kind, "note": note}
    return client.post(f"/c/{conversation.pk}/review/verdicts/save/", data, **HTMX)


def test_a_viewer_gives_a_verdict_and_sees_it_listed(reviewed: Conversation, carol: User, client_for: Clients) -> None:
    response = judge(client_for(carol), reviewed, CALLS["invalid"], "wrong_arguments", "town is not a field")
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('data-testid="verdict"') == 1
    assert "Wrong arguments" in html and "town is not a field" in html and "carol" in html
    verdict = Verdict.objects.get()
    assert (verdict.author, verdict.call_id, verdict.kind) == (carol, CALLS["invalid"], "wrong_arguments")


def test_saving_again_changes_the_reviewers_verdict(reviewed: Conversation, carol: User, client_for: Clients) -> None:
    client = client_for(carol)
    judge(client, reviewed, CALLS["good"], "other", "not sure")
    first = Verdict.objects.get()
    judge(client, reviewed, CALLS["good"], "right")
    assert Verdict.objects.count() == 1
    changed = Verdict.objects.get()
    assert (changed.pk, changed.kind, changed.note) == (first.pk, "right", "")
    page = client.get(f"/c/{reviewed.pk}/review/").content.decode()
    assert '<option value="right" selected>Right call</option>' in page  # the form shows the reviewer's own


def test_each_reviewer_has_their_own_verdict_on_a_call(
    reviewed: Conversation, alice: User, bob: User, carol: User, client_for: Clients
) -> None:
    for user, kind in ((alice, "right"), (bob, "not_needed"), (carol, "wrong_tool")):
        judge(client_for(user), reviewed, CALLS["failed"], kind)
    judge(client_for(bob), reviewed, CALLS["failed"], "right")
    rows = {(v.author.username, v.kind) for v in Verdict.objects.all()}
    assert rows == {("alice", "right"), ("bob", "right"), ("carol", "wrong_tool")}
    listed = client_for(alice).get(f"/c/{reviewed.pk}/review/verdicts/", {"call": CALLS["failed"]}, **HTMX)
    assert listed.content.decode().count('data-testid="verdict"') == 3


def test_a_verdict_needs_a_kind_and_a_real_call(reviewed: Conversation, carol: User, client_for: Clients) -> None:
    client = client_for(carol)
    missing_kind = judge(client, reviewed, CALLS["good"], "")
    assert missing_kind.status_code == 400 and missing_kind.content == b"Pick a verdict: a note goes with one."
    assert judge(client, reviewed, CALLS["good"], "brilliant").status_code == 400
    assert judge(client, reviewed, "call_elsewhere", "right").status_code == 404
    assert judge(client, reviewed, CALLS["good"], "other", "x" * 2001).status_code == 400
    assert not Verdict.objects.exists()


def test_going_back_to_no_verdict_withdraws_the_reviewers_own(
    reviewed: Conversation, alice: User, carol: User, client_for: Clients
) -> None:
    judge(client_for(alice), reviewed, CALLS["good"], "right")
    client = client_for(carol)
    judge(client, reviewed, CALLS["good"], "wrong_tool", "why this one?")
    withdrawn = judge(client, reviewed, CALLS["good"], "")
    assert withdrawn.status_code == 200 and 'data-author="carol"' not in withdrawn.content.decode()
    assert [(v.author.username, v.kind) for v in Verdict.objects.all()] == [("alice", "right")], "only carol's goes"
