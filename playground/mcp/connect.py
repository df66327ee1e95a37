"""Opening the SDK transport to one MCP server: stdio from the administrator's list, or streamable HTTP.

Every connection goes through the policy again (the allow-list may have narrowed since the server was saved), and
an http server is reached through the same HTTP client as provider endpoints (``providers.client.sdk.http_client``):
the address check on every address dialled, the process's TLS context, proxies from the environment, and none of
the SDKs' ambient account headers.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import httpx2
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from playground.mcp import policy
from playground.mcp.models import MCPServer
from providers.client.sdk import Endpoint, http_client

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams  # the (read, write) pair every SDK transport yields

# Past the session's own timeouts, so the SDK's clearer "timed out" wins over an HTTP read timeout.
HTTP_TIMEOUT_MARGIN_S = 5.0


@dataclass
class TransportNotes:
    """What the transport saw that the SDK does not pass on: the statuses of refused HTTP requests (a 401 reaches
    the session only as "Server returned an error response")."""

    http_errors: list[int] = field(default_factory=list)


@asynccontextmanager
async def open_streams(server: MCPServer, notes: TransportNotes, *, timeout: float) -> AsyncIterator[TransportStreams]:
    """The (read, write) message streams of a fresh connection; ``policy.Refused`` before any contact if not allowed.

    ``timeout`` bounds the longest request of the exchange; the session enforces it, HTTP reads get a margin past it.
    """
    if server.transport == MCPServer.Transport.STDIO:
        async with stdio_client(stdio_parameters(server.stdio_key)) as streams:
            yield streams
        return
    if server.transport != MCPServer.Transport.HTTP:
        raise policy.Refused(f"Unknown MCP transport {server.transport!r}.")
    headers = _checked_headers(server)
    async with _http(server.url, headers, notes, timeout=timeout + HTTP_TIMEOUT_MARGIN_S) as http:
        async with streamable_http_client(server.url, http_client=http) as streams:
            yield streams


def stdio_parameters(key: str) -> StdioServerParameters:
    """The SDK's launch parameters for an administrator's stdio server. Its environment is the SDK's short safe
    list (PATH, HOME, ...) plus the configured ``env``: Crosswire's own secrets never reach the process."""
    command = policy.stdio_command(key)
    return StdioServerParameters(command=command.command[0], args=command.command[1:], env=command.env, cwd=command.cwd)


def _checked_headers(server: MCPServer) -> dict[str, str]:
    refusal = policy.url_refusal(server.url)
    if refusal:
        raise policy.Refused(refusal)
    headers = server.auth_headers()
    for name in headers:
        if problem := policy.header_name_problem(name):
            raise policy.Refused(f"The auth header name cannot be used: {problem}")
    return headers


@asynccontextmanager
async def _http(
    url: str, headers: dict[str, str], notes: TransportNotes, *, timeout: float
) -> AsyncIterator[httpx2.AsyncClient]:
    # The provider client's HTTP, built from a provider Endpoint: only its URL, timeout and address policy matter.
    endpoint = Endpoint("openai-chat", url, api_key="", timeout=timeout, address_policy=policy.address_policy())
    async with http_client(endpoint) as http:
        http.headers.update(headers)

        async def note_status(response: httpx2.Response) -> None:
            if response.status_code >= 400:
                notes.http_errors.append(response.status_code)

        hooks = http.event_hooks
        http.event_hooks = {"request": hooks.get("request", []), "response": [*hooks.get("response", []), note_status]}
        yield http
