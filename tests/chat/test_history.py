"""A saved conversation keeps the exact tool definitions and requests it was run with."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from channels.db import database_sync_to_async

from playground.chat.options import ChatOptions
from playground.chat.service import TurnRefused, start_turn
from playground.conversations.models import Conversation
from playground.tools.models import Tool
from tests.chat.conftest import options

if TYPE_CHECKING:
    from django.contrib.auth.models import User

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


async def run_turn(conversation: Conversation, text: str, **overrides: object) -> None:
    chat_options = ChatOptions(**await database_sync_to_async(options)(**overrides))  # type: ignore[arg-type]
    fresh = await Conversation.objects.select_related("team").aget(pk=conversation.pk)
    run = (await start_turn(conversation=fresh, text=text, options=chat_options)).run
    assert run.task is not None
    await run.task


async def test_editing_a_tool_leaves_saved_runs_as_they_were(conversation: Conversation, alice: User) -> None:
    await run_turn(conversation, '/call lookup_order {"order_id": "A-1001"}', tools=["lookup_order"])
    tool = await Tool.objects.aget(team_id=conversation.team_id, name="lookup_order")
    tool.description, tool.canned_default = "Changed later", "changed"
    tool.parameters = {"type": "object", "properties": {}}
    await tool.asave()
    saved = await Conversation.objects.aget(pk=conversation.pk)
    [snapshot] = saved.tools
    assert snapshot["description"] == "Look up an order by its id and return its status."
    assert snapshot["parameters"]["required"] == ["order_id"]
    first = await saved.round_trips.aget(position=0)
    assert first.request["tools"][0]["function"]["description"].startswith("Look up an order")
    assert first.wire_request["body"]["tools"][0]["function"]["parameters"]["required"] == ["order_id"]
    result = await saved.messages.aget(role="tool")
    assert result.data["content"] == '{"status": "shipped", "eta": "2 days"}'


async def test_a_second_turn_continues_the_saved_history(conversation: Conversation, alice: User) -> None:
    await run_turn(conversation, '/call calculator {"expression": "2+2"}', tools=["calculator"])
    await run_turn(conversation, "thanks!", tools=["calculator"], endpoint_name="Simulated Anthropic")
    saved = await Conversation.objects.aget(pk=conversation.pk)
    last = await saved.round_trips.order_by("-position").afirst()
    assert last is not None and last.format == "anthropic" and last.complete
    roles = [m["role"] for m in last.request["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant", "user"], "the whole OpenAI-format history is sent on"
    wire_roles = [m["role"] for m in last.wire_request["body"]["messages"]]
    assert wire_roles == ["user", "assistant", "user", "assistant", "user"], "tool results became a user message"


async def test_a_second_turn_is_refused_and_an_early_stop_still_ends_the_run(
    conversation: Conversation, alice: User
) -> None:
    chat_options = ChatOptions(**await database_sync_to_async(options)())  # type: ignore[arg-type]
    fresh = await Conversation.objects.select_related("team").aget(pk=conversation.pk)
    run = (await start_turn(conversation=fresh, text="/call search_docs", options=chat_options)).run
    with pytest.raises(TurnRefused, match="still running"):
        await start_turn(conversation=fresh, text="again", options=chat_options)
    assert run.task is not None
    run.stop()  # before the run has even started: it must still end, saved as stopped
    await run.task
    assert (await Conversation.objects.aget(pk=conversation.pk)).status == "stopped"


async def test_a_run_held_by_another_process_refuses_a_turn_until_its_heartbeat_stops(
    conversation: Conversation, alice: User
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from playground.chat.service import RUN_STALE_AFTER_S

    # Another web process is running this conversation: the row says so and its heartbeat is fresh.
    await Conversation.objects.filter(pk=conversation.pk).aupdate(status="running", updated_at=timezone.now())
    chat_options = ChatOptions(**await database_sync_to_async(options)(tools=["calculator"]))  # type: ignore[arg-type]
    fresh = await Conversation.objects.select_related("team").aget(pk=conversation.pk)
    with pytest.raises(TurnRefused, match="still running"):
        await start_turn(conversation=fresh, text="hello", options=chat_options)
    assert await fresh.messages.acount() == 0, "a refused turn saves nothing"
    # That process died: no heartbeat for longer than the limit, so the conversation can be run again.
    dead = timezone.now() - timedelta(seconds=RUN_STALE_AFTER_S + 5)
    await Conversation.objects.filter(pk=conversation.pk).aupdate(updated_at=dead)
    run = (
        await start_turn(conversation=fresh, text='/call calculator {"expression": "1+1"}', options=chat_options)
    ).run
    assert run.task is not None
    await run.task
    assert (await Conversation.objects.aget(pk=conversation.pk)).status == "done"


async def test_parallel_manual_calls_keep_the_run_waiting_until_the_last_answer(
    conversation: Conversation, alice: User
) -> None:
    import asyncio

    chat_options = ChatOptions(**await database_sync_to_async(options)(tools=["search_docs"]))  # type: ignore[arg-type]
    fresh = await Conversation.objects.select_related("team").aget(pk=conversation.pk)
    text = '/call search_docs {"query": "refunds"}\n/call search_docs {"query": "returns"}'
    run = (await start_turn(conversation=fresh, text=text, options=chat_options)).run
    while len(run.waiting) < 2:
        await asyncio.sleep(0.01)
    first, second = list(run.waiting)
    run.control({"type": "tool_result", "call_id": first, "content": "5 days"})
    while len(run.waiting) > 1:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    assert (await Conversation.objects.aget(pk=conversation.pk)).status == "waiting"
    run.control({"type": "tool_result", "call_id": second, "content": "30 days"})
    assert run.task is not None
    await run.task
    saved = await Conversation.objects.aget(pk=conversation.pk)
    assert saved.status == "done"
    results = [m.data["content"] async for m in saved.messages.filter(role="tool").order_by("position")]
    assert sorted(results) == ["30 days", "5 days"]


async def test_a_question_nobody_answers_is_answered_for_them_in_the_end(conversation: Conversation) -> None:
    from playground.chat.hooks import ConversationHooks
    from playground.chat.registry import ActiveRun

    run = ActiveRun(conversation.pk)
    hooks = ConversationHooks(conversation, run, {}, wait_limit_s=0.05)
    call = {"id": "call_1", "type": "function", "function": {"name": "search_docs", "arguments": "{}"}}
    result = await hooks.manual_result(call)  # type: ignore[arg-type]
    assert result.is_error and result.content.startswith("No one answered within")
    decision = await hooks.approve(call)  # type: ignore[arg-type]
    assert decision.action == "deny" and decision.reason.startswith("No one approved")
    assert run.waiting == {} and run.answers == {}, "nothing is left waiting"
