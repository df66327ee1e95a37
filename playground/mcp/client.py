"""Listing and calling an MCP server's tools through the official SDK (``mcp.ClientSession``).

Each exchange opens a fresh connection, shakes hands, does its one job and closes: runs are short and rare next
to the cost of a handshake, and nothing has to be kept alive or reconnected between them. Its JSON-RPC traffic is
recorded (``traffic``) and returned with the answer, and nothing escapes but cancellation: a failed listing is
``MCPFailure`` (with the traffic up to the failure), a failed call an error result, both in one readable sentence.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from django.conf import settings
from mcp import ClientSession

from playground.mcp import connect
from playground.mcp.errors import Step, describe
from playground.mcp.models import MCPServer
from playground.mcp.results import to_tool_result
from playground.mcp.traffic import Recorder, TrafficEntry
from playground.tools.results import ToolResult
from providers.client.scrub import Scrubber

CLIENT_INFO = types.Implementation(name="crosswire", version="0.1.0")
# Past the timeouts of the exchange's requests: the SDK closes a stdio server in at most ~6 s when it will not go.
CLOSE_GRACE_S = 10.0
MAX_PAGES = 20  # of a paginated tools/list
MAX_TOOLS = 500  # as many as one import of a tool list


class MCPFailure(Exception):
    """The exchange failed; ``str()`` is the readable sentence, ``traffic`` what was exchanged before."""

    def __init__(self, message: str, traffic: list[TrafficEntry]) -> None:
        super().__init__(message)
        self.traffic = traffic


@dataclass(frozen=True)
class RemoteTool:
    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class ToolListing:
    tools: list[RemoteTool]
    traffic: list[TrafficEntry]


@dataclass(frozen=True)
class CallOutcome:
    result: ToolResult  # an error result when the call failed, whatever the reason
    traffic: list[TrafficEntry]


class _Exchange:
    """One connection's bookkeeping: the recorder, the current step, and how to word a failure."""

    def __init__(self, server: MCPServer) -> None:
        self.server = server
        self.scrubber = Scrubber.of(list(server.auth_headers().values()))
        self.recorder = Recorder(self.scrubber)
        self.notes = connect.TransportNotes()
        self.step = Step("the handshake", server.connect_timeout_s)

    def failure(self, exc: BaseException) -> str:
        return describe(
            exc,
            server=self.server.name,
            step=self.step,
            notes=self.notes,
            scrubber=self.scrubber,
            stdio_key=self.server.stdio_key if self.server.transport == MCPServer.Transport.STDIO else "",
        )

    @asynccontextmanager
    async def session(self, longest: float) -> AsyncIterator[ClientSession]:
        """A session past its handshake; every request in it is bounded (the handshake by the connect timeout)."""
        with anyio.fail_after(self.server.connect_timeout_s + longest + CLOSE_GRACE_S):
            async with connect.open_streams(self.server, self.notes, timeout=longest) as (read, write):
                reading, writing = self.recorder.reading(read), self.recorder.writing(write)
                timeout = self.server.connect_timeout_s
                async with ClientSession(reading, writing, read_timeout_seconds=timeout, client_info=CLIENT_INFO) as s:
                    await s.initialize()
                    yield s


async def list_tools(server: MCPServer) -> ToolListing:
    """Every tool the server lists (following pages); MCPFailure when it cannot be reached or answers wrongly."""
    exchange = _Exchange(server)
    try:
        async with exchange.session(server.connect_timeout_s) as session:
            exchange.step = Step("the tool list", server.connect_timeout_s)
            tools = await _all_tools(session)
    except Exception as exc:
        raise MCPFailure(exchange.failure(exc), exchange.recorder.entries) from exc
    return ToolListing([_remote(tool) for tool in tools], exchange.recorder.entries)


async def _all_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor or len(tools) >= MAX_TOOLS:
            break
    return tools[:MAX_TOOLS]


def _remote(tool: types.Tool) -> RemoteTool:
    return RemoteTool(tool.name, tool.description or tool.title or "", dict(tool.input_schema))


async def call_tool(
    server: MCPServer, name: str, arguments: dict[str, Any], timeout: float | None = None
) -> CallOutcome:
    """The server's answer to one call as a tool result, or an error result saying why there is none.

    ``timeout`` bounds the call itself (the server's own setting by default); connecting is bounded apart from it.
    """
    exchange = _Exchange(server)
    limit = server.call_timeout_s if timeout is None else timeout
    source = f"mcp:{server.name}"
    try:
        async with exchange.session(limit) as session:
            exchange.step = Step(f"the call to {name}", limit)
            raw = await session.call_tool(name, arguments, read_timeout_seconds=limit)
    except Exception as exc:
        return CallOutcome(ToolResult(exchange.failure(exc), True, source), exchange.recorder.entries)
    result = to_tool_result(raw, source=source, max_image_bytes=int(settings.CROSSWIRE_MAX_IMAGE_BYTES))
    scrubbed = exchange.scrubber.value(result.content)  # a server may quote the auth header back
    return CallOutcome(ToolResult(scrubbed, result.is_error, source), exchange.recorder.entries)
