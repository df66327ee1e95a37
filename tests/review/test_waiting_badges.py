"""What waits for a person is badged in the sidebar on every page: invitations to a team (answered on the Team page)
and unseen mentions (the For you inbox, otherwise linked only from a review page)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from playground.teams import invitations
from playground.teams.models import Role
from tests.review.test_comments import post

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.conversations.models import Conversation
    from playground.teams.models import Team

pytestmark = pytest.mark.django_db
Clients = Callable[["User | None"], "Client"]


def badge(html: str, testid: str) -> str | None:
    """The count a sidebar badge shows, or None when the page has none."""
    found = re.search(rf'data-testid="{testid}"[^>]*>(?:(?!</a>).)*?(\d+)</span>', html, re.S)
    return found.group(1) if found else None


def test_an_invitation_is_badged_on_the_team_link_until_it_is_answered(
    team: Team, alice: User, django_user_model: type[User], client_for: Clients
) -> None:
    dave = django_user_model.objects.create_user("dave", password="pw-dave-1234")
    page = client_for(dave).get("/conversations/").content.decode()
    assert badge(page, "nav-invitations") is None
    invitation = invitations.invite(team=team, actor=alice, username="dave", role=Role.EDITOR).invitation
    page = client_for(dave).get("/conversations/").content.decode()
    assert badge(page, "nav-invitations") == "1", "he would not know of it before opening the Team page"
    assert badge(client_for(alice).get("/conversations/").content.decode(), "nav-invitations") is None
    invitations.accept(invitation=invitation, user=dave)
    assert badge(client_for(dave).get("/conversations/").content.decode(), "nav-invitations") is None


def test_unseen_mentions_are_badged_with_a_link_to_the_inbox_until_seen(
    reviewed: Conversation, bob: User, carol: User, client_for: Clients
) -> None:
    assert badge(client_for(bob).get("/tools/").content.decode(), "nav-for-you") is None
    post(client_for(carol), reviewed, "@bob have a look")
    post(client_for(carol), reviewed, "@bob and this one")
    page = client_for(bob).get("/tools/").content.decode()
    assert badge(page, "nav-for-you") == "2" and 'href="/review/inbox/" data-testid="nav-for-you"' in page
    client_for(bob).get(f"/c/{reviewed.pk}/review/")  # the review shows them: seen
    assert badge(client_for(bob).get("/tools/").content.decode(), "nav-for-you") is None
