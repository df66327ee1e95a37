"""Any member may leave a team from its Team page; a team keeps an owner, and a personal team stays its account's."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from playground.teams import access
from playground.teams.models import Role, Team
from tests.teams.test_teams import HTMX, membership, role_of, signed_in

if TYPE_CHECKING:
    from django.contrib.auth.models import User

pytestmark = pytest.mark.django_db

LEAVE_BUTTON = 'data-testid="team-leave">Leave team</button>'


def leave(client: Client, team: Team, **extra: str) -> object:
    return client.post(reverse("team-leave", args=[team.pk]), **extra)


@pytest.mark.parametrize("name", ["bob", "carol"])
def test_an_editor_or_a_viewer_leaves_and_lands_in_their_own_team(
    client: Client, team: Team, name: str, django_user_model: type[User]
) -> None:
    member = django_user_model.objects.get(username=name)
    signed_in(client, member, team)
    page = client.get(reverse("team")).content.decode()
    assert LEAVE_BUTTON in page
    assert 'hx-confirm="Leave Evals? You lose access to its conversations and tools at once;' in page

    response = leave(client, team, **HTMX)

    assert response["HX-Redirect"] == reverse("playground")
    assert [str(m) for m in get_messages(response.wsgi_request)] == ["You left Evals."]
    assert role_of(team, member) is None
    personal = Team.objects.get(personal_for=member)
    assert client.session[access.CURRENT_TEAM_SESSION_KEY] == personal.pk
    assert f"{name}&#x27;s team</span>".encode() in client.get(reverse("team")).content


def test_leaving_without_htmx_is_a_redirect_home(client: Client, carol: User, team: Team) -> None:
    response = leave(signed_in(client, carol, team), team)
    assert response.status_code == 302 and response["Location"] == reverse("playground")
    assert role_of(team, carol) is None


def test_an_owner_leaves_when_another_owner_stays(client: Client, alice: User, bob: User, team: Team) -> None:
    access.change_role(membership=membership(team, bob), actor=alice, role=Role.OWNER)
    page = signed_in(client, alice, team).get(reverse("team")).content.decode()
    assert LEAVE_BUTTON in page
    own_row = page.split('<tr data-member="alice"')[1].split("</tr>")[0]
    assert "Remove</button>" not in own_row, "one's own row offers Leave team, above, not Remove"
    response = leave(client, team, **HTMX)
    assert response["HX-Redirect"] == reverse("playground")
    assert role_of(team, alice) is None and role_of(team, bob) == Role.OWNER


def test_the_last_owner_is_told_why_they_cannot_leave(client: Client, alice: User, team: Team) -> None:
    response = leave(signed_in(client, alice, team), team, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "You are the only owner of Evals: make someone else an owner before you leave." in html
    assert role_of(team, alice) == Role.OWNER
    assert client.session[access.CURRENT_TEAM_SESSION_KEY] == team.pk


def test_nobody_leaves_their_personal_team(client: Client, alice: User, bob: User) -> None:
    personal = Team.objects.get(personal_for=alice)
    access.add_member(team=personal, actor=alice, username="bob", role=Role.OWNER)  # not the last owner, even
    signed_in(client, alice, personal)
    assert LEAVE_BUTTON not in client.get(reverse("team")).content.decode()
    response = leave(client, personal, **HTMX)
    assert "This is your personal team: it stays yours." in response.content.decode()
    assert role_of(personal, alice) == Role.OWNER
    # Someone else's personal team is left like any other.
    bobs_view = signed_in(Client(), bob, personal)
    assert LEAVE_BUTTON in bobs_view.get(reverse("team")).content.decode()
    assert leave(bobs_view, personal)["Location"] == reverse("playground")
    assert role_of(personal, bob) is None


def test_a_team_one_is_not_in_cannot_be_left(client: Client, alice: User, bob: User, team: Team) -> None:
    bobs_own = Team.objects.get(personal_for=bob)
    assert leave(signed_in(client, alice, team), bobs_own).status_code == 404
    assert role_of(bobs_own, bob) == Role.OWNER


def test_leave_acts_on_the_team_shown_not_the_one_picked_since(client: Client, bob: User, team: Team) -> None:
    """The page confirmed leaving the team it showed; another tab may have switched the current team meanwhile."""
    signed_in(client, bob, team)
    client.post(reverse("team-switch"), {"team": Team.objects.get(personal_for=bob).pk})
    leave(client, team, **HTMX)
    assert role_of(team, bob) is None
