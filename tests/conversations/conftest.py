"""Fixtures for the conversation transfer tests: someone outside the team, and the saved conversation."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.conftest import PASSWORD
from tests.conversations.builders import saved_conversation

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from playground.conversations.models import Conversation
    from playground.teams.models import Team


@pytest.fixture
def dave(django_user_model: type[User]) -> User:
    """In no team but his own."""
    return django_user_model.objects.create_user("dave", password=PASSWORD)


@pytest.fixture
def saved(team: Team, alice: User) -> Conversation:
    return saved_conversation(team, alice)
