"""What the MCP servers page shows of each server: its tools (the removed ones marked) and the last sync's outcome."""

from __future__ import annotations

from dataclasses import dataclass, field

from playground.mcp.models import MCPServer
from playground.mcp.sync import SyncReport
from playground.teams.models import Team
from playground.tools.models import Tool


@dataclass(frozen=True)
class ServerRow:
    server: MCPServer
    tools: list[Tool]  # answered by this server, listed ones first, then the ones it no longer lists

    @property
    def listed(self) -> list[Tool]:
        return [tool for tool in self.tools if tool.mcp_removed_at is None]

    @property
    def removed(self) -> list[Tool]:
        return [tool for tool in self.tools if tool.mcp_removed_at is not None]


@dataclass(frozen=True)
class SyncSummary:
    """A sync's report in the words of the row: what changed, by name, and what was refused and why."""

    error: str = ""
    parts: list[tuple[str, list[str]]] = field(default_factory=list)  # ("added", [names]), ... only non-empty ones
    unchanged: int = 0
    refused: list[tuple[str, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.parts)


def summarize(report: SyncReport) -> SyncSummary:
    parts = [
        ("added", report.created),
        ("updated", report.updated),
        ("listed again", report.restored),
        ("removed", report.removed),
    ]
    return SyncSummary(
        error=report.error,
        parts=[(label, sorted(names)) for label, names in parts if names],
        unchanged=len(report.unchanged),
        refused=report.refused,
    )


def server_rows(team: Team) -> list[ServerRow]:
    servers = list(MCPServer.objects.filter(team=team))
    return _with_tools(servers)


def server_row(server: MCPServer) -> ServerRow:
    return _with_tools([server])[0]


def _with_tools(servers: list[MCPServer]) -> list[ServerRow]:
    # One query for the tools of every server on the page.
    by_server: dict[int, list[Tool]] = {server.pk: [] for server in servers}
    for tool in Tool.objects.filter(mcp_server__in=servers).order_by("name"):
        by_server[tool.mcp_server_id].append(tool)
    rows = []
    for server in servers:
        tools = by_server[server.pk]
        rows.append(ServerRow(server, sorted(tools, key=lambda tool: tool.mcp_removed_at is not None)))
    return rows
