"""Importing an MCP server's tools into its team's library, and keeping them in step on demand.

A sync lists the server's tools and, in one transaction:

- creates a team tool (mode "mcp") for each tool the server lists that the team has none for yet;
- updates the description and parameters of the ones it has, when the server changed them;
- marks (``mcp_removed_at``) the ones the server no longer lists, and unmarks one that comes back. A tool is never
  deleted by a sync: conversations and people may still refer to it;
- refuses a tool whose schema fails the checks every saved tool passes (``playground.tools.schema``: the
  meta-schema, an object at the root, no remote ``$ref``, the size and depth limits), saying why; a tool imported
  before keeps its last good definition.

**Names.** Tools are matched by their name on the server (``mcp_tool``), never by their name in the team. A new tool
takes the server's name when the team has no tool of that name, with any character providers refuse replaced by
``_`` and cut to 64. When the team already has a tool of that name (its own, or another server's), the existing
tool is left alone and the imported one is named ``<name>_mcp``, then ``<name>_mcp_2``, ... A name is chosen once,
at creation; later syncs keep it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from asgiref.sync import sync_to_async
from django.db import transaction
from django.utils import timezone

from playground.mcp.client import MCPFailure, RemoteTool, list_tools
from playground.mcp.models import MCPServer
from playground.mcp.traffic import TrafficEntry
from playground.tools import limits
from playground.tools.forms import unique_name
from playground.tools.models import Tool
from playground.tools.schema import check_schema, check_schema_limits

_REFUSED_IN_NAMES = re.compile(r"[^a-zA-Z0-9_-]")
CLASH_SUFFIX = "_mcp"


@dataclass
class SyncReport:
    created: list[str] = field(default_factory=list)  # local names
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)  # marked as no longer listed by this sync
    restored: list[str] = field(default_factory=list)  # listed again after being marked
    refused: list[tuple[str, str]] = field(default_factory=list)  # (server's name, why)
    error: str = ""  # the server could not be listed; nothing changed
    traffic: list[TrafficEntry] = field(default_factory=list)


async def sync_server(server: MCPServer) -> SyncReport:
    """List the server's tools and bring the team's library in step; a failure is recorded on the server."""
    try:
        listing = await list_tools(server)
    except MCPFailure as exc:
        await sync_to_async(_record_error)(server, str(exc))
        return SyncReport(error=str(exc), traffic=exc.traffic)
    report = await sync_to_async(apply_listing)(server, listing.tools)
    report.traffic = listing.traffic
    return report


def _record_error(server: MCPServer, error: str) -> None:
    server.last_error = error
    server.save(update_fields=["last_error"])


def apply_listing(server: MCPServer, remote_tools: list[RemoteTool]) -> SyncReport:
    """Bring the team's tools answered by ``server`` in step with ``remote_tools`` (see the module docstring)."""
    report = SyncReport()
    now = timezone.now()
    with transaction.atomic():
        # One sync of a server at a time: two would both create the same new tools.
        MCPServer.objects.select_for_update().filter(pk=server.pk).first()
        linked = {tool.mcp_tool: tool for tool in Tool.objects.filter(mcp_server=server)}
        taken = set(Tool.objects.filter(team_id=server.team_id).values_list("name", flat=True))
        listed: set[str] = set()
        for remote in remote_tools:
            if remote.name in listed:
                continue  # a server listing one name twice: the first definition counts
            listed.add(remote.name)
            if problem := _problem(remote):
                report.refused.append((remote.name, problem))
                continue
            _import_one(server, remote, linked.get(remote.name), taken, report)
        for name, tool in linked.items():
            if name not in listed and tool.mcp_removed_at is None:
                tool.mcp_removed_at = now
                tool.save(update_fields=["mcp_removed_at", "updated_at"])
                report.removed.append(tool.name)
        server.last_synced_at, server.last_error = now, ""
        server.save(update_fields=["last_synced_at", "last_error"])
    return report


def _import_one(server: MCPServer, remote: RemoteTool, tool: Tool | None, taken: set[str], report: SyncReport) -> None:
    if tool is None:
        name = local_name(remote.name, taken)
        taken.add(name)
        Tool.objects.create(
            team_id=server.team_id,
            name=name,
            description=remote.description,
            parameters=remote.input_schema,
            mode=Tool.Mode.MCP,
            mcp_server=server,
            mcp_tool=remote.name,
        )
        report.created.append(name)
        return
    was_removed = tool.mcp_removed_at is not None
    changed = (tool.description, tool.parameters) != (remote.description, remote.input_schema)
    if not (changed or was_removed):
        report.unchanged.append(tool.name)
        return
    tool.description, tool.parameters, tool.mcp_removed_at = remote.description, remote.input_schema, None
    tool.save(update_fields=["description", "parameters", "mcp_removed_at", "updated_at"])
    (report.restored if was_removed else report.updated).append(tool.name)


def local_name(remote_name: str, taken: set[str]) -> str:
    """The team name for a newly imported tool (the rule is in the module docstring)."""
    base = _REFUSED_IN_NAMES.sub("_", remote_name)[:64] or "tool"
    return base if base not in taken else unique_name(base, taken, suffix=CLASH_SUFFIX)


def _problem(remote: RemoteTool) -> str:
    """Why this tool cannot be a team tool, or ""."""
    if not remote.name:
        return "The server lists a tool without a name."
    if refusal := limits.size_refusal("The description", limits.byte_size(remote.description), limits.schema_bytes()):
        return refusal
    problems = check_schema_limits(remote.input_schema) or check_schema(remote.input_schema)
    return f"Its input schema cannot be used: {problems[0]}" if problems else ""
