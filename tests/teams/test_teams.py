"""Teams: the current-team helper, the Team page, and who may change membership."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.contrib.messages import get_messages
from django.test import Client, RequestFactory
from django.urls import reverse

from playground.teams import access
from playground.teams.models import Membership, Role, Team

if TYPE_CHECKING:
    from django.contrib.auth.models import User

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def signed_in(client: Client, user: User, team: Team | None = None) -> Client:
    client.force_login(user)
    if team is not None:
        client.post(reverse("team-switch"), {"team": team.pk})
    return client


def membership(team: Team, user: User) -> Membership:
    return Membership.objects.get(team=team, user=user)


def role_of(team: Team, user: User) -> str | None:
    return Membership.objects.filter(team=team, user=user).values_list("role", flat=True).first()


def request_for(user: User, session: dict[str, object] | None = None) -> object:
    request = RequestFactory().get("/")
    request.user = user
    request.session = session if session is not None else {}
    return request


def test_current_team_defaults_to_the_personal_team(alice: User) -> None:
    assert access.get_current_team(request_for(alice)) == Team.objects.get(personal_for=alice)


def test_current_team_follows_the_session(alice: User, team: Team) -> None:
    request = request_for(alice)
    access.set_current_team(request, team)
    assert access.get_current_team(request) == team


def test_current_team_falls_back_when_the_membership_is_gone(alice: User, bob: User, team: Team) -> None:
    request = request_for(bob, {access.CURRENT_TEAM_SESSION_KEY: team.pk})
    assert access.get_current_team(request) == team
    membership(team, bob).delete()
    assert access.get_current_team(request) == Team.objects.get(personal_for=bob)


def test_switching_to_a_team_changes_what_the_pages_show(client: Client, alice: User, team: Team) -> None:
    signed_in(client, alice)
    assert b"alice&#x27;s team</span>" in client.get(reverse("team")).content
    response = client.post(reverse("team-switch"), {"team": team.pk, "next": reverse("tools")})
    assert response["Location"] == reverse("tools")
    assert b'<span class="crumb-team">Evals</span>' in client.get(reverse("tools")).content


def test_cannot_switch_to_someone_elses_team(client: Client, alice: User, bob: User) -> None:
    bobs_team = Team.objects.get(personal_for=bob)
    response = signed_in(client, alice).post(reverse("team-switch"), {"team": bobs_team.pk})
    assert response.status_code == 404


def test_switch_by_htmx_refreshes_the_page(client: Client, alice: User, team: Team) -> None:
    response = signed_in(client, alice).post(reverse("team-switch"), {"team": team.pk}, **HTMX)
    assert response["HX-Refresh"] == "true"


def test_switching_from_a_page_of_the_old_teams_own_goes_to_the_new_teams_section(
    client: Client, alice: User, team: Team
) -> None:
    """Reloaded, a conversation or a comparison of the old team would make it current again: the switch goes on to the
    same section of the team picked instead."""
    signed_in(client, alice)
    for here, section in (("/c/5/", "playground"), ("/c/5/review/", "playground"), ("/compare/3/", "compare")):
        htmx = client.post(
            reverse("team-switch"), {"team": team.pk}, **HTMX, HTTP_HX_CURRENT_URL=f"http://testserver{here}"
        )
        assert htmx["HX-Redirect"] == reverse(section), here
        plain = client.post(reverse("team-switch"), {"team": team.pk, "next": here})
        assert plain["Location"] == reverse(section), here
    listed = client.post(
        reverse("team-switch"), {"team": team.pk}, **HTMX, HTTP_HX_CURRENT_URL="http://testserver/compare/"
    )
    assert listed["HX-Refresh"] == "true", "a page of no team's own is shown again, for the team picked"


def test_switch_ignores_an_offsite_next_url(client: Client, alice: User, team: Team) -> None:
    response = signed_in(client, alice).post(reverse("team-switch"), {"team": team.pk, "next": "https://evil.test/"})
    assert response["Location"] == reverse("playground")


def test_team_page_lists_members_and_roles(client: Client, carol: User, team: Team) -> None:
    html = signed_in(client, carol, team).get(reverse("team")).content.decode()
    for name, role in [("alice", "Owner"), ("bob", "Editor"), ("carol", "Viewer")]:
        assert f'<span class="member-name">{name}</span>' in html
        assert f">{role}</span>" in html
    assert "Read-only: only owners manage members." in html
    assert 'name="role"' not in html.split('id="members"')[1].split("</section>")[0]
    assert "Remove</button>" not in html


def test_owners_get_the_controls(client: Client, alice: User, team: Team) -> None:
    html = signed_in(client, alice, team).get(reverse("team")).content.decode()
    assert 'aria-label="Role of bob"' in html
    assert "Remove</button>" in html
    assert 'hx-post="/team/invitations/new/"' in html


def test_a_role_menu_saves_nothing_by_itself(client: Client, alice: User, bob: User, team: Team) -> None:
    """Only the row's Save posts a role: a menu that posted on change made a role of every arrow key pressed on it."""
    html = signed_in(client, alice, team).get(reverse("team")).content.decode()
    row = html.split('<tr data-member="bob"')[1].split("</tr>")[0]
    menu = row.split("<select")[1].split(">")[0]
    assert "hx-" not in menu, "the menu itself sends nothing"
    assert 'data-testid="member-role"' in menu
    assert 'data-testid="member-role-save"' in row
    assert f'hx-post="{reverse("team-change-role", args=[membership(team, bob).pk])}"' in row


@pytest.mark.parametrize("actor", ["bob", "carol"])
def test_only_owners_manage_members(client: Client, team: Team, actor: str, django_user_model: type[User]) -> None:
    user = django_user_model.objects.get(username=actor)
    alice = django_user_model.objects.get(username="alice")
    signed_in(client, user, team)
    refused = "Only owners can manage members."
    response = client.post(reverse("team-invite"), {"username": actor, "role": "owner"}, **HTMX)
    assert refused in response.content.decode()
    response = client.post(reverse("team-change-role", args=[membership(team, user).pk]), {"role": "owner"}, **HTMX)
    assert refused in response.content.decode()
    response = client.post(reverse("team-remove-member", args=[membership(team, alice).pk]), **HTMX)
    assert refused in response.content.decode()
    assert role_of(team, user) != Role.OWNER
    assert role_of(team, alice) == Role.OWNER


def test_owner_changes_a_role(client: Client, alice: User, bob: User, team: Team) -> None:
    url = reverse("team-change-role", args=[membership(team, bob).pk])
    response = signed_in(client, alice, team).post(url, {"role": Role.VIEWER}, **HTMX)
    assert "bob is now Viewer." in response.content.decode()
    assert role_of(team, bob) == Role.VIEWER


def test_unknown_role_is_refused(client: Client, alice: User, bob: User, team: Team) -> None:
    url = reverse("team-change-role", args=[membership(team, bob).pk])
    response = signed_in(client, alice, team).post(url, {"role": "admin"}, **HTMX)
    assert "Pick one of the listed roles." in response.content.decode()
    assert role_of(team, bob) == Role.EDITOR


def test_the_last_owner_can_be_neither_demoted_nor_removed(client: Client, alice: User, team: Team) -> None:
    own = membership(team, alice)
    signed_in(client, alice, team)
    response = client.post(reverse("team-change-role", args=[own.pk]), {"role": Role.EDITOR}, **HTMX)
    assert "A team needs at least one owner" in response.content.decode()
    response = client.post(reverse("team-remove-member", args=[own.pk]), **HTMX)
    assert "You are the only owner of Evals: make someone else an owner before you leave." in response.content.decode()
    assert role_of(team, alice) == Role.OWNER


def test_owner_removes_a_member(client: Client, alice: User, carol: User, team: Team) -> None:
    response = signed_in(client, alice, team).post(
        reverse("team-remove-member", args=[membership(team, carol).pk]), **HTMX
    )
    assert "Removed carol." in response.content.decode()
    assert role_of(team, carol) is None


def test_an_owner_removing_themselves_leaves_as_leave_team_does(
    client: Client, alice: User, bob: User, team: Team
) -> None:
    access.change_role(membership=membership(team, bob), actor=alice, role=Role.OWNER)
    response = signed_in(client, alice, team).post(
        reverse("team-remove-member", args=[membership(team, alice).pk]), **HTMX
    )
    assert response["HX-Redirect"] == reverse("playground")
    assert [str(m) for m in get_messages(response.wsgi_request)] == ["You left Evals."]
    assert role_of(team, alice) is None
    assert b"alice&#x27;s team</span>" in client.get(reverse("team")).content


def test_memberships_of_other_teams_are_out_of_reach(client: Client, alice: User, bob: User, team: Team) -> None:
    bobs_own = membership(Team.objects.get(personal_for=bob), bob)
    signed_in(client, alice, team)
    assert client.post(reverse("team-change-role", args=[bobs_own.pk]), {"role": "viewer"}).status_code == 404
    assert client.post(reverse("team-remove-member", args=[bobs_own.pk])).status_code == 404


def test_creating_a_team_makes_you_its_owner_and_switches_to_it(client: Client, alice: User) -> None:
    response = signed_in(client, alice).post(reverse("team-create"), {"name": "Platform evals"}, follow=True)
    created = Team.objects.get(name="Platform evals")
    assert role_of(created, alice) == Role.OWNER
    assert b'<span class="crumb-team">Platform evals</span>' in response.content


def test_team_pages_need_a_login(client: Client) -> None:
    assert client.get(reverse("team")).status_code == 302
    assert client.post(reverse("team-invite"), {"username": "x", "role": "viewer"}).status_code == 302
