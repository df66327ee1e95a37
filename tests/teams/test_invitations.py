"""Joining a team takes the invitee's consent, and inviting tells nobody whether an account exists."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from playground.teams import access
from playground.teams.models import Invitation, Role
from tests.teams.test_teams import HTMX, membership, role_of, signed_in

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db


def invite(client: Client, username: str, role: str = Role.EDITOR) -> str:
    return client.post(reverse("team-invite"), {"username": username, "role": role}, **HTMX).content.decode()


def test_inviting_adds_nobody_and_reads_the_same_for_any_username(
    client: Client, alice: User, team: Team, django_user_model: type[User]
) -> None:
    dave = django_user_model.objects.create_user("dave")
    owner = signed_in(client, alice, team)
    existing, unknown = invite(owner, "dave"), invite(owner, "nobody-at-all")
    assert "Invited dave as Editor. They join when they accept" in existing
    assert "Invited nobody-at-all as Editor. They join when they accept" in unknown
    assert role_of(team, dave) is None  # no member until dave says yes
    assert set(Invitation.objects.filter(team=team).values_list("username", flat=True)) == {"dave", "nobody-at-all"}
    assert 'data-invitation="dave"' in unknown and 'data-invitation="nobody-at-all"' in unknown


def test_an_existing_member_is_told_apart_only_as_the_member_list_already_shows(
    client: Client, alice: User, team: Team
) -> None:
    assert "bob is already a member." in invite(signed_in(client, alice, team), "bob")
    assert not Invitation.objects.exists()


def test_inviting_again_says_the_pending_invitation_changed(client: Client, alice: User, team: Team) -> None:
    owner = signed_in(client, alice, team)
    invite(owner, "dave", Role.EDITOR)
    again = invite(owner, "dave", Role.VIEWER)
    assert "dave&#x27;s pending invitation is now for Viewer (it was for Editor)." in again
    assert Invitation.objects.get(username="dave").role == Role.VIEWER and Invitation.objects.count() == 1


def test_the_invitee_accepts_and_joins_with_the_offered_role(
    client: Client, alice: User, team: Team, django_user_model: type[User]
) -> None:
    dave = django_user_model.objects.create_user("dave")
    invite(signed_in(client, alice, team), "dave", Role.VIEWER)
    invitee = Client()
    page = signed_in(invitee, dave).get(reverse("team")).content.decode()
    assert 'data-testid="invitation" data-team="Evals"' in page
    invitation = Invitation.objects.get(username="dave")
    response = invitee.post(reverse("invitation-accept", args=[invitation.pk]))
    assert response["Location"] == reverse("team")
    assert [str(m) for m in get_messages(response.wsgi_request)] == ["You joined Evals as Viewer."]
    assert role_of(team, dave) == Role.VIEWER
    assert not Invitation.objects.exists()
    assert b'<span class="crumb-team">Evals</span>' in invitee.get(reverse("team")).content


def test_declining_leaves_no_trace(client: Client, alice: User, team: Team, django_user_model: type[User]) -> None:
    dave = django_user_model.objects.create_user("dave")
    invite(signed_in(client, alice, team), "dave")
    invitation = Invitation.objects.get(username="dave")
    signed_in(Client(), dave).post(reverse("invitation-decline", args=[invitation.pk]))
    assert role_of(team, dave) is None and not Invitation.objects.exists()


def test_nobody_else_can_accept_or_decline_an_invitation(
    client: Client, alice: User, bob: User, team: Team, django_user_model: type[User]
) -> None:
    django_user_model.objects.create_user("dave")
    invite(signed_in(client, alice, team), "dave")
    invitation = Invitation.objects.get(username="dave")
    other = signed_in(Client(), bob)
    assert other.post(reverse("invitation-accept", args=[invitation.pk])).status_code == 404
    assert other.post(reverse("invitation-decline", args=[invitation.pk])).status_code == 404
    assert Invitation.objects.filter(pk=invitation.pk).exists()


def test_owners_withdraw_and_others_cannot(client: Client, alice: User, bob: User, team: Team) -> None:
    invite(signed_in(client, alice, team), "dave")
    invitation = Invitation.objects.get(username="dave")
    editor = signed_in(Client(), bob, team)
    refused = editor.post(reverse("team-invitation-revoke", args=[invitation.pk]), **HTMX).content.decode()
    assert "Only owners can manage members." in refused
    assert "Only owners can manage members." in invite(editor, "erin")
    assert Invitation.objects.count() == 1
    withdrawn = client.post(reverse("team-invitation-revoke", args=[invitation.pk]), **HTMX).content.decode()
    assert "Withdrew the invitation to dave." in withdrawn
    assert not Invitation.objects.exists()


def test_inviting_again_changes_the_offered_role(client: Client, alice: User, team: Team) -> None:
    owner = signed_in(client, alice, team)
    invite(owner, "dave", Role.VIEWER)
    invite(owner, "dave", Role.OWNER)
    assert list(Invitation.objects.values_list("username", "role")) == [("dave", Role.OWNER)]


def test_inviting_again_with_the_same_role_says_the_invitation_already_stands(
    client: Client, alice: User, bob: User, team: Team
) -> None:
    owner = signed_in(client, alice, team)
    invite(owner, "dave", Role.EDITOR)
    invitation = Invitation.objects.get(username="dave")
    co_owner = signed_in(Client(), bob, team)
    access.change_role(membership=membership(team, bob), actor=alice, role=Role.OWNER)
    again = invite(co_owner, "dave", Role.EDITOR)
    assert "dave&#x27;s pending invitation already stands for Editor." in again
    assert "is now for" not in again
    kept = Invitation.objects.get()
    assert (kept.pk, kept.role, kept.invited_by) == (invitation.pk, Role.EDITOR, alice), "nothing changed"


def test_an_invitation_reaches_the_account_whatever_the_case_typed(
    client: Client, alice: User, team: Team, django_user_model: type[User]
) -> None:
    dave = django_user_model.objects.create_user("dave")
    owner = signed_in(client, alice, team)
    # Typed as the owner typed it, whether or not an account is spelled so: the answer tells nobody who has one.
    assert "Invited DAVE as Editor." in invite(owner, "DAVE")
    invitee = signed_in(Client(), dave)
    assert 'data-testid="invitation" data-team="Evals"' in invitee.get(reverse("team")).content.decode()
    invitation = Invitation.objects.get()
    invitee.post(reverse("invitation-accept", args=[invitation.pk]))
    assert role_of(team, dave) == Role.EDITOR


def test_inviting_in_another_case_changes_the_pending_invitation_not_a_second_one(
    client: Client, alice: User, team: Team
) -> None:
    owner = signed_in(client, alice, team)
    invite(owner, "dave", Role.EDITOR)
    assert "dave&#x27;s pending invitation is now for Viewer (it was for Editor)." in invite(owner, "Dave", Role.VIEWER)
    assert "dave&#x27;s pending invitation already stands for Viewer." in invite(owner, "DAVE", Role.VIEWER)
    assert list(Invitation.objects.values_list("username", "role")) == [("dave", Role.VIEWER)]


def test_a_member_invited_in_another_case_is_named_as_the_list_shows(client: Client, alice: User, team: Team) -> None:
    assert "bob is already a member." in invite(signed_in(client, alice, team), "BOB")
    assert not Invitation.objects.exists()


def test_an_invitation_goes_to_the_account_spelled_exactly_so_when_two_differ_in_case(
    client: Client, alice: User, team: Team, django_user_model: type[User]
) -> None:
    lower, title = django_user_model.objects.create_user("dave"), django_user_model.objects.create_user("Dave")
    owner = signed_in(client, alice, team)
    invite(owner, "Dave")
    invitation = Invitation.objects.get()
    assert signed_in(Client(), lower).post(reverse("invitation-accept", args=[invitation.pk])).status_code == 404
    signed_in(Client(), title).post(reverse("invitation-accept", args=[invitation.pk]))
    assert role_of(team, title) == Role.EDITOR and role_of(team, lower) is None
    # Spelled as neither, it could be for either: it reaches nobody rather than the wrong one.
    invite(owner, "DAVE")
    assert not signed_in(Client(), lower).get(reverse("team")).context["my_invitations"]
