"""Starting a turn and running the tool loop for a saved conversation. Callable from a consumer, a view or a test."""

from __future__ import annotations

import asyncio
import copy
import functools
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import timezone

from playground.chat.attachments import image_count, user_content
from playground.chat.hooks import ConversationHooks
from playground.chat.loop import LoopSettings, Outcome, ToolLoop
from playground.chat.opening import (
    NOTHING_TO_RETRY,
    RUN_STALE_AFTER_S,
    STILL_RUNNING,
    AccessLost,
    Admission,
    OpenedTurn,
    TurnRefused,
    check_policy,
    check_user_runs,
    claim,
    open_admitted_turn,
    open_turn,
    read_opened,
    release,
    reopen_turn,
    title_for,
    visible_endpoints,
)
from playground.chat.options import ChatOptions
from playground.chat.orm import orm_thread
from playground.chat.registry import REGISTRY, ActiveRun
from playground.chat.turn_request import build_request, split_pending, strategy_for
from playground.conversations.models import Conversation
from playground.conversations.search_index import index_values
from playground.endpoints.models import Endpoint
from playground.mcp.answer import answerer as mcp_answerer
from playground.tools.config import ToolConfig
from playground.tools.images import ImageRefused
from playground.tools.results import recorded_results
from providers.portability import portability_notes
from providers.types import Message, ToolCall

# Said here too: callers of the service (views, compare, tests) take them from it.
__all__ = ["RUN_STALE_AFTER_S", "STILL_RUNNING", "AccessLost", "Admission", "TurnRefused", "orm_thread",
           "resume_turn", "run_conversation", "start_turn", "visible_endpoints"]  # fmt: skip

OUTCOME_STATUS = {
    "done": Conversation.Status.DONE,
    "error": Conversation.Status.ERROR,
    "max_round_trips": Conversation.Status.LIMIT,
    "invalid_arguments": Conversation.Status.LIMIT,
    "max_tokens": Conversation.Status.LIMIT,
}


STOPPED_MESSAGE = "Stopped by you. Everything that had arrived is saved."
HEARTBEAT_S = 20

logger = logging.getLogger(__name__)


if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser


@dataclass(frozen=True)
class StartedTurn:
    run: ActiveRun
    message_count: int  # the conversation's messages, the user's new one included


async def start_turn(
    *,
    conversation: Conversation | Admission,
    text: str,
    options: ChatOptions,
    user: AbstractBaseUser | None = None,
    images: Any = None,
) -> StartedTurn:
    """Save the user's message and the chat's settings, then start the loop in the background; the run, with how
    many messages the conversation holds now (the page checks it has them all).

    ``conversation``: its row, or an ``Admission`` that reads it with the sender's access check, in the trip that
    opens the turn. ``images``: what the page attached (``chat.attachments``), checked here; nothing is saved if one
    is refused.
    """
    if REGISTRY.is_running(conversation.pk):
        raise TurnRefused(STILL_RUNNING)
    if not text.strip() and not images:
        raise TurnRefused("Type a message or attach an image first.")
    size, limit = len(text.encode("utf-8", "surrogatepass")), settings.CROSSWIRE_MAX_MESSAGE_BYTES
    if size > limit:
        raise TurnRefused(f"This message is {size // 1024:,} KiB; the limit is {limit // 1024:,} KiB.")
    try:
        # Decoding a few MiB of base64 off the event loop: every other socket of this process keeps streaming.
        content = await asyncio.to_thread(user_content, text, images) if images else text
    except ImageRefused as exc:
        raise TurnRefused(str(exc)) from None
    # The checks, the claim with the turn's settings, the user's message and what the run reads first: one trip.
    title = title_for(text, image_count(content))
    if isinstance(conversation, Admission):
        # Channels' wrapper, as the access check had on its own: it drops a connection the database has broken.
        row, opened = await database_sync_to_async(open_admitted_turn)(conversation, options, user, content, title)
    else:
        row, opened = conversation, await orm_thread(open_turn)(conversation, options, user, content, title)
    try:
        # The run starts from the row as claimed and configured here (a copy: the caller keeps its own).
        pk, started = row.pk, copy.copy(row)
        run = await REGISTRY.start(pk, lambda run: run_conversation(pk, run, started=started, opened=opened))
    except BaseException:
        await orm_thread(release)(row)
        raise
    return StartedTurn(run, len(opened.history))


async def resume_turn(
    *,
    conversation: Conversation,
    answers: dict[str, dict[str, Any]] | None = None,
    user: AbstractBaseUser | None = None,
    current_settings: bool = False,
) -> ActiveRun:
    """Go on from the saved history with no new message: Retry from here after an interruption or an error, or an
    answer given to a question the interrupted run had asked (``answers``: call id -> the answer message).

    ``current_settings``: Retry's, run with the chat's settings as they are now (the endpoint, model and tools it
    names), checked as a new message's are. Otherwise with those of the turn it goes on from: an answer goes to the
    calls of that turn's tools, and a replay starts with the settings it was made with."""
    if REGISTRY.is_running(conversation.pk):
        raise TurnRefused(STILL_RUNNING)
    if not conversation.settings:
        raise TurnRefused(NOTHING_TO_RETRY)
    if current_settings:
        await orm_thread(reopen_turn)(conversation, user)
    else:
        endpoint = await Endpoint.objects.filter(pk=conversation.endpoint_id).afirst()
        if endpoint is None:
            raise TurnRefused(NOTHING_TO_RETRY)
        await orm_thread(_check_and_claim)(conversation, endpoint, user)
    try:
        return await REGISTRY.start(
            conversation.pk, lambda run: run_conversation(conversation.pk, run, answers=answers or {})
        )
    except BaseException:
        await orm_thread(release)(conversation)
        raise


def _check_and_claim(conversation: Conversation, endpoint: Endpoint, user: AbstractBaseUser | None) -> None:
    check_policy(endpoint)
    check_user_runs(conversation, user)
    claim(conversation, user)


async def run_conversation(
    conversation_id: int,
    run: ActiveRun,
    *,
    answers: dict[str, Any] | None = None,
    started: Conversation | None = None,
    opened: OpenedTurn | None = None,
) -> None:
    """The whole run of a turn. ``started``: the row as the turn that starts it has just claimed and configured it
    (with its endpoint), which every field of the read would repeat; ``opened``: the history and the next round
    trip's position as that turn read them. A resumed or recovered run reads them."""
    hooks: ConversationHooks | None = None
    heartbeat: asyncio.Task[None] | None = None
    try:
        # Inside the try: a Stop can land while the conversation is still being read, and must be saved too.
        hooks = await _hooks(conversation_id, run, answers, started)
        conversation = hooks.conversation
        heartbeat = asyncio.create_task(_heartbeat(conversation_id))
        opened = opened or await orm_thread(read_opened)(conversation)
        hooks.first_position, rows = opened.first_round_trip, opened.history
        # The claim saved it running already (turn started or resumed): the pages are told, the row is not written.
        hooks.announce_status(Conversation.Status.RUNNING, "")
        hooks.next_message = rows[-1][0] + 1 if rows else 0
        saved = [(data, complete) for _, data, complete in rows]
        hooks.messages = [(data["role"], data, complete) for data, complete in saved]
        if run.stop_requested:  # Stop arrived before the run began
            raise asyncio.CancelledError
        history, pending = split_pending(saved)
        outcome = await _loop(conversation, hooks.tools, hooks, history, pending).run()
    except asyncio.CancelledError:
        # Shielded: a second Stop must not cut the saving of the first short.
        await asyncio.shield(_finish(hooks, conversation_id, run, Conversation.Status.STOPPED, STOPPED_MESSAGE))
        raise
    except Exception as exc:
        logger.exception("run of conversation %s failed", conversation_id)
        message = f"The run failed on the server ({type(exc).__name__}). Everything that had arrived is saved."
        await asyncio.shield(_finish(hooks, conversation_id, run, Conversation.Status.ERROR, message))
        raise
    finally:
        if heartbeat is not None:
            heartbeat.cancel()
    run.finishing = True  # the loop is over: a Stop now would only cut the saving of how it ended
    # How it ended, with what the Conversations list searches (from the messages the run holds): one trip, one
    # statement. A failure to index is logged and does not undo the finished run.
    index = functools.partial(index_values, conversation, hooks.messages)
    await hooks.finish(OUTCOME_STATUS[outcome.status], _message(outcome), index=index)


async def _hooks(
    conversation_id: int, run: ActiveRun, answers: dict[str, Any] | None, started: Conversation | None = None
) -> ConversationHooks:
    conversation = started or await Conversation.objects.select_related("endpoint").aget(pk=conversation_id)
    tools = {t["name"]: ToolConfig.from_dict(t) for t in conversation.tools}
    return ConversationHooks(conversation, run, tools, preset_answers=dict(answers or {}))


async def _finish(
    hooks: ConversationHooks | None, conversation_id: int, run: ActiveRun, status: str, message: str
) -> None:
    """Save how the run ended, reading the conversation first if the run ended before it had (a Stop at once)."""
    if hooks is None:
        hooks = await _hooks(conversation_id, run, None)
    await hooks.finish(status, message)


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
    conversation: Conversation,
    tools: dict[str, ToolConfig],
    hooks: ConversationHooks,
    history: list[Message],
    pending: list[ToolCall],
) -> ToolLoop:
    options = ChatOptions(**conversation.settings)
    endpoint = conversation.endpoint
    if endpoint is None:
        raise RuntimeError("The endpoint of this conversation was deleted.")
    client = endpoint.client_endpoint(pace_ms=settings.CROSSWIRE_SIMULATOR_PACE_MS)
    request = build_request(conversation, options, list(tools.values()), history)
    strategy = strategy_for(options.strategy, endpoint.tool_strategy)
    limits = (options.max_round_trips, options.max_invalid_retries, options.approve)
    loop_settings = LoopSettings(*limits, strategy=strategy)
    recorded = recorded_results(conversation.recorded_results or [])
    remote = mcp_answerer(conversation.team_id)
    # What the target will refuse, said before the first request goes; the codec and the strategy note each change
    # as they make it, so the portability check's changes are not repeated here.
    refused = portability_notes([t.spec() for t in tools.values()], conversation.format, strategy=strategy,
                                refusals_only=True)  # fmt: skip
    return ToolLoop(
        client, request, tools, hooks, loop_settings, pending=pending, recorded=recorded, remote=remote,
        first_notes=refused, read_hold=hooks.run.read_hold,
    )  # fmt: skip
