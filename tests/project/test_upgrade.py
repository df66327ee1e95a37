"""An existing database upgrades with `migrate` and keeps every row.

The database is built at the schema of the last release before the domain packages (migration 0002), filled through
that schema's historical models, then migrated to today's head and read back through today's models.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from playground.conversations.models import Conversation, Message, RoundTrip
from playground.endpoints.models import Endpoint
from playground.teams.models import Membership, Team
from playground.tools.models import Tool

RELEASED_HEAD = [("playground", "0002_tools_endpoints_conversations")]


def _fill(apps: Any) -> dict[str, int]:
    """One row of every model, linked as the app links them; returns the primary keys."""
    user = apps.get_model("auth", "User").objects.create(username="old-timer")
    team = apps.get_model("playground", "Team").objects.create(name="Before the move")
    apps.get_model("playground", "Membership").objects.create(user=user, team=team, role="owner")
    tool = apps.get_model("playground", "Tool").objects.create(
        team=team, name="get_weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}}
    )
    endpoint = apps.get_model("playground", "Endpoint").objects.create(
        team=team, name="Old endpoint", kind="openai-compatible", format="openai-chat", base_url="http://x/v1"
    )
    conversation = apps.get_model("playground", "Conversation").objects.create(
        team=team, created_by=user, endpoint=endpoint, title="Kept", status="done", tools=[{"name": "get_weather"}]
    )
    round_trip = apps.get_model("playground", "RoundTrip").objects.create(
        conversation=conversation, position=0, format="openai-chat", wire_events=[[0.5, "data", "{}"]]
    )
    message = apps.get_model("playground", "Message").objects.create(
        conversation=conversation,
        position=0,
        role="user",
        data={"role": "user", "content": "hi"},
        round_trip=round_trip,
    )
    return {
        "team": team.pk,
        "tool": tool.pk,
        "endpoint": endpoint.pk,
        "conversation": conversation.pk,
        "round_trip": round_trip.pk,
        "message": message.pk,
    }


@pytest.mark.django_db(transaction=True)
def test_a_database_at_the_released_schema_upgrades_and_keeps_every_row() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(RELEASED_HEAD)
    keys = _fill(executor.loader.project_state(RELEASED_HEAD).apps)

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    team = Team.objects.get(pk=keys["team"])
    assert team.name == "Before the move"
    assert Membership.objects.get(team=team).user.username == "old-timer"
    assert Tool.objects.get(pk=keys["tool"]).parameters["properties"] == {"city": {"type": "string"}}
    assert Endpoint.objects.get(pk=keys["endpoint"]).base_url == "http://x/v1"
    conversation = Conversation.objects.get(pk=keys["conversation"])
    assert (conversation.title, conversation.endpoint_id, conversation.tools) == (
        "Kept",
        keys["endpoint"],
        [{"name": "get_weather"}],
    )
    assert RoundTrip.objects.get(pk=keys["round_trip"]).wire_events == [[0.5, "data", "{}"]]
    message = Message.objects.get(pk=keys["message"])
    assert (message.data, message.round_trip_id) == ({"role": "user", "content": "hi"}, keys["round_trip"])
