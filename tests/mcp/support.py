"""Real MCP servers for the tests: the SDK-built ``server_script.py`` over stdio (registered as the administrator
would, in ``CROSSWIRE_MCP_STDIO_SERVERS``) or over streamable HTTP (a uvicorn subprocess on a free port), and the
hand-written ``malformed_script.py``. Subprocesses, so a tool that ends its process ends only the server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playground.mcp.models import MCPServer
from playground.mcp.traffic import TrafficEntry
from tests.helpers import free_port, stop_process

HERE = Path(__file__).resolve().parent
SERVER_SCRIPT = HERE / "server_script.py"
MALFORMED_SCRIPT = HERE / "malformed_script.py"
# Long enough that any leak into a record is found by substring search, and scrubbed (8 characters and more).
AUTH_VALUE = "Bearer mcp-TOPSECRET-7c4e9a1b2d6f"
TOKEN = AUTH_VALUE.split(" ", 1)[1]
STARTUP_TIMEOUT_S = 30
# Starting a Python process that imports the SDK takes a second or two, more on a busy CI machine.
CONNECT_TIMEOUT_S = 30.0

STDIO_SERVERS: dict[str, Any] = {
    "tests": {"command": [sys.executable, str(SERVER_SCRIPT), "stdio"]},
    "tests-v2": {"command": [sys.executable, str(SERVER_SCRIPT), "stdio"], "env": {"MCP_TEST_VARIANT": "v2"}},
    "malformed": {"command": [sys.executable, str(MALFORMED_SCRIPT)]},
}


def stdio_server(key: str = "tests", **fields: Any) -> MCPServer:
    """An unsaved server row: the client needs no database."""
    fields = {"name": "local tools", "connect_timeout_s": CONNECT_TIMEOUT_S, "call_timeout_s": 30.0, **fields}
    return MCPServer(transport=MCPServer.Transport.STDIO, stdio_key=key, **fields)


def http_server_row(url: str, auth: str = AUTH_VALUE, **fields: Any) -> MCPServer:
    fields = {"name": "remote tools", "connect_timeout_s": CONNECT_TIMEOUT_S, "call_timeout_s": 30.0, **fields}
    server = MCPServer(transport=MCPServer.Transport.HTTP, url=url, **fields)
    server.set_auth_header(auth)
    return server


def methods(traffic: list[TrafficEntry]) -> list[tuple[str, str]]:
    """(direction, method or "result"/"error") for each recorded message, to compare exchanges at a glance."""
    shown = []
    for entry in traffic:
        message = entry.message or {}
        shown.append((entry.direction, message.get("method") or ("error" if "error" in message else "result")))
    return shown


def as_text(traffic: list[TrafficEntry]) -> str:
    return json.dumps([entry.to_dict() for entry in traffic])


@dataclass
class HttpServer:
    url: str
    log_path: Path
    process: subprocess.Popen[bytes]

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextmanager
def running_http_server(log_path: Path, expected_auth: str = AUTH_VALUE) -> Iterator[HttpServer]:
    port = free_port()
    env = {**os.environ, "MCP_TEST_EXPECTED_AUTH": expected_auth}
    with log_path.open("wb") as log:
        command = [sys.executable, str(SERVER_SCRIPT), "http", str(port)]
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    server = HttpServer(f"http://127.0.0.1:{port}/mcp", log_path, process)
    try:
        _wait_for(port, server)
        yield server
    finally:
        stop_process(process)


def _wait_for(port: int, server: HttpServer) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"the MCP test server exited with {server.process.returncode}:\n{server.log()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"the MCP test server did not listen within {STARTUP_TIMEOUT_S} s:\n{server.log()}")
