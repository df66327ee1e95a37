"""The MCP traffic pane beside a saved tool result: a real call's traffic, saved as the chat loop saves it, rendered
on the chat page and the review page; never the auth value. Then the pane's reading of odd or hostile meta."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest
from asgiref.sync import async_to_sync
from django.test import Client

from playground.conversations.models import Conversation, Message
from playground.mcp.answer import answerer
from playground.mcp.pane import pane
from playground.tools.config import ToolConfig
from playground.tools.results import ToolResult
from tests.endpoints.support import signed_in
from tests.mcp.support import AUTH_VALUE, TOKEN, HttpServer, http_server_row

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team

SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


@pytest.fixture(autouse=True)
def allow_the_test_server(settings: SettingsWrapper, http_server: HttpServer) -> None:
    settings.CROSSWIRE_ALLOWED_BASE_URLS = [http_server.url.rsplit("/", 1)[0]]


def answered(team: Team, url: str, tool: str, arguments: dict[str, Any]) -> ToolResult:
    """The chat loop's answer to one call of an imported tool, through the real server."""
    server = http_server_row(url, team=team)
    server.save()
    config = ToolConfig(name=tool, parameters=SCHEMA, mode="mcp", mcp_server_id=server.pk, mcp_tool=tool)
    result = async_to_sync(answerer(team.pk))(config, arguments)
    assert result is not None
    return result


def conversation_with(team: Team, user: User, tool: str, result: ToolResult) -> Conversation:
    """A call and its result, the result's meta saved as playground.chat.hooks saves it."""
    conversation = Conversation.objects.create(team=team, created_by=user, title="mcp", model="sim-1")
    call = {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": "{}"}}
    meta = {"source": result.source, "attempt": 1, "tool": tool, **(result.meta or {})}
    rows = [
        ("user", {"role": "user", "content": f"/call {tool}"}, {}),
        ("assistant", {"role": "assistant", "content": None, "tool_calls": [call]}, {}),
        (
            "tool",
            {"role": "tool", "tool_call_id": "call_1", "content": result.content, "is_error": result.is_error},
            meta,
        ),
    ]
    for position, (role, data, row_meta) in enumerate(rows):
        Message.objects.create(conversation=conversation, position=position, role=role, data=data, meta=row_meta)
    return conversation


def panes_of(html: str) -> list[str]:
    # Each message is a <details> of its own inside the pane's: the pane ends after its list.
    start = r'<details class="mcp-pane[^"]*" data-testid="mcp-pane">'
    pane = start + r'.*?(?:</ol>|class="muted small mcp-pane-empty".*?</p>)\s*</details>'
    return re.findall(pane, html, re.S)


@pytest.mark.django_db
def test_the_pane_shows_each_json_rpc_message_of_the_call_and_never_the_auth_value(
    client: Client, alice: User, team: Team, http_server: HttpServer
) -> None:
    # The server quotes the Authorization header it got back: the one place the value could enter the record.
    result = answered(team, http_server.url, "echo_auth", {})
    conversation = conversation_with(team, alice, "echo_auth", result)
    client = signed_in(client, alice, team)

    chat = client.get(f"/c/{conversation.pk}/").content.decode()
    review = client.get(f"/c/{conversation.pk}/review/").content.decode()

    for html in (chat, review):
        assert TOKEN not in html and AUTH_VALUE not in html
        [shown] = panes_of(html)
        assert '<span class="mcp-pane-server mono">remote tools</span>' in shown
        labels = re.findall(r'<span class="mcp-label">([^<]*)</span>', shown)
        # The SDK lists the tools after a call, to check its structured output against the tool's output schema.
        assert labels == [
            "initialize #1",
            "result of initialize #1",
            "notifications/initialized",
            "tools/call #2",
            "result of tools/call #2",
            "tools/list #3",
            "result of tools/list #3",
        ]
        directions = re.findall(r'data-direction="(\w+)"', shown)
        assert directions == ["sent", "received", "sent", "sent", "received", "sent", "received"]
        # Unfolded: the call and its answer; the handshake and the SDK's tools/list are a click away.
        unfolded = re.findall(
            r'<details class="mcp-msg-body" open>\s*<summary[^>]*>.*?<span class="mcp-label">([^<]*)', shown, re.S
        )
        assert unfolded == ["tools/call #2", "result of tools/call #2"]
        assert "you sent Bearer [redacted]" in shown and "is-error" not in shown
        assert "7 messages" in shown


@pytest.mark.django_db
def test_an_error_result_is_highlighted_in_the_pane(
    client: Client, alice: User, team: Team, http_server: HttpServer
) -> None:
    result = answered(team, http_server.url, "fail", {"reason": "the disk is full"})
    conversation = conversation_with(team, alice, "fail", result)

    html = signed_in(client, alice, team).get(f"/c/{conversation.pk}/").content.decode()

    [shown] = panes_of(html)
    assert shown.startswith('<details class="mcp-pane has-error"')
    errors = re.findall(r'<li class="mcp-msg is-(\w+) is-error"', shown)
    assert errors == ["received"]
    assert "The tool reported an error (isError)." in shown and "it failed because the disk is full" in shown


@pytest.mark.django_db
def test_other_tool_results_have_no_pane(client: Client, alice: User, team: Team) -> None:
    conversation = conversation_with(team, alice, "get_weather", ToolResult("sunny", False, "builtin:get_weather"))

    html = signed_in(client, alice, team).get(f"/c/{conversation.pk}/").content.decode()

    assert "sunny" in html and panes_of(html) == []


def test_a_transport_error_and_a_json_rpc_error_are_entries_marked_as_errors() -> None:
    meta = {
        "source": "mcp:files",
        "mcp_traffic": [
            {"direction": "sent", "t_ms": 1.5, "message": {"jsonrpc": "2.0", "id": 3, "method": "tools/call"}},
            {"direction": "received", "t_ms": 9, "message": {"jsonrpc": "2.0", "id": 3, "error": {"message": "nope"}}},
            {"direction": "received", "t_ms": 12.0, "message": None, "error": "SSE stream ended without a response"},
        ],
    }

    shown = pane(meta)

    assert shown is not None and shown.server == "files" and shown.total_ms == 12.0
    assert [(e.label, e.error, e.is_error, e.unfolded) for e in shown.entries] == [
        ("tools/call #3", "", False, True),
        ("error of tools/call #3", "nope", True, True),
        ("transport error", "SSE stream ended without a response", True, True),
    ]


@pytest.mark.parametrize("meta", [None, {}, {"source": "builtin"}, {"mcp_traffic": "text"}, ["mcp_traffic"]])
def test_meta_without_traffic_has_no_pane(meta: Any) -> None:
    assert pane(meta) is None


def test_rows_of_the_wrong_shape_are_skipped_or_shown_plainly() -> None:
    # An imported conversation can hold anything: the pane shows what it can and never fails.
    meta = {"mcp_server": "<b>x</b>", "mcp_traffic": ["text", 7, {"direction": "sideways", "t_ms": "soon"}]}

    shown = pane(meta)

    assert shown is not None and shown.server == "<b>x</b>"  # escaped by the template, as any text
    assert [(e.direction, e.t_ms, e.label, e.is_error) for e in shown.entries] == [
        ("received", 0.0, "transport error", True)
    ]
