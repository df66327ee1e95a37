"""Calls over streamable HTTP against the SDK-built test server under uvicorn: result kinds, the auth header, the
allow-list, and a server that dies mid-call."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from playground.mcp import client
from tests.helpers import free_port
from tests.mcp.support import (
    AUTH_VALUE,
    TOKEN,
    HttpServer,
    as_text,
    http_server_row,
    methods,
    running_http_server,
)

if TYPE_CHECKING:
    from pytest_django.fixtures import SettingsWrapper

PIXEL_URL = (
    "data:image/png;base64,"
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="
)


async def test_an_image_result_becomes_an_image_url_part(http_server: HttpServer) -> None:
    outcome = await client.call_tool(http_server_row(http_server.url), "pixel", {})

    assert outcome.result.is_error is False
    assert outcome.result.content == [{"type": "image_url", "image_url": {"url": PIXEL_URL}}]


async def test_structured_content_duplicated_in_a_text_block_is_sent_once(http_server: HttpServer) -> None:
    outcome = await client.call_tool(http_server_row(http_server.url), "add", {"a": 2, "b": 40})

    assert isinstance(outcome.result.content, str)
    assert json.loads(outcome.result.content) == {"total": 42, "terms": 2}
    replies = [e.message for e in outcome.traffic if e.message and "structuredContent" in e.message.get("result", {})]
    assert [reply["result"]["structuredContent"] for reply in replies] == [{"total": 42, "terms": 2}]


async def test_structured_content_without_text_blocks_becomes_json_text(http_server: HttpServer) -> None:
    outcome = await client.call_tool(http_server_row(http_server.url), "structured_only", {"city": "Paris"})

    assert outcome.result.is_error is False
    assert isinstance(outcome.result.content, str)
    assert json.loads(outcome.result.content) == {"city": "Paris", "temperature_c": 21}


async def test_is_error_gives_an_error_result_with_the_servers_text(http_server: HttpServer) -> None:
    outcome = await client.call_tool(http_server_row(http_server.url), "fail", {"reason": "the disk is full"})

    assert outcome.result.is_error is True
    assert outcome.result.content == "Error executing tool fail: it failed because the disk is full"


async def test_the_auth_header_reaches_the_server_and_never_the_record(http_server: HttpServer) -> None:
    server = http_server_row(http_server.url)
    assert AUTH_VALUE not in server.auth_header_encrypted  # stored encrypted

    outcome = await client.call_tool(server, "echo_auth", {})

    # The server refuses any request without this exact header, so an answer at all proves it was sent; the server
    # quotes it back, and the quote is cut out of the result and the traffic alike.
    assert (outcome.result.content, outcome.result.is_error) == ("you sent Bearer [redacted]", False)
    recorded = as_text(outcome.traffic)
    assert "you sent Bearer [redacted]" in recorded
    assert TOKEN not in recorded and TOKEN not in str(outcome.result)


async def test_a_wrong_auth_header_reads_as_a_refusal_without_quoting_it(http_server: HttpServer) -> None:
    wrong = "Bearer mcp-WRONG-TOKEN-0000aaaa"

    outcome = await client.call_tool(http_server_row(http_server.url, auth=wrong), "echo", {"text": "x"})

    assert outcome.result.is_error is True
    assert outcome.result.content == (
        "The MCP server 'remote tools' refused the handshake (HTTP 401): check the URL and the auth header."
    )
    assert "WRONG" not in as_text(outcome.traffic)


async def test_a_url_outside_the_allow_list_is_never_contacted(
    http_server: HttpServer, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_ALLOWED_BASE_URLS = ["https://mcp.example.com"]
    before = http_server.log()

    outcome = await client.call_tool(http_server_row(http_server.url), "echo", {"text": "x"})

    assert outcome.result.is_error is True
    assert outcome.result.content == (
        "This deployment does not allow that base URL; CROSSWIRE_ALLOWED_BASE_URLS allows: https://mcp.example.com."
    )
    assert outcome.traffic == []
    assert http_server.log() == before  # no request reached it: the server logs each new session
    settings.CROSSWIRE_ALLOWED_BASE_URLS = ["*"]  # the control: allowed, the same call is logged
    allowed = await client.call_tool(http_server_row(http_server.url), "echo", {"text": "x"})
    assert allowed.result.content == "x" and http_server.log() != before


async def test_the_same_url_is_contacted_once_the_allow_list_names_it(
    http_server: HttpServer, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_ALLOWED_BASE_URLS = [http_server.url.removesuffix("/mcp")]

    listing = await client.list_tools(http_server_row(http_server.url))

    assert "echo" in {tool.name for tool in listing.tools}


async def test_a_metadata_address_is_refused_even_when_any_url_is_allowed(settings: SettingsWrapper) -> None:
    settings.CROSSWIRE_ALLOWED_BASE_URLS = ["*"]

    outcome = await client.call_tool(http_server_row("http://169.254.169.254/mcp"), "echo", {"text": "x"})

    assert outcome.result.content == (
        "169.254.169.254 is a cloud metadata address: this deployment contacts it only when "
        "CROSSWIRE_ALLOWED_BASE_URLS lists it explicitly."
    )


async def test_a_name_that_resolves_to_a_metadata_address_is_refused_where_it_is_dialled(
    settings: SettingsWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.CROSSWIRE_ALLOWED_BASE_URLS = ["*"]
    loop = asyncio.get_running_loop()
    real = loop.getaddrinfo

    async def getaddrinfo(host: Any, port: Any, **kwargs: Any) -> list[Any]:
        # DNS is the network's edge: "innocent.test" resolves to the metadata service.
        if host == "innocent.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("169.254.169.254", int(port)))]
        return await real(host, port, **kwargs)

    monkeypatch.setattr(loop, "getaddrinfo", getaddrinfo)

    outcome = await client.call_tool(http_server_row("http://innocent.test/mcp"), "echo", {"text": "x"})

    assert outcome.result.is_error is True
    assert outcome.result.content == (
        "Refused to connect to innocent.test: 169.254.169.254 is a cloud metadata address, which this deployment "
        "only reaches when CROSSWIRE_ALLOWED_BASE_URLS lists the host explicitly."
    )


async def test_a_timeout_over_http_reads_like_one_over_stdio(http_server: HttpServer) -> None:
    outcome = await client.call_tool(http_server_row(http_server.url), "slow", {"seconds": 60}, timeout=0.5)

    assert outcome.result.content == "The MCP server 'remote tools' did not answer the call to slow within 0.5 s."


async def test_a_server_that_dies_mid_call_over_http_gives_a_readable_error(tmp_path: Path) -> None:
    with running_http_server(tmp_path / "server.log") as doomed:
        outcome = await client.call_tool(http_server_row(doomed.url), "crash", {})

    assert outcome.result.is_error is True
    assert outcome.result.content == (
        "The MCP server 'remote tools' closed the connection before answering the call to crash: "
        "SSE stream ended without a response (it may have stopped)."
    )
    assert methods(outcome.traffic)[-2:] == [("sent", "tools/call"), ("received", "error")]


async def test_a_port_nobody_serves_reads_as_unreachable() -> None:
    outcome = await client.call_tool(http_server_row(f"http://127.0.0.1:{free_port()}/mcp"), "echo", {"text": "x"})

    assert outcome.result.content == (
        "Could not reach the MCP server at this URL (no connection, or it closed without answering)."
    )
