"""Listing and calling over stdio, against the SDK-built test server started from the administrator's list."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from playground.mcp import client
from tests.mcp.support import methods, stdio_server

if TYPE_CHECKING:
    from pytest_django.fixtures import SettingsWrapper


async def test_listing_gives_every_tool_with_its_schema_and_the_json_rpc_traffic() -> None:
    listing = await client.list_tools(stdio_server())

    tools = {tool.name: tool for tool in listing.tools}
    assert set(tools) == {"echo", "add", "structured_only", "pixel", "fail", "slow", "echo_auth", "crash"}
    assert tools["echo"].description == "Echo the text back."
    assert tools["echo"].input_schema["type"] == "object"
    assert tools["echo"].input_schema["required"] == ["text"]
    assert methods(listing.traffic) == [
        ("sent", "initialize"),
        ("received", "result"),
        ("sent", "notifications/initialized"),
        ("sent", "tools/list"),
        ("received", "result"),
    ]
    answer = listing.traffic[-1]
    assert answer.message is not None and answer.message["jsonrpc"] == "2.0"
    assert {t["name"] for t in answer.message["result"]["tools"]} == set(tools)
    assert [entry.t_ms for entry in listing.traffic] == sorted(entry.t_ms for entry in listing.traffic)
    assert all(entry.at.endswith("+00:00") for entry in listing.traffic)


async def test_a_text_result_comes_back_as_text_with_the_call_in_the_traffic() -> None:
    outcome = await client.call_tool(stdio_server(), "echo", {"text": "hello", "shout": True})

    assert outcome.result.content == "HELLO"
    assert outcome.result.is_error is False
    assert outcome.result.source == "mcp:local tools"
    call = next(e for e in outcome.traffic if e.message and e.message.get("method") == "tools/call")
    assert call.direction == "sent"
    assert call.message is not None
    assert call.message["params"] == {"name": "echo", "arguments": {"text": "hello", "shout": True}}
    call_id = call.message["id"]
    replies = [
        e.message for e in outcome.traffic if e.direction == "received" and (e.message or {}).get("id") == call_id
    ]
    assert [reply["result"]["content"] for reply in replies if reply] == [[{"type": "text", "text": "HELLO"}]]


async def test_a_server_that_dies_mid_call_gives_a_readable_error_and_the_next_call_works() -> None:
    server = stdio_server()

    outcome = await client.call_tool(server, "crash", {})

    assert outcome.result.is_error is True
    assert outcome.result.content == (
        "The MCP server 'local tools' closed the connection before answering the call to crash (it may have stopped)."
    )
    assert methods(outcome.traffic)[-1] == ("sent", "tools/call")  # asked, never answered
    after = await client.call_tool(server, "echo", {"text": "still here"})
    assert (after.result.content, after.result.is_error) == ("still here", False)


async def test_a_call_past_its_timeout_gives_a_readable_error() -> None:
    outcome = await client.call_tool(stdio_server(), "slow", {"seconds": 60}, timeout=1)

    assert outcome.result.is_error is True
    assert outcome.result.content == "The MCP server 'local tools' did not answer the call to slow within 1 s."
    # Asked, never answered, then given up on: the SDK tells the server so, and that is recorded too.
    assert methods(outcome.traffic)[-2:] == [("sent", "tools/call"), ("sent", "notifications/cancelled")]


async def test_the_servers_own_timeout_applies_when_none_is_given() -> None:
    outcome = await client.call_tool(stdio_server(call_timeout_s=0.5), "slow", {"seconds": 60})

    assert outcome.result.content == "The MCP server 'local tools' did not answer the call to slow within 0.5 s."


async def test_a_malformed_result_gives_a_readable_error_with_the_bad_answer_in_the_traffic() -> None:
    outcome = await client.call_tool(stdio_server("malformed", name="odd"), "broken", {})

    assert outcome.result.is_error is True
    assert outcome.result.content == (
        "The MCP server 'odd' sent an answer to the call to broken that could not be read "
        "(content.0: it matches none of the shapes the protocol allows there)."
    )
    reply = outcome.traffic[-1]
    assert reply.direction == "received"
    assert reply.message is not None and reply.message["result"]["content"] == [
        {"type": "image", "mimeType": "image/png"}
    ]


async def test_a_stdio_key_the_administrator_did_not_configure_starts_nothing() -> None:
    with pytest.raises(client.MCPFailure) as failure:
        await client.list_tools(stdio_server("rm-rf"))

    assert str(failure.value) == "No stdio MCP server named 'rm-rf' is configured on this deployment."
    assert failure.value.traffic == []


async def test_a_misconfigured_entry_starts_nothing(settings: SettingsWrapper) -> None:
    settings.CROSSWIRE_MCP_STDIO_SERVERS = {"shell": {"command": "python server.py"}}

    outcome = await client.call_tool(stdio_server("shell"), "echo", {"text": "x"})

    assert outcome.result.is_error is True
    assert outcome.result.content == (
        "The stdio MCP server 'shell' is misconfigured: \"command\" must be a list of strings."
    )
    assert outcome.traffic == []


async def test_a_command_that_does_not_exist_reads_as_such(settings: SettingsWrapper) -> None:
    settings.CROSSWIRE_MCP_STDIO_SERVERS = {"gone": {"command": ["/nonexistent/mcp-server"]}}

    outcome = await client.call_tool(stdio_server("gone"), "echo", {"text": "x"})

    assert outcome.result.is_error is True
    assert outcome.result.content == "Could not start the stdio MCP server 'gone': No such file or directory."
