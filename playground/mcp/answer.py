"""Answering one call of a team tool imported from an MCP server: the chat loop's ``remote`` answerer.

A conversation stores a snapshot of each tool (``ToolConfig``), including the id of the server that answers it.
Snapshots can come from an imported conversation, so the id is only trusted for a server of the conversation's own
team: another team's server, and its auth header, are never used.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from playground.mcp.client import CallOutcome, call_tool
from playground.mcp.models import MCPServer
from playground.tools.config import ToolConfig
from playground.tools.results import ToolResult


async def answer(tool: ToolConfig, arguments: dict[str, Any], *, team_id: int) -> CallOutcome:
    """The server's answer as a tool result with the call's JSON-RPC traffic; an error result when there is none."""
    server_id = tool.mcp_server_id
    server = None
    if tool.mode == "mcp" and isinstance(server_id, int) and tool.mcp_tool:
        server = await MCPServer.objects.filter(pk=server_id, team_id=team_id).afirst()
    if server is None:
        message = f"{tool.name} is answered by an MCP server this team no longer has; sync or re-import the tool."
        return CallOutcome(ToolResult(message, True, "mcp"), [])
    return await call_tool(server, tool.mcp_tool, arguments)


def answerer(team_id: int) -> Callable[[ToolConfig, dict[str, Any]], Awaitable[ToolResult | None]]:
    """The loop's ``remote`` for one team: MCP tools are answered by their server, with the call's JSON-RPC traffic
    kept in the result's meta (saved beside it, shown in its pane); any other tool is not its business."""

    async def remote(tool: ToolConfig, arguments: dict[str, Any]) -> ToolResult | None:
        if tool.mode != "mcp":
            return None
        outcome = await answer(tool, arguments, team_id=team_id)
        traffic = [entry.to_dict() for entry in outcome.traffic]
        result = outcome.result
        meta = {"mcp_traffic": traffic, "mcp_tool": tool.mcp_tool}
        return ToolResult(result.content, result.is_error, result.source, meta)

    return remote
