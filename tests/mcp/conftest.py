from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.mcp.support import STDIO_SERVERS, HttpServer, running_http_server

if TYPE_CHECKING:
    from pytest_django.fixtures import SettingsWrapper


@pytest.fixture(autouse=True)
def stdio_servers(settings: SettingsWrapper) -> None:
    """The stdio servers as the administrator would list them."""
    settings.CROSSWIRE_MCP_STDIO_SERVERS = STDIO_SERVERS


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    """One streamable-HTTP server per test module; it refuses requests without the right Authorization header."""
    with running_http_server(tmp_path_factory.mktemp("mcp-http") / "server.log") as server:
        yield server
