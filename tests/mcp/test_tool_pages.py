"""An imported MCP tool on the pages that show tools: the editor shows it read-only and refuses a save, the chat and
compare pickers name the server that answers it and say when the server stopped listing it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from playground.conversations.models import Conversation
from playground.mcp.models import MCPServer
from playground.tools.models import Tool
from tests.endpoints.support import signed_in

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


@pytest.fixture
def echo(team: Team) -> Tool:
    server = MCPServer.objects.create(team=team, name="local tools", transport=MCPServer.Transport.STDIO, stdio_key="t")
    return Tool.objects.create(
        team=team, name="echo", parameters=SCHEMA, mode=Tool.Mode.MCP, mcp_server=server, mcp_tool="echo"
    )


def test_the_editor_shows_an_mcp_tool_read_only_with_its_server(
    client: Client, alice: User, team: Team, echo: Tool
) -> None:
    html = signed_in(client, alice, team).get(reverse("tool-edit", args=[echo.pk])).content.decode()

    assert 'data-testid="mcp-tool-readonly"' in html
    assert 'local tools</a> as\n      <span class="mono">echo</span>.' in html
    assert '<fieldset class="tool-fieldset" disabled>' in html
    assert "Read-only: viewers" not in html  # an owner is not told they are a viewer


def test_saving_an_mcp_tool_from_the_editor_is_refused_and_changes_nothing(
    client: Client, alice: User, team: Team, echo: Tool
) -> None:
    form = {"name": "echo", "description": "mine now", "parameters": '{"type": "object"}', "mode": "manual"}

    response = signed_in(client, alice, team).post(reverse("tool-edit", args=[echo.pk]), form)

    assert response.status_code == 403
    echo.refresh_from_db()
    assert (echo.mode, echo.description, echo.parameters) == ("mcp", "", SCHEMA)


def test_the_pickers_name_the_server_and_mark_a_removed_tool(
    client: Client, alice: User, team: Team, echo: Tool
) -> None:
    Tool.objects.create(team=team, name="gone", mode=Tool.Mode.MCP, mcp_server=echo.mcp_server, mcp_tool="gone",
                        mcp_removed_at=timezone.now())  # fmt: skip
    client = signed_in(client, alice, team)
    conversation = Conversation.objects.create(team=team, created_by=alice)

    for url in (reverse("chat", args=[conversation.pk]), reverse("compare")):
        html = client.get(url).content.decode()
        assert html.count('title="Answered by this MCP server">MCP · local tools</span>') == 2, url
        assert html.count("no longer lists this tool: a call will fail") == 1, url
