"""The server row and its policy: the auth header at rest, header names, URLs, the administrator's stdio list, and
which server answers a tool snapshot (only one of the conversation's own team)."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from asgiref.sync import sync_to_async
from django.core.exceptions import ImproperlyConfigured

import playground.settings
from playground.mcp import policy
from playground.mcp.answer import answer
from playground.mcp.models import MCPServer
from playground.teams import access
from playground.tools.config import ToolConfig
from tests.mcp.support import AUTH_VALUE, CONNECT_TIMEOUT_S, STDIO_SERVERS

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team


def test_the_auth_header_is_stored_encrypted_and_shown_only_as_a_hint(settings: SettingsWrapper) -> None:
    server = MCPServer(name="s", transport=MCPServer.Transport.HTTP, url="https://mcp.example.com/mcp")

    server.set_auth_header(AUTH_VALUE, "X-Api-Key")

    assert AUTH_VALUE not in server.auth_header_encrypted and server.auth_header_encrypted
    assert server.auth_header_hint == "…2d6f"
    assert server.auth_headers() == {"X-Api-Key": AUTH_VALUE}
    settings.CROSSWIRE_ENCRYPTION_KEY = "Kx3v0rJ0cA0mYl5lq4i2rQvS3tq7o6W7ZQ1m2n3o4p8="  # rotated: the value is gone
    assert server.auth_headers() == {}


def test_an_empty_value_removes_the_header() -> None:
    server = MCPServer(name="s", transport=MCPServer.Transport.HTTP, url="https://mcp.example.com/mcp")
    server.set_auth_header(AUTH_VALUE)

    server.set_auth_header("")

    assert (server.auth_header_name, server.auth_header_encrypted, server.auth_header_hint) == ("", "", "")
    assert server.auth_headers() == {}


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("Authorization", ""),
        ("X-Api-Key", ""),
        ("X Api Key", "A header name is 1 to 100 letters"),
        ("Host", "Host is set by the MCP transport itself"),
        ("Mcp-Session-Id", "Mcp-Session-Id is set by the MCP transport itself"),
    ],
)
def test_header_names(name: str, problem: str) -> None:
    found = policy.header_name_problem(name)
    assert found.startswith(problem) and bool(found) == bool(problem)


def test_urls_follow_the_endpoints_rules(settings: SettingsWrapper) -> None:
    settings.CROSSWIRE_ALLOWED_BASE_URLS = ["https://mcp.example.com/team"]

    assert policy.url_refusal("https://mcp.example.com/team/mcp") is None
    assert policy.url_refusal("https://mcp.example.com/team/../admin/mcp") == (
        "Write the base URL's path without . or .. segments."
    )
    assert policy.url_refusal("https://mcp.example.com/teams/mcp") == (
        "This deployment does not allow that base URL; CROSSWIRE_ALLOWED_BASE_URLS allows: https://mcp.example.com/team."
    )
    assert policy.url_refusal("https://mcp.example.com/team/mcp", changing=True, is_owner=False) == (
        "Only team owners can set a custom base URL."
    )


def test_only_the_administrators_stdio_servers_exist() -> None:
    assert policy.stdio_keys() == sorted(STDIO_SERVERS)
    command = policy.stdio_command("tests-v2")
    assert command.command == STDIO_SERVERS["tests-v2"]["command"]
    assert command.env == {"MCP_TEST_VARIANT": "v2"}


def test_the_stdio_list_is_read_from_the_environment_as_json(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CROSSWIRE_DATA_DIR", str(tmp_path))
    servers = {"files": {"command": ["mcp-server-files", "/srv/data"], "env": {"LOG": "warn"}}}
    monkeypatch.setenv("CROSSWIRE_MCP_STDIO_SERVERS", json.dumps(servers))
    assert runpy.run_path(playground.settings.__file__)["CROSSWIRE_MCP_STDIO_SERVERS"] == servers

    monkeypatch.setenv("CROSSWIRE_MCP_STDIO_SERVERS", '["mcp-server-files"]')
    with pytest.raises(ImproperlyConfigured, match="must be a JSON object, got list"):
        runpy.run_path(playground.settings.__file__)

    monkeypatch.delenv("CROSSWIRE_MCP_STDIO_SERVERS")
    assert runpy.run_path(playground.settings.__file__)["CROSSWIRE_MCP_STDIO_SERVERS"] == {}


def _stdio_row(team: Team) -> MCPServer:
    return MCPServer.objects.create(
        team=team,
        name="local",
        transport=MCPServer.Transport.STDIO,
        stdio_key="tests",
        connect_timeout_s=CONNECT_TIMEOUT_S,
    )


def _echo(server_id: int) -> ToolConfig:
    return ToolConfig(name="echo", mode="mcp", mcp_server_id=server_id, mcp_tool="echo")


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_a_snapshot_is_answered_by_its_server_when_it_belongs_to_the_team(team: Team) -> None:
    server = await sync_to_async(_stdio_row)(team)

    outcome = await answer(_echo(server.pk), {"text": "hi"}, team_id=team.pk)

    assert (outcome.result.content, outcome.result.is_error) == ("hi", False)
    assert outcome.traffic


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_a_snapshot_naming_another_teams_server_is_never_sent_there(team: Team, alice: User) -> None:
    other = await sync_to_async(access.create_team)(name="Other", owner=alice)
    theirs = await sync_to_async(_stdio_row)(other)

    outcome = await answer(_echo(theirs.pk), {"text": "hi"}, team_id=team.pk)

    assert outcome.result.is_error is True
    assert outcome.result.content == (
        "echo is answered by an MCP server this team no longer has; sync or re-import the tool."
    )
    assert outcome.traffic == []


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("-1", "A timeout is at least 0.1 seconds."),
        ("601", "A timeout is at most 600 seconds (10 minutes)."),
        ("soon", "A timeout is a number of seconds, such as 10 or 2.5."),
    ],
)
@pytest.mark.django_db
def test_a_timeout_out_of_range_is_refused_in_seconds(alice: User, value: str, message: str) -> None:
    from playground.mcp.forms import MCPServerForm

    team = access.ensure_personal_team(alice)
    data = {"name": "remote", "url": "http://127.0.0.1:9/mcp", "connect_timeout_s": value, "call_timeout_s": value}
    form = MCPServerForm(data, team=team, transport=MCPServer.Transport.HTTP, is_owner=True)
    assert not form.is_valid()
    assert form.errors["connect_timeout_s"] == [message] == form.errors["call_timeout_s"]
