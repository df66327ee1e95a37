"""Starting a turn and running the tool loop for a saved conversation. Callable from a consumer, a view or a test."""

from __future__ import annotations

import asyncio
import copy
import logging
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from playground.chat.attachments import image_count, user_content
from playground.chat.hooks import ConversationHooks, append_message
from playground.chat.loop import LoopSettings, Outcome, ToolLoop
from playground.chat.options import ChatOptions
from playground.chat.processes import PROCESS_ID, owner_alive
from playground.chat.registry import REGISTRY, ActiveRun
from playground.chat.turn_request import build_request, split_pending, strategy_for
from playground.conversations.models import BUSY_STATUSES, Conversation
from playground.conversations.search_index import index_conversation
from playground.endpoints.checks import refusal_for
from playground.endpoints.models import Endpoint
from playground.mcp.answer import answerer as mcp_answerer
from playground.teams.models import Team
from playground.tools.config import ToolConfig
from playground.tools.images import ImageRefused
from playground.tools.models import Tool
from playground.tools.results import recorded_results
from providers.portability import portability_notes
from providers.types import Message, ToolCall

OUTCOME_STATUS = {
    "done": Conversation.Status.DONE,
    "error": Conversation.Status.ERROR,
    "max_round_trips": Conversation.Status.LIMIT,
    "invalid_arguments": Conversation.Status.LIMIT,
    "max_tokens": Conversation.Status.LIMIT,
}


CONFIGURED_FIELDS = ("endpoint", "endpoint_name", "format", "model", "settings", "tools", "title")
STILL_RUNNING = "This conversation is still running: stop it or wait for it to finish."
STOPPED_MESSAGE = "Stopped by you. Everything that had arrived is saved."
HEARTBEAT_S = 20
RUN_STALE_AFTER_S = 90  # a running or waiting conversation not touched for this long belongs to a dead process

logger = logging.getLogger(__name__)


def orm_thread(function: Any) -> Any:
    """Run on the ORM's own thread, as the async ORM calls do. Not Channels' wrapper: that one closes the thread's
    connection before and after each call, and on SQLite each close checkpoints the whole WAL, a stall of every
    stream of the process when runs start and end by the dozen (docs/performance.md)."""
    return sync_to_async(function, thread_sensitive=True)


if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser


class TurnRefused(Exception):
    """The turn cannot start; the message says why, for the page."""


def visible_endpoints(team: Team | int) -> Any:
    """The team's endpoints and the shared ones; ``team``: the team or its id."""
    return Endpoint.objects.filter(Q(team=team) | Q(team__isnull=True))


async def start_turn(
    *,
    conversation: Conversation,
    text: str,
    options: ChatOptions,
    user: AbstractBaseUser | None = None,
    images: Any = None,
) -> ActiveRun:
    """Save the user's message and the chat's settings, then start the loop in the background.

    ``images``: what the page attached (``chat.attachments``), checked here; nothing is saved if one is refused.
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
    endpoint = await visible_endpoints(conversation.team_id).filter(pk=options.endpoint_id).afirst()
    if endpoint is None:
        raise TurnRefused("Pick a provider endpoint.")
    await _check_policy(endpoint)
    await _check_user_runs(conversation, user)
    tools = [t.config() async for t in Tool.objects.filter(team_id=conversation.team_id, name__in=options.tools)]
    missing = sorted(set(options.tools) - {t.name for t in tools})
    if missing:
        raise TurnRefused(f"Unknown tools: {', '.join(missing)}.")
    configured = _configure(conversation, endpoint, options, tools, _title(text, image_count(content)))
    await _claim(conversation, user, configured)  # one statement claims the row and saves the turn's settings
    try:
        await append_message(conversation, {"role": "user", "content": content})
        # The run starts from the row as claimed and configured here (a copy: the caller keeps its own).
        pk, started = conversation.pk, copy.copy(conversation)
        return await REGISTRY.start(pk, lambda run: run_conversation(pk, run, started=started))
    except BaseException:
        await _release(conversation)
        raise


async def _check_policy(endpoint: Endpoint) -> None:
    """The allow-list as it is now: an endpoint saved before it was narrowed gets no request, and no key."""
    refusal = await orm_thread(refusal_for)(endpoint)
    if refusal:
        raise TurnRefused(f"{endpoint.name} cannot be used: {refusal}")


async def _check_user_runs(conversation: Conversation, user: AbstractBaseUser | None) -> None:
    """A person holds at most CROSSWIRE_MAX_RUNS_PER_USER runs at once, across conversations and processes."""
    if user is None:
        return
    limit = settings.CROSSWIRE_MAX_RUNS_PER_USER
    rows = Conversation.objects.filter(run_by=user, status__in=BUSY_STATUSES).exclude(pk=conversation.pk)
    # Fewer claims than the limit cannot reach it, alive or not: count them, and read them only when they might.
    # Someone running many chats at once (a team's scripted demo, a load test) would otherwise have every one of
    # them read and checked again at each turn's start.
    if await rows.acount() < limit:
        return
    held = [row async for row in rows.values("status", "run_owner", "updated_at")]
    alive = await orm_thread(_alive_holders)(held)
    if alive >= limit:
        raise TurnRefused(
            f"You have {alive} run{'s' if alive != 1 else ''} going already (at most {limit} at once): "
            "stop one or wait for one to finish."
        )


async def _claim(
    conversation: Conversation, user: AbstractBaseUser | None = None, configured: dict[str, Any] | None = None
) -> None:
    """One run per conversation across every web process: the database row is the lock, marked with the process
    that holds it. A run whose process is gone (playground.chat.processes) no longer holds it. ``configured``: the
    turn's settings (``_configure``), written with the claim or not at all."""
    fields = {
        "status": Conversation.Status.RUNNING,
        "status_message": "",
        "run_owner": PROCESS_ID,
        "run_by": user,
        "updated_at": timezone.now(),
        **(configured or {}),
    }
    # Most turns start on a conversation nobody runs: claimed in one statement. The row is read only when it is
    # held, to tell a live holder from a dead one.
    claimed = await Conversation.objects.filter(pk=conversation.pk).exclude(status__in=BUSY_STATUSES).aupdate(**fields)
    if not claimed:
        row = await Conversation.objects.filter(pk=conversation.pk).values("status", "run_owner", "updated_at").afirst()
        if row is None:
            raise TurnRefused("This conversation no longer exists.")
        if row["status"] in BUSY_STATUSES and await orm_thread(_holder_alive)(row):
            raise TurnRefused(STILL_RUNNING)
        # Only if nobody claimed it in between: the same status and holder as just read.
        same = {"status": row["status"], "run_owner": row["run_owner"]}
        claimed = await Conversation.objects.filter(pk=conversation.pk, **same).aupdate(**fields)
    if not claimed:
        raise TurnRefused(STILL_RUNNING)
    conversation.status, conversation.status_message = Conversation.Status.RUNNING, ""
    conversation.run_owner, conversation.run_by = PROCESS_ID, user


def _alive_holders(rows: list[dict[str, Any]]) -> int:
    """How many of these claims are held by a live process, in one trip to the ORM's thread (not one per claim)."""
    return sum(_holder_alive(row) for row in rows)


def _holder_alive(row: dict[str, Any]) -> bool:
    if row["run_owner"]:
        return owner_alive(row["run_owner"])
    # A claim from before processes were tracked: its heartbeat alone tells.
    return bool(row["updated_at"] >= timezone.now() - timedelta(seconds=RUN_STALE_AFTER_S))


async def _release(conversation: Conversation) -> None:
    await Conversation.objects.filter(pk=conversation.pk).aupdate(status=Conversation.Status.IDLE, run_owner="")


def _title(text: str, images: int) -> str:
    if text.strip():
        return text.strip().splitlines()[0][:80]
    return f"{images} image{'s' if images != 1 else ''}"


def _configure(
    conversation: Conversation, endpoint: Endpoint, options: ChatOptions, tools: list[ToolConfig], title: str
) -> dict[str, Any]:
    """Set the fields a turn sets on ``conversation``; their values, for the claim to save. Those fields, not the
    whole row: its search text (the conversation's every word, which the indexer may have changed since) stays."""
    conversation.endpoint, conversation.endpoint_name = endpoint, endpoint.name
    conversation.format, conversation.model = endpoint.format, options.model
    conversation.settings = options.to_dict()
    conversation.tools = [t.to_dict() for t in tools]  # a snapshot: editing a tool later changes nothing here
    conversation.title = conversation.title or title
    return {name: getattr(conversation, name) for name in CONFIGURED_FIELDS}


async def resume_turn(
    *,
    conversation: Conversation,
    answers: dict[str, dict[str, Any]] | None = None,
    user: AbstractBaseUser | None = None,
) -> ActiveRun:
    """Go on from the saved history with no new message: Retry from here after an interruption or an error, or an
    answer given to a question the interrupted run had asked (``answers``: call id -> the answer message)."""
    if REGISTRY.is_running(conversation.pk):
        raise TurnRefused(STILL_RUNNING)
    endpoint = await Endpoint.objects.filter(pk=conversation.endpoint_id).afirst()
    if endpoint is None or not conversation.settings:
        raise TurnRefused("There is nothing to retry yet: send a message first.")
    await _check_policy(endpoint)
    await _check_user_runs(conversation, user)
    await _claim(conversation, user)
    try:
        return await REGISTRY.start(
            conversation.pk, lambda run: run_conversation(conversation.pk, run, answers=answers or {})
        )
    except BaseException:
        await _release(conversation)
        raise


async def run_conversation(
    conversation_id: int,
    run: ActiveRun,
    *,
    answers: dict[str, Any] | None = None,
    started: Conversation | None = None,
) -> None:
    """The whole run of a turn. ``started``: the row as the turn that starts it has just claimed and configured it
    (with its endpoint), which every field of the read would repeat; a resumed or recovered run reads it."""
    hooks: ConversationHooks | None = None
    heartbeat: asyncio.Task[None] | None = None
    try:
        # Inside the try: a Stop can land while the conversation is still being read, and must be saved too.
        hooks = await _hooks(conversation_id, run, answers, started)
        conversation = hooks.conversation
        heartbeat = asyncio.create_task(_heartbeat(conversation_id))
        await hooks.prepare()
        # The claim saved it running already (turn started or resumed): the pages are told, the row is not written.
        hooks.announce_status(Conversation.Status.RUNNING, "")
        ordered = conversation.messages.order_by("position").values_list("position", "data", "complete")
        rows = [row async for row in ordered]
        hooks.next_message = rows[-1][0] + 1 if rows else 0
        saved = [(data, complete) for _, data, complete in rows]
        hooks.messages = [(data["role"], data) for data, _ in saved]
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
    await hooks.finish(OUTCOME_STATUS[outcome.status], _message(outcome))
    await _index(conversation, hooks.messages)


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


async def _index(conversation: Conversation, messages: list[tuple[str, dict[str, Any]]] | None) -> None:
    """Refresh what the Conversations list searches, from the messages the run holds; a failure here must not undo
    a finished run."""
    try:
        await orm_thread(index_conversation)(conversation, messages)
    except Exception:
        logger.exception("could not index conversation %s for search", conversation.pk)


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
