"""What the MCP rows of tests/project/test_role_table.py act on: the team's servers and the forms posted for them.

A stdio server is the test server of tests/mcp/support.py, under its key in ``STDIO_SERVERS``: it runs as a local
process and needs no network. Forms are posted with ``save_anyway``, so a save stores the server without contacting
it, and a server at a URL (a host nobody serves) is never dialled; only a sync connects, to the stdio server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playground.mcp.models import MCPServer
from tests.mcp.support import CONNECT_TIMEOUT_S

if TYPE_CHECKING:
    from playground.teams.models import Team

STDIO_KEY = "tests"
MCP_URL = "http://mcp-host:8000/mcp"


def stdio_form(name: str) -> dict[str, Any]:
    return {
        "transport": "stdio",
        "name": name,
        "stdio_key": STDIO_KEY,
        "connect_timeout_s": str(CONNECT_TIMEOUT_S),
        "save_anyway": "on",
    }


def http_form(name: str, url: str) -> dict[str, Any]:
    return {
        "transport": "http",
        "name": name,
        "url": url,
        "auth_header_name": "Authorization",
        "connect_timeout_s": str(CONNECT_TIMEOUT_S),
        "save_anyway": "on",
    }


def stdio_server(team: Team, name: str) -> MCPServer:
    return MCPServer.objects.create(
        team=team,
        name=name,
        transport=MCPServer.Transport.STDIO,
        stdio_key=STDIO_KEY,
        connect_timeout_s=CONNECT_TIMEOUT_S,
    )


def http_server(team: Team, name: str) -> MCPServer:
    """A server an owner set at ``MCP_URL``."""
    return MCPServer.objects.create(team=team, name=name, transport=MCPServer.Transport.HTTP, url=MCP_URL)
