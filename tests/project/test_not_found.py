"""A page that is not there answers with the app's own page and reason, in debug mode too (``./scripts/run``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.test import Client

from playground.conversations.models import Conversation

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("debug", [True, False])
def test_a_conversation_of_a_team_one_left_is_a_plain_not_found_page(
    settings: SettingsWrapper, team: Team, alice: User, django_user_model: type[User], debug: bool
) -> None:
    settings.DEBUG = debug
    conversation = Conversation.objects.create(team=team, created_by=alice, title="Secret plans")
    outsider = django_user_model.objects.create_user("mallory", password="pw-mallory-1")
    client = Client()
    client.force_login(outsider)
    for path in (f"/c/{conversation.pk}/", f"/c/{conversation.pk}/review/"):
        response = client.get(path)
        html = response.content.decode()
        assert response.status_code == 404
        assert 'data-testid="not-found"' in html and "No such conversation." in html, path
        assert "Secret plans" not in html and "URLconf" not in html, "nothing of the page, nor Django's debug list"
        assert "Back to the conversations" in html
