"""Creating a comparison and running its columns: ordinary conversations, each through the chat service's tool loop.

The columns run concurrently as one background task per column, so closing the page stops nothing (a Stop does);
a column's repeats run one after another, so a comparison holds at most one run per column at a time.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import transaction

from playground.chat.options import ChatOptions, parse_options
from playground.chat.registry import send_control
from playground.chat.service import TurnRefused, start_turn, visible_endpoints
from playground.compare.models import Comparison, ComparisonRun
from playground.conversations.models import BUSY_STATUSES, Conversation, title_from
from playground.tools.models import Tool

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

    from playground.teams.models import Team

MAX_COLUMNS = 4
SETTLE_TRIES, SETTLE_PAUSE_S = 50, 0.1  # up to 5 s for a finished run's outcome to be saved
MAX_REPEAT = 10
NOT_RUN_AFTER_STOP = "Not run: its column was stopped."
COLUMN_FIELDS = ("endpoint_id", "model", "reasoning", "temperature", "max_tokens", "strategy")
logger = logging.getLogger(__name__)
_RUNNERS: set[asyncio.Task[None]] = set()  # referenced until done: the loop keeps only weak references to tasks


class CompareRefused(Exception):
    """The comparison cannot start; ``errors`` say why, by field ("" for the whole form, ``column-N`` per column)."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__("; ".join(m for messages in errors.values() for m in messages))
        self.errors = errors


@dataclass(frozen=True)
class ComparePlan:
    text: str
    columns: list[ChatOptions]
    repeat: int
    shared: dict[str, Any]


def parse_plan(shared: dict[str, Any], columns: list[dict[str, Any]], repeat: Any) -> ComparePlan:
    """The form as a plan: each column's options are the chat's own, validated by the chat's own rules."""
    errors: dict[str, list[str]] = {}
    text = str(shared.get("text") or "")
    if not text.strip():
        errors.setdefault("text", []).append("Type the message every column gets.")
    if not columns:
        errors.setdefault("", []).append("Add at least one column.")
    if len(columns) > MAX_COLUMNS:
        errors.setdefault("", []).append(f"At most {MAX_COLUMNS} columns.")
    count = _repeat_count(repeat, errors)
    options: list[ChatOptions] = []
    for position, column in enumerate(columns[:MAX_COLUMNS]):
        payload = {**shared, **{k: v for k, v in column.items() if k in COLUMN_FIELDS}, "stream": True}
        parsed, problems = parse_options(payload)
        if parsed is None:
            errors[f"column-{position}"] = [f"{name}: {' '.join(m)}" for name, m in problems.items()]
        else:
            options.append(parsed)
    if errors:
        raise CompareRefused(errors)
    kept = {k: shared.get(k) for k in ("system", "tools", "tool_choice", "parallel_tool_calls", "max_round_trips")}
    return ComparePlan(text, options, count, kept)


def _repeat_count(value: Any, errors: dict[str, list[str]]) -> int:
    try:
        count = int(value or 1)
    except (TypeError, ValueError):
        count = 0
    if not 1 <= count <= MAX_REPEAT:
        errors.setdefault("repeat", []).append(f"Repeat each column 1 to {MAX_REPEAT} times.")
    return count


def create_comparison(team: Team, user: AbstractBaseUser, plan: ComparePlan) -> Comparison:
    """The comparison and one saved conversation per column and repeat, configured and ready to run."""
    endpoints = {e.pk: e for e in visible_endpoints(team).filter(pk__in=[c.endpoint_id for c in plan.columns])}
    tools = {t.name: t for t in Tool.objects.filter(team=team, name__in=plan.shared.get("tools") or [])}
    errors: dict[str, list[str]] = {}
    for position, column in enumerate(plan.columns):
        if column.endpoint_id not in endpoints:
            errors[f"column-{position}"] = ["Pick a provider endpoint."]
    missing = sorted(set(plan.shared.get("tools") or []) - set(tools))
    if missing:
        errors["tools"] = [f"Unknown tools: {', '.join(missing)}."]
    if errors:
        raise CompareRefused(errors)
    title = title_from(plan.text)
    with transaction.atomic():
        comparison = Comparison.objects.create(
            team=team, created_by=user, title=title, repeat=plan.repeat, settings=_saved_settings(plan)
        )
        for position, column in enumerate(plan.columns):
            endpoint = endpoints[column.endpoint_id]
            for repeat in range(plan.repeat):
                conversation = Conversation.objects.create(
                    team=team,
                    created_by=user,
                    title=title,
                    endpoint=endpoint,
                    endpoint_name=endpoint.name,
                    format=endpoint.format,
                    model=column.model,
                    settings=column.to_dict(),
                )
                ComparisonRun.objects.create(
                    comparison=comparison, position=position, repeat=repeat, conversation=conversation
                )
    return comparison


def _saved_settings(plan: ComparePlan) -> dict[str, Any]:
    columns = [{k: v for k, v in c.to_dict().items() if k in COLUMN_FIELDS} for c in plan.columns]
    return {**plan.shared, "text": plan.text, "columns": columns}


def start_comparison(comparison_id: int, user: AbstractBaseUser | None) -> asyncio.Task[None]:
    """Run every column in the background, in a context of its own (an HTTP request's would not outlive it)."""
    task = asyncio.create_task(run_comparison(comparison_id, user), context=contextvars.Context())
    _RUNNERS.add(task)
    task.add_done_callback(_RUNNERS.discard)
    return task


async def run_comparison(comparison_id: int, user: AbstractBaseUser | None) -> None:
    """Every column at once; one that fails (a refused turn, a provider error) leaves the others running."""
    comparison = await Comparison.objects.aget(pk=comparison_id)
    text = str(comparison.settings.get("text") or "")
    columns: dict[int, list[int]] = {}
    async for row in ComparisonRun.objects.filter(comparison_id=comparison_id).order_by("position", "repeat"):
        columns.setdefault(row.position, []).append(row.conversation_id)
    await asyncio.gather(*(_run_column(ids, text, user) for ids in columns.values()))


async def _run_column(conversation_ids: list[int], text: str, user: AbstractBaseUser | None) -> None:
    for done, conversation_id in enumerate(conversation_ids, 1):
        if not await _run_one(conversation_id, text, user):
            await _not_run(conversation_ids[done:])  # stopped or refused: the repeats after it are not run
            return


async def _not_run(conversation_ids: list[int]) -> None:
    """Say so on the repeats a column will not run, so the results stop waiting for them (a Stop all has already
    marked its own)."""
    await Conversation.objects.filter(pk__in=conversation_ids, status=Conversation.Status.IDLE).aupdate(
        status=Conversation.Status.STOPPED, status_message="Not run: an earlier repeat of this column did not finish."
    )


async def stop_column(comparison_id: int, position: int) -> None:
    """A column's Stop: its repeats not started yet are marked not run first, so its runner cannot start one of them
    meanwhile, then the repeat running (or waiting for an answer) is stopped, which ends the column's runner."""
    runs = ComparisonRun.objects.filter(comparison_id=comparison_id, position=position)
    column = Conversation.objects.filter(pk__in=runs.values("conversation_id"))
    await column.filter(status=Conversation.Status.IDLE, messages__isnull=True).aupdate(
        status=Conversation.Status.STOPPED, status_message=NOT_RUN_AFTER_STOP
    )
    async for conversation_id in column.filter(status__in=BUSY_STATUSES).values_list("pk", flat=True):
        await send_control(conversation_id, {"type": "stop"})


async def _run_one(conversation_id: int, text: str, user: AbstractBaseUser | None) -> bool:
    """One repeat of one column, to its end. False when the column should not go on (a Stop, a refusal)."""
    conversation = await Conversation.objects.select_related("team").aget(pk=conversation_id)
    if conversation.status == Conversation.Status.STOPPED:
        return False  # Stop all reached this repeat before it started
    options = ChatOptions(**conversation.settings)
    try:
        run = (await start_turn(conversation=conversation, text=text, options=options, user=user)).run
    except TurnRefused as exc:
        await _refused(conversation_id, str(exc))
        return False
    except Exception:
        logger.exception("could not start column conversation %s", conversation_id)
        await _refused(conversation_id, "The run could not be started; nothing was run.")
        return False
    if run.task is not None:
        await asyncio.wait({run.task})  # its outcome is saved on the conversation; the wait must not raise
    status = await _settled_status(conversation_id)
    return status not in (Conversation.Status.STOPPED, Conversation.Status.INTERRUPTED)


async def _settled_status(conversation_id: int) -> str | None:
    """The status the run ended with. A stopped run's task can end while its shielded "stopped" is still being
    saved, so a status still busy is read again for a moment rather than taken for the outcome."""
    rows = Conversation.objects.filter(pk=conversation_id).values_list("status", flat=True)
    for _ in range(SETTLE_TRIES):
        status = await rows.afirst()
        if status not in BUSY_STATUSES:
            return status
        await asyncio.sleep(SETTLE_PAUSE_S)
    return await rows.afirst()


async def _refused(conversation_id: int, message: str) -> None:
    await Conversation.objects.filter(pk=conversation_id).aupdate(
        status=Conversation.Status.ERROR, status_message=message
    )


def column_conversations(comparison: Comparison, repeat: int = 0) -> list[Conversation]:
    runs = comparison.runs.filter(repeat=repeat).select_related("conversation__endpoint").order_by("position")
    return [run.conversation for run in runs]
