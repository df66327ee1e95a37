"""Starting a turn and running the tool loop for a saved conversation. Callable from a consumer, a view or a test."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from playground.chat.hooks import ConversationHooks, append_message
from playground.chat.loop import LoopSettings, Outcome, ToolLoop, request_for
from playground.chat.options import ChatOptions
from playground.chat.registry import REGISTRY, ActiveRun
from playground.conversations.models import Conversation
from playground.endpoints.models import Endpoint
from playground.teams.models import Team
from playground.tools.config import ToolConfig
from playground.tools.models import Tool
from providers.types import ChatRequest, Message

OUTCOME_STATUS = {
    "done": Conversation.Status.DONE,
    "error": Conversation.Status.ERROR,
    "max_round_trips": Conversation.Status.LIMIT,
    "invalid_arguments": Conversation.Status.LIMIT,
    "max_tokens": Conversation.Status.LIMIT,
}


STILL_RUNNING = "This conversation is still running: stop it or wait for it to finish."
STOPPED_MESSAGE = "Stopped by you. Everything that had arrived is saved."
HEARTBEAT_S = 20
RUN_STALE_AFTER_S = 90  # a running or waiting conversation not touched for this long belongs to a dead process

logger = logging.getLogger(__name__)


class TurnRefused(Exception):
    """The turn cannot start; the message says why, for the page."""


def visible_endpoints(team: Team) -> Any:
    return Endpoint.objects.filter(Q(team=team) | Q(team__isnull=True))


async def start_turn(*, conversation: Conversation, text: str, options: ChatOptions) -> ActiveRun:
    """Save the user's message and the chat's settings, then start the loop in the background."""
    if REGISTRY.is_running(conversation.pk):
        raise TurnRefused(STILL_RUNNING)
    if not text.strip():
        raise TurnRefused("Type a message first.")
    endpoint = await visible_endpoints(conversation.team).filter(pk=options.endpoint_id).afirst()
    if endpoint is None:
        raise TurnRefused("Pick a provider endpoint.")
    tools = [t.config() async for t in Tool.objects.filter(team_id=conversation.team_id, name__in=options.tools)]
    missing = sorted(set(options.tools) - {t.name for t in tools})
    if missing:
        raise TurnRefused(f"Unknown tools: {', '.join(missing)}.")
    await _claim(conversation)
    try:
        await _configure(conversation, endpoint, options, tools, text)
        await append_message(conversation, {"role": "user", "content": text})
        return await REGISTRY.start(conversation.pk, lambda run: run_conversation(conversation.pk, run))
    except BaseException:
        await _release(conversation)
        raise


async def _claim(conversation: Conversation) -> None:
    """One run per conversation across every web process: the database row is the lock. A run whose heartbeat
    stopped (its process died) no longer holds it."""
    stale = timezone.now() - timedelta(seconds=RUN_STALE_AFTER_S)
    busy = Q(status__in=[Conversation.Status.RUNNING, Conversation.Status.WAITING]) & Q(updated_at__gte=stale)
    claimed = await (
        Conversation.objects.filter(pk=conversation.pk)
        .exclude(busy)
        .aupdate(status=Conversation.Status.RUNNING, status_message="", updated_at=timezone.now())
    )
    if not claimed:
        raise TurnRefused(STILL_RUNNING)


async def _release(conversation: Conversation) -> None:
    await Conversation.objects.filter(pk=conversation.pk).aupdate(status=Conversation.Status.IDLE)


async def _configure(
    conversation: Conversation, endpoint: Endpoint, options: ChatOptions, tools: list[ToolConfig], text: str
) -> None:
    conversation.endpoint, conversation.endpoint_name = endpoint, endpoint.name
    conversation.format, conversation.model = endpoint.format, options.model
    conversation.settings = options.to_dict()
    conversation.tools = [t.to_dict() for t in tools]  # a snapshot: editing a tool later changes nothing here
    conversation.title = conversation.title or text.strip().splitlines()[0][:80]
    conversation.status, conversation.status_message = Conversation.Status.RUNNING, ""
    await conversation.asave()


async def run_conversation(conversation_id: int, run: ActiveRun) -> None:
    conversation = await Conversation.objects.select_related("endpoint").aget(pk=conversation_id)
    tools = {t["name"]: ToolConfig.from_dict(t) for t in conversation.tools}
    hooks = ConversationHooks(conversation, run, tools)
    heartbeat = asyncio.create_task(_heartbeat(conversation_id))
    try:
        await hooks.prepare()
        await hooks.set_status(Conversation.Status.RUNNING, "")
        history = [m.data async for m in conversation.messages.order_by("position")]
        if run.stop_requested:  # Stop arrived before the run began
            raise asyncio.CancelledError
        outcome = await _loop(conversation, tools, hooks, history).run()
    except asyncio.CancelledError:
        # Shielded: a second Stop must not cut the saving of the first short.
        await asyncio.shield(hooks.finish(Conversation.Status.STOPPED, STOPPED_MESSAGE))
        raise
    except Exception as exc:
        logger.exception("run of conversation %s failed", conversation_id)
        message = f"The run failed on the server ({type(exc).__name__}). Everything that had arrived is saved."
        await asyncio.shield(hooks.finish(Conversation.Status.ERROR, message))
        raise
    finally:
        heartbeat.cancel()
    run.finishing = True  # the loop is over: a Stop now would only cut the saving of how it ended
    await hooks.finish(OUTCOME_STATUS[outcome.status], _message(outcome))


async def _heartbeat(conversation_id: int) -> None:
    """While the run lives, keep its claim fresh, so another process can tell a live run from a dead one."""
    while True:
        await asyncio.sleep(HEARTBEAT_S)
        await Conversation.objects.filter(pk=conversation_id).aupdate(updated_at=timezone.now())


def _message(outcome: Outcome) -> str:
    if outcome.error is not None:
        retry = f" Retry after {outcome.error.retry_after:g} s." if outcome.error.retry_after else ""
        return f"{outcome.error.message}{retry}"
    return outcome.message


def _loop(
    conversation: Conversation, tools: dict[str, ToolConfig], hooks: ConversationHooks, history: list[Message]
) -> ToolLoop:
    options = ChatOptions(**conversation.settings)
    endpoint = conversation.endpoint
    if endpoint is None:
        raise RuntimeError("The endpoint of this conversation was deleted.")
    client = endpoint.client_endpoint(pace_ms=settings.CROSSWIRE_SIMULATOR_PACE_MS)
    request = build_request(conversation, options, list(tools.values()), history)
    loop_settings = LoopSettings(options.max_round_trips, options.max_invalid_retries, options.approve)
    return ToolLoop(client, request, tools, hooks, loop_settings)


def build_request(
    conversation: Conversation, options: ChatOptions, tools: list[ToolConfig], history: list[Message]
) -> ChatRequest:
    base: dict[str, Any] = {"model": conversation.model, "stream": options.stream, "max_tokens": options.max_tokens}
    if options.temperature is not None:
        base["temperature"] = options.temperature
    if options.reasoning:
        base["reasoning"] = {"enabled": True}
    if tools:
        base["tool_choice"] = _tool_choice(options.tool_choice)
        base["parallel_tool_calls"] = options.parallel_tool_calls
    system: list[Message] = [{"role": "system", "content": options.system}] if options.system.strip() else []
    return request_for({**base, "messages": system + answered_only(history)}, tools)


def _tool_choice(choice: str) -> str | dict[str, Any]:
    if choice in {"auto", "none", "required"}:
        return choice
    return {"type": "function", "function": {"name": choice}}


def answered_only(history: list[Message]) -> list[Message]:
    """Drop tool calls that never got a result (a run stopped while waiting), which every provider would reject."""
    answered = {m.get("tool_call_id") for m in history if m.get("role") == "tool"}
    kept: list[Message] = []
    for message in history:
        calls = message.get("tool_calls")
        if calls:
            message = {**message, "tool_calls": [c for c in calls if c["id"] in answered]}
            if not message["tool_calls"]:
                del message["tool_calls"]
                if not message.get("content"):
                    continue
        kept.append(message)
    return kept
