"""An MCP server for the tests, built with the SDK's own ``MCPServer`` (FastMCP before mcp 2): run over stdio or
streamable HTTP as a subprocess, never imported by the tests. No Django, no project imports.

``python server_script.py stdio`` or ``python server_script.py http PORT``. ``MCP_TEST_VARIANT=v2`` serves a changed
tool list (one description and schema changed, ``crash`` gone, ``fresh`` added), for the sync tests.
``MCP_TEST_EXPECTED_AUTH``, over HTTP, refuses (401) every request whose Authorization header is not that value.
"""

from __future__ import annotations

import asyncio
import base64
import os
import sys
from typing import Any, TypedDict

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import CallToolResult

# A 1x1 PNG: the image tool answers with its bytes.
PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="
)
VARIANT = os.environ.get("MCP_TEST_VARIANT", "v1")
server = MCPServer("crosswire-tests")
seen_authorization: list[str] = []


class Sum(TypedDict):
    total: int
    terms: int


@server.tool(description="Echo the text back." if VARIANT == "v1" else "Echo the text back, louder.")
def echo(text: str, shout: bool = False) -> str:
    return text.upper() if shout else text


@server.tool(description="Add two integers; answers with structured content.")
def add(a: int, b: int) -> Sum:
    return {"total": a + b, "terms": 2}


@server.tool(description="Answers with structured content and no content blocks.")
def structured_only(city: str) -> CallToolResult:
    return CallToolResult(content=[], structured_content={"city": city, "temperature_c": 21})


@server.tool(description="A one-pixel PNG.")
def pixel() -> Image:
    return Image(data=PIXEL_PNG, format="png")


@server.tool(description="Always fails.")
def fail(reason: str) -> str:
    raise ToolError(f"it failed because {reason}")


@server.tool(description="Sleeps, then answers.")
async def slow(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return "slept"


@server.tool(description="The Authorization header this server received, quoted back.")
def echo_auth() -> str:
    return f"you sent {seen_authorization[-1] if seen_authorization else 'nothing'}"


if VARIANT == "v1":

    @server.tool(description="Ends the server's process in the middle of the call.")
    def crash() -> str:
        os._exit(3)

else:

    @server.tool(description="Only in the second version of this server.")
    def fresh() -> str:
        return "new"


def _auth_app(app: Any, expected: str) -> Any:
    """Plain ASGI middleware: note each request's Authorization header, refuse a wrong one with 401."""

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            value = headers.get(b"authorization", b"").decode()
            seen_authorization.append(value)
            if expected and value != expected:
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"unauthorized"})
                return
        await app(scope, receive, send)

    return guarded


def main() -> None:
    if sys.argv[1] == "stdio":
        server.run("stdio")
        return
    import uvicorn

    app = _auth_app(server.streamable_http_app(), os.environ.get("MCP_TEST_EXPECTED_AUTH", ""))
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")


if __name__ == "__main__":
    main()
