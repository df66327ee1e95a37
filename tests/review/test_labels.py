"""Labels: the team's own, coloured, made on the fly; editors and owners put them on and take them off."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from playground.review.models import Label
from playground.teams.access import ensure_personal_team
from tests.review.conftest import HTMX

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.http import HttpResponse
    from django.test import Client

    from playground.conversations.models import Conversation

pytestmark = pytest.mark.django_db
Clients = Callable[["User | None"], "Client"]


def add(client: Client, conversation: Conversation, name: str, color: str = "#22aa55") -> HttpResponse:
    return client.post(f"/c/{conversation.pk}/review/labels/add/", {"name": name, "color": color}, **HTMX)


def test_an_editor_makes_a_label_on_the_fly_and_it_is_shown(
    reviewed: Conversation, bob: User, client_for: Clients
) -> None:
    response = add(client_for(bob), reviewed, "  regression  ", "#CC3344")
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('data-testid="label"') == 1
    assert 'data-color="#cc3344"' in html and '<span class="label-name">regression</span>' in html
    label = Label.objects.get()
    assert (label.team, label.name, label.color) == (reviewed.team, "regression", "#cc3344")
    assert list(label.conversations.all()) == [reviewed]


def test_a_name_the_team_has_reuses_its_label(
    reviewed: Conversation, alice: User, bob: User, client_for: Clients
) -> None:
    add(client_for(bob), reviewed, "good example", "#00aa00")
    reviewed.labels.clear()
    add(client_for(alice), reviewed, "Good Example", "#ff0000")
    label = Label.objects.get()
    assert (label.name, label.color) == ("good example", "#00aa00")
    assert list(reviewed.labels.all()) == [label]


def test_removing_takes_it_off_the_conversation_but_the_team_keeps_it(
    reviewed: Conversation, bob: User, client_for: Clients
) -> None:
    add(client_for(bob), reviewed, "flaky")
    label = Label.objects.get()
    response = client_for(bob).post(f"/c/{reviewed.pk}/review/labels/{label.pk}/remove/", **HTMX)
    assert response.status_code == 200 and 'data-testid="label"' not in response.content.decode()
    assert Label.objects.filter(pk=label.pk).exists() and not reviewed.labels.exists()
    assert '<option value="flaky">' in response.content.decode()  # offered again next time


def test_viewers_read_labels_but_cannot_change_them(
    reviewed: Conversation, bob: User, carol: User, client_for: Clients
) -> None:
    add(client_for(bob), reviewed, "regression")
    label = Label.objects.get()
    refused = add(client_for(carol), reviewed, "mine")
    assert refused.status_code == 403 and b"Only editors and owners" in refused.content
    assert client_for(carol).post(f"/c/{reviewed.pk}/review/labels/{label.pk}/remove/", **HTMX).status_code == 403
    assert list(reviewed.labels.all()) == [label] and Label.objects.count() == 1
    page = client_for(carol).get(f"/c/{reviewed.pk}/review/").content.decode()
    assert 'data-testid="label"' in page and 'data-testid="label-name"' not in page and "label-remove" not in page


def test_bad_names_colours_and_another_teams_labels_are_refused(
    reviewed: Conversation, alice: User, bob: User, client_for: Clients
) -> None:
    assert add(client_for(bob), reviewed, "").status_code == 400
    assert add(client_for(bob), reviewed, "x" * 51).status_code == 400
    assert add(client_for(bob), reviewed, "ok", "red").status_code == 400
    elsewhere = Label.objects.create(team=ensure_personal_team(alice), name="private")
    response = client_for(bob).post(f"/c/{reviewed.pk}/review/labels/{elsewhere.pk}/remove/", **HTMX)
    assert response.status_code == 404
    assert Label.objects.count() == 1
