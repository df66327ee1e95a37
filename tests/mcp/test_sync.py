"""Importing a server's tools into the team's library and keeping them in step: against the real stdio test server
(its second version changes one tool, drops one, adds one), and with listings given directly for the naming rules."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from asgiref.sync import sync_to_async

from playground.mcp.client import RemoteTool
from playground.mcp.models import MCPServer
from playground.mcp.sync import apply_listing, sync_server
from playground.tools.models import Tool
from tests.mcp.support import CONNECT_TIMEOUT_S

if TYPE_CHECKING:
    from playground.teams.models import Team

V1_TOOLS = {"echo", "add", "structured_only", "pixel", "fail", "slow", "echo_auth", "crash"}
SCHEMA: dict[str, Any] = {"type": "object", "properties": {"q": {"type": "string"}}}


def make_server(team: Team, *, name: str = "local tools", stdio_key: str = "tests") -> MCPServer:
    return MCPServer.objects.create(
        team=team,
        name=name,
        transport=MCPServer.Transport.STDIO,
        stdio_key=stdio_key,
        connect_timeout_s=CONNECT_TIMEOUT_S,
    )


def tools_of(server: MCPServer) -> dict[str, Tool]:
    return {tool.mcp_tool: tool for tool in Tool.objects.filter(mcp_server=server)}


async def resync(server: MCPServer, stdio_key: str) -> Any:
    server.stdio_key = stdio_key
    await server.asave(update_fields=["stdio_key"])
    return await sync_server(server)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_the_first_sync_imports_every_listed_tool_as_a_team_tool_answered_by_the_server(team: Team) -> None:
    server = await sync_to_async(make_server)(team)

    report = await sync_server(server)

    assert report.error == "" and set(report.created) == V1_TOOLS
    assert report.updated == report.removed == report.refused == []
    assert ("sent", "tools/list") in [(e.direction, (e.message or {}).get("method")) for e in report.traffic]
    tools = await sync_to_async(tools_of)(server)
    echo = tools["echo"]
    assert (echo.team_id, echo.name, echo.mode, echo.mcp_removed_at) == (team.pk, "echo", Tool.Mode.MCP, None)
    assert echo.description == "Echo the text back."
    assert echo.parameters["properties"]["text"]["type"] == "string"
    config = echo.config()
    assert (config.mode, config.mcp_server_id, config.mcp_tool) == ("mcp", server.pk, "echo")
    await server.arefresh_from_db()
    assert server.last_synced_at is not None and server.last_error == ""


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_a_resync_updates_changed_tools_marks_removed_ones_and_adds_new_ones(team: Team) -> None:
    server = await sync_to_async(make_server)(team)
    await sync_server(server)
    crash_pk = (await sync_to_async(tools_of)(server))["crash"].pk

    report = await resync(server, "tests-v2")

    assert (report.created, report.updated, report.removed, report.restored) == (["fresh"], ["echo"], ["crash"], [])
    assert set(report.unchanged) == V1_TOOLS - {"echo", "crash"}
    tools = await sync_to_async(tools_of)(server)
    assert tools["echo"].description == "Echo the text back, louder."
    assert tools["crash"].pk == crash_pk and tools["crash"].mcp_removed_at is not None  # marked, not deleted
    assert tools["fresh"].mcp_removed_at is None

    back = await resync(server, "tests")

    assert (back.created, back.updated, back.removed, back.restored) == ([], ["echo"], ["fresh"], ["crash"])
    tools = await sync_to_async(tools_of)(server)
    assert tools["crash"].pk == crash_pk and tools["crash"].mcp_removed_at is None
    assert tools["echo"].description == "Echo the text back."


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_a_server_that_cannot_be_listed_changes_nothing_and_keeps_the_error(team: Team) -> None:
    server = await sync_to_async(make_server)(team)
    await sync_server(server)

    report = await resync(server, "no-such-server")

    assert report.error == "No stdio MCP server named 'no-such-server' is configured on this deployment."
    await server.arefresh_from_db()
    assert server.last_error == report.error
    tools = await sync_to_async(tools_of)(server)
    assert set(tools) == V1_TOOLS and all(tool.mcp_removed_at is None for tool in tools.values())


@pytest.mark.django_db
def test_a_name_the_team_already_uses_leaves_that_tool_alone_and_suffixes_the_import(team: Team) -> None:
    mine = Tool.objects.create(team=team, name="search", description="Ours.", mode=Tool.Mode.MANUAL)
    first, second = make_server(team, name="first"), make_server(team, name="second")

    apply_listing(first, [RemoteTool("search", "Theirs.", SCHEMA)])
    apply_listing(second, [RemoteTool("search", "Also theirs.", SCHEMA)])
    report = apply_listing(first, [RemoteTool("search", "Theirs, changed.", SCHEMA)])

    mine.refresh_from_db()
    assert (mine.name, mine.description, mine.mode, mine.mcp_server) == ("search", "Ours.", "manual", None)
    assert tools_of(first)["search"].name == "search_mcp"
    assert tools_of(second)["search"].name == "search_mcp_2"
    assert report.updated == ["search_mcp"]  # matched by the server's name for it, so the local name stays
    assert tools_of(first)["search"].description == "Theirs, changed."


@pytest.mark.django_db
def test_characters_providers_refuse_in_a_name_become_underscores(team: Team) -> None:
    server = make_server(team)

    report = apply_listing(server, [RemoteTool("files.read/all", "", SCHEMA), RemoteTool("x" * 100, "", SCHEMA)])

    assert report.created == ["files_read_all", "x" * 64]
    assert tools_of(server)["files.read/all"].name == "files_read_all"


@pytest.mark.django_db
def test_a_schema_every_saved_tool_would_fail_is_refused_and_an_imported_tool_keeps_its_last_good_one(
    team: Team,
) -> None:
    server = make_server(team)
    apply_listing(server, [RemoteTool("lookup", "Look up.", SCHEMA)])
    remote_ref = {"type": "object", "properties": {"q": {"$ref": "https://attacker.example/schema.json"}}}

    report = apply_listing(
        server, [RemoteTool("lookup", "Look up.", remote_ref), RemoteTool("listing", "", {"type": "array"})]
    )

    assert [name for name, _ in report.refused] == ["lookup", "listing"]
    assert report.refused[0][1] == (
        "Its input schema cannot be used: /properties/q/$ref: 'https://attacker.example/schema.json' points nowhere "
        "in this schema (only references inside it are followed)."
    )
    assert 'Tool parameters must be "type": "object"' in report.refused[1][1]
    tools = tools_of(server)
    assert set(tools) == {"lookup"} and tools["lookup"].parameters == SCHEMA
    assert report.removed == []  # still listed, so not marked removed


@pytest.mark.django_db
def test_deleting_a_server_keeps_its_tools_in_the_library(team: Team) -> None:
    server = make_server(team)
    apply_listing(server, [RemoteTool("lookup", "Look up.", SCHEMA)])

    server.delete()

    tool = Tool.objects.get(team=team, name="lookup")
    assert (tool.mode, tool.mcp_server_id, tool.mcp_tool) == ("mcp", None, "lookup")
