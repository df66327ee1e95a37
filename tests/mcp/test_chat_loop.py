"""An MCP tool in a chat: the loop asks its server, the model gets the answer, the JSON-RPC traffic is kept."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from asgiref.sync import sync_to_async

from playground.chat.registry import ActiveRun
from playground.chat.service import run_conversation
from playground.conversations.models import Conversation, Message
from playground.demo.catalog import load_simulated_endpoints
from playground.endpoints.models import Endpoint
from playground.mcp.models import MCPServer
from playground.mcp.sync import sync_server
from playground.tools.models import Tool
from tests.mcp.support import CONNECT_TIMEOUT_S

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


@pytest.fixture
def simulated(settings: SettingsWrapper, simulator_url: str) -> None:
    settings.CROSSWIRE_SIMULATOR_URL = simulator_url
    settings.CROSSWIRE_SIMULATOR_PACE_MS = 0
    load_simulated_endpoints()


async def chat_with(team: Team, alice: User, tools: list[str], text: str) -> tuple[Conversation, list[Message]]:
    """One turn of a chat on the simulated OpenAI endpoint, run by the service as the page would start it."""
    endpoint = await Endpoint.objects.aget(name="Simulated OpenAI")
    configs = [t.config().to_dict() async for t in Tool.objects.filter(team=team, name__in=tools)]
    settings = {"endpoint_id": endpoint.pk, "model": "sim-1", "tools": tools, "max_tokens": 512, "stream": True}
    conversation = await Conversation.objects.acreate(
        team=team, created_by=alice, endpoint=endpoint, format="openai-chat", model="sim-1",
        settings=settings, tools=configs, status="running",
    )  # fmt: skip
    user = {"role": "user", "content": text}
    await Message.objects.acreate(conversation=conversation, position=0, role="user", data=user)
    run = ActiveRun(conversation.pk)
    run.emit = lambda frame, live=True: None  # type: ignore[method-assign]
    await run_conversation(conversation.pk, run)
    await conversation.arefresh_from_db()
    return conversation, [m async for m in conversation.messages.order_by("position")]


async def stdio_tools(team: Team) -> MCPServer:
    server = await MCPServer.objects.acreate(
        team=team, name="local tools", transport=MCPServer.Transport.STDIO, stdio_key="tests",
        connect_timeout_s=CONNECT_TIMEOUT_S, call_timeout_s=30.0,
    )  # fmt: skip
    report = await sync_server(server)
    assert report.error == "" and "echo" in report.created
    return server


@pytest.mark.usefixtures("simulated")
async def test_the_model_calls_an_mcp_tool_and_gets_its_answer(team: Team, alice: User) -> None:
    await stdio_tools(team)

    conversation, messages = await chat_with(team, alice, ["echo"], '/call echo {"text": "ping", "shout": true}')

    assert conversation.status == "done", conversation.status_message
    tool_message = next(m for m in messages if m.role == "tool")
    assert tool_message.data["content"] == "PING"
    assert "is_error" not in tool_message.data
    assert tool_message.meta["source"] == "mcp:local tools"
    traffic: list[dict[str, Any]] = tool_message.meta["mcp_traffic"]
    sent = [e["message"].get("method") for e in traffic if e["direction"] == "sent" and e["message"]]
    assert sent[0] == "initialize" and "tools/call" in sent
    call = next(e["message"] for e in traffic if e["message"] and e["message"].get("method") == "tools/call")
    assert call["params"] == {"name": "echo", "arguments": {"text": "ping", "shout": True}}
    # The model saw the server's answer: the simulator quotes the result back in its final text.
    assert "PING" in messages[-1].data["content"]


@pytest.mark.usefixtures("simulated")
async def test_a_failing_mcp_tool_is_an_error_result_and_the_run_goes_on(team: Team, alice: User) -> None:
    await stdio_tools(team)

    conversation, messages = await chat_with(team, alice, ["fail"], '/call fail {"reason": "disk full"}')

    assert conversation.status == "done", conversation.status_message
    tool_message = next(m for m in messages if m.role == "tool")
    assert tool_message.data["is_error"] is True
    assert "disk full" in json.dumps(tool_message.data["content"])
    assert tool_message.meta["mcp_traffic"], "the failed call's traffic is kept too"
    assert messages[-1].role == "assistant"


@pytest.mark.usefixtures("simulated")
async def test_a_tool_of_a_deleted_server_says_so(team: Team, alice: User) -> None:
    server = await stdio_tools(team)
    tools = await sync_to_async(lambda: [t.config().to_dict() for t in Tool.objects.filter(team=team, name="echo")])()
    await server.adelete()  # the tool row stays (SET_NULL); a snapshot still names the old server
    endpoint = await Endpoint.objects.aget(name="Simulated OpenAI")
    conversation = await Conversation.objects.acreate(
        team=team, created_by=alice, endpoint=endpoint, format="openai-chat", model="sim-1", status="running",
        settings={"endpoint_id": endpoint.pk, "model": "sim-1", "tools": ["echo"], "max_tokens": 512}, tools=tools,
    )  # fmt: skip
    await Message.objects.acreate(
        conversation=conversation, position=0, role="user", data={"role": "user", "content": '/call echo {"text": "x"}'}
    )
    run = ActiveRun(conversation.pk)
    run.emit = lambda frame, live=True: None  # type: ignore[method-assign]
    await run_conversation(conversation.pk, run)

    tool_message = await conversation.messages.filter(role="tool").aget()
    assert tool_message.data["is_error"] is True
    assert "no longer has" in tool_message.data["content"]
