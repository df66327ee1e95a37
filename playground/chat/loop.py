"""The tool loop: call the model, answer its tool calls, and go round until it stops or a limit is reached.

Everything outside the loop (saving, showing, waiting for a person) comes in through ``LoopHooks``, so the same
loop runs under the WebSocket consumer, a view or a test.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from playground.tools.config import ToolConfig, answer_module_tool
from playground.tools.results import ToolResult, call_key
from playground.tools.schema import check_arguments
from providers.client import Endpoint, RoundTrip, RoundTripRun, Update
from providers.client.holds import ReadHold
from providers.errors import ProviderError
from providers.strategies import fallback
from providers.streaming import StreamResult
from providers.types import ChatRequest, Message, ToolCall

Status = Literal["done", "error", "max_round_trips", "invalid_arguments", "max_tokens", "cancelled"]


# Answers a call the loop cannot answer itself (a tool of an MCP server); None when the tool is not its kind.
RemoteAnswer = Callable[[ToolConfig, dict[str, Any]], Awaitable[ToolResult | None]]


class LoopHookError(RuntimeError):
    """A hook (saving, showing) failed: the run cannot go on, whatever the tools do."""


@dataclass(frozen=True)
class LoopSettings:
    max_round_trips: int = 8
    max_invalid_retries: int = 2  # per tool: how often the model may retry after an invalid-arguments error
    approve_before_running: bool = False
    strategy: str = "native"  # tool-calling strategy (providers.strategies); a refusal moves it on (fallback)


@dataclass(frozen=True)
class Decision:
    action: Literal["approve", "deny"]
    arguments: str | None = None  # edited arguments, when the person changed them before approving
    reason: str = ""


@dataclass(frozen=True)
class Outcome:
    status: Status
    round_trips: int
    message: str  # for the page: says plainly why the run stopped
    error: ProviderError | None = None


class LoopHooks(Protocol):
    async def on_update(self, round_trip_index: int, update: Update) -> None: ...

    # What never waits (a raw event, a stream event), called for each as it comes: ``on_update`` has the rest.
    def on_stream(self, round_trip_index: int, update: Update) -> None: ...

    # The round trip's whole record, with the message it brought (None when the model said nothing): saved together.
    async def on_round_trip(self, round_trip_index: int, round_trip: RoundTrip, message: Message | None) -> None: ...

    async def on_tool_result(self, call: ToolCall, result: ToolResult, *, attempt: int) -> None: ...

    async def manual_result(self, call: ToolCall) -> ToolResult: ...

    async def approve(self, call: ToolCall) -> Decision: ...


@dataclass
class ToolLoop:
    endpoint: Endpoint
    request: ChatRequest  # model, params, tools; messages = the history so far
    tools: dict[str, ToolConfig]
    hooks: LoopHooks
    settings: LoopSettings = LoopSettings()
    # Calls of the history's last answer still unanswered (a run resumed after it was interrupted): answered first.
    pending: list[ToolCall] = field(default_factory=list)
    # A replay's original answers by call key (tools.results.call_key): reused for the same call, so a replay is
    # deterministic wherever the new model does what the original did.
    recorded: dict[tuple[str, str], ToolResult] = field(default_factory=dict)
    remote: RemoteAnswer | None = None
    # Said in the first round trip's notes (what a target will refuse, checked before the run starts).
    first_notes: list[str] = field(default_factory=list)
    # How long reading a streaming answer may wait, while what was read cannot go on yet (providers.client.holds).
    read_hold: ReadHold | None = None

    def __post_init__(self) -> None:
        self.messages: list[Message] = list(self.request.get("messages", []))
        self.invalid_attempts: Counter[str] = Counter()
        self.tries_before: Counter[str] = Counter()  # invalid_attempts as the round trip's calls began
        self.strategy = self.used_strategy = self.settings.strategy
        self.strategy_notes: list[str] = list(self.first_notes)  # for the next round trip (why its strategy...)

    async def run(self) -> Outcome:
        if self.pending:
            outcome = await self._answer_calls(self.pending, round_trips=0)
            if outcome is not None:
                return outcome
            self._release_forced_choice()
        for index in range(self.settings.max_round_trips):
            round_trip = await self._round_trip(index)
            outcome = await self._after_round_trip(index, round_trip)
            if outcome is not None:
                return outcome
        limit = self.settings.max_round_trips
        return Outcome("max_round_trips", limit, f"Stopped after {limit} model round trips (the configured maximum).")

    async def _round_trip(self, index: int) -> RoundTrip:
        # A partial, not a wrapping coroutine: every streamed event passes through it, twice per delta.
        emit = functools.partial(self.hooks.on_update, index)
        request: ChatRequest = {**self.request, "messages": list(self.messages)}
        run = RoundTripRun(self.endpoint, request, emit, self.strategy, self.strategy_notes, read_hold=self.read_hold)
        run.emit_now = functools.partial(self.hooks.on_stream, index)  # raw and stream events: called, not awaited
        try:
            round_trip = await run.run()
        except asyncio.CancelledError:
            # Stop pressed mid-stream: keep what arrived, marked incomplete, then let the cancellation through.
            partial = run.snapshot(ProviderError("cancelled", "Stopped by the user."))
            await self._record(index, partial)
            raise
        _name_error_finish(round_trip.result)
        await self._record_whole(index, round_trip)
        self.used_strategy, self.strategy_notes = run.used_strategy, []
        return round_trip

    async def _record_whole(self, index: int, round_trip: RoundTrip) -> None:
        """Save a round trip that fully arrived even if Stop lands meanwhile, then let the Stop through: cut
        between the round trip and its message, an answer that had arrived whole would be lost."""
        saving = asyncio.ensure_future(self._record(index, round_trip))
        try:
            await asyncio.shield(saving)
        except asyncio.CancelledError:
            await saving
            raise

    async def _record(self, index: int, round_trip: RoundTrip) -> None:
        message = round_trip.result.message
        said = bool(message.get("content") or message.get("tool_calls"))
        await self.hooks.on_round_trip(index, round_trip, message if said else None)
        if said:
            self.messages.append(message)

    async def _after_round_trip(self, index: int, round_trip: RoundTrip) -> Outcome | None:
        result = round_trip.result
        if result.error is not None:
            if self._fall_back(result.error):
                return None  # the provider refused the strategy's feature: the next round trip tries another
            return Outcome("error", index + 1, result.error.message, result.error)
        calls = result.message.get("tool_calls") or []
        if result.finish_reason == "length":
            return self._cut_short(index, bool(calls))
        if not calls:
            return Outcome("done", index + 1, "The model finished.")
        outcome = await self._answer_calls(calls, round_trips=index + 1)
        if outcome is None:
            self._release_forced_choice()
        return outcome

    def _release_forced_choice(self) -> None:
        """A forced tool choice ("required", or one tool named) holds for the round trip it forced: once its calls
        are answered the model is asked with "auto", as agent frameworks do, or it could only call again, round
        after round, until the limit. The next round trip's notes say so."""
        choice = self.request.get("tool_choice")
        if choice is None or choice in ("auto", "none"):
            return
        forced = choice if isinstance(choice, str) else choice.get("function", {}).get("name", "a tool")
        self.request = {**self.request, "tool_choice": "auto"}
        self.strategy_notes.append(
            f"tool_choice {forced!r} forced the previous round trip's call, now answered: this one is sent with "
            "'auto', so the model may answer in words (forced again, it could only call again)"
        )

    async def _answer_calls(self, calls: list[ToolCall], *, round_trips: int) -> Outcome | None:
        self.tries_before = Counter(self.invalid_attempts)  # a call's attempt counts earlier round trips only
        # A TaskGroup, not gather: if one answer fails for good, the others are cancelled, never left waiting.
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(self._answer(call)) for call in calls]
        answers = [task.result() for task in tasks]
        for call, answer in zip(calls, answers, strict=True):
            self.messages.append(_tool_message(call, answer))
        give_up = [c["function"]["name"] for c in calls if self._exhausted(c["function"]["name"])]
        if give_up:
            names = ", ".join(sorted(set(give_up)))
            return Outcome(
                "invalid_arguments", round_trips, f"Gave up: the model kept sending invalid arguments ({names})."
            )
        return None

    def _fall_back(self, error: ProviderError) -> bool:
        following = fallback(self.used_strategy, error)
        if following is None:
            return False
        refused = f"{self.used_strategy} refused by the provider ({error.message})"
        self.strategy_notes = [f"{refused}: retried with the {following} strategy"]
        self.strategy = following
        return True

    def _cut_short(self, index: int, in_a_call: bool) -> Outcome:
        """The answer hit max_tokens. A call cut off mid-arguments is not run, nor answered with an error to retry:
        the model would run out at the same place again."""
        limit = self.request.get("max_tokens")
        where = "in the middle of a tool call, which was not run" if in_a_call else "before it finished its answer"
        message = f"The model reached the max tokens limit ({limit}) {where}. Raise Max tokens and send again."
        return Outcome("max_tokens" if in_a_call else "done", index + 1, message)

    async def _answer(self, call: ToolCall) -> ToolResult:
        try:
            return await self._answer_call(call)
        except (asyncio.CancelledError, LoopHookError):
            raise
        except Exception as exc:  # one broken tool must not end the run: the model is told instead
            result = ToolResult(
                f"Answering {call['function']['name']} failed: {type(exc).__name__}: {exc}", True, "error"
            )
            return await self._deliver(call, result)

    async def _answer_call(self, call: ToolCall) -> ToolResult:
        name = call["function"]["name"]
        tool = self.tools.get(name)
        if tool is None:
            result = ToolResult(f"No tool named {name!r} is enabled in this chat.", True, "validation")
            return await self._deliver(call, result)
        arguments = call["function"]["arguments"]
        if self.settings.approve_before_running:
            decision = await self.hooks.approve(call)
            if decision.action == "deny":
                reason = decision.reason or "The user denied this tool call."
                return await self._deliver(call, ToolResult(reason, True, "denied"))
            if decision.arguments is not None and not _same_json(decision.arguments, arguments):
                return await self._run_tool(call, tool, decision.arguments, edited=True)
        return await self._run_tool(call, tool, arguments)

    async def _run_tool(self, call: ToolCall, tool: ToolConfig, arguments: str, *, edited: bool = False) -> ToolResult:
        """``edited``: the person changed the arguments when approving; the result says which ones ran, since the
        call itself keeps the model's (what it sent is part of the record)."""
        check = check_arguments(tool.parameters, arguments)
        if not check.ok:
            # A person's invalid edit is run as given (trying the model on a tool error is an experiment too), but
            # it is not the model's attempt: it neither uses up the model's retries nor numbers its next try.
            self.invalid_attempts[tool.name] += 0 if edited else 1
            said = check.summary().rstrip(".")  # a problem's own sentence may end in one: said once
            text = f"Invalid arguments for {tool.name}: {said}. Fix them and call the tool again."
            result = ToolResult(text, True, "validation")
        else:
            result = await self._answer_valid(call, tool, check.value)
        if edited:
            result = replace(result, meta={**(result.meta or {}), "edited_arguments": arguments})
        return await self._deliver(call, result)

    async def _answer_valid(self, call: ToolCall, tool: ToolConfig, arguments: Any) -> ToolResult:
        result = self.recorded.get(call_key(tool.name, arguments))
        if result is None:
            result = await answer_module_tool(tool, arguments)  # the event loop stays free while a tool works
        if result is None and self.remote is not None:
            result = await self.remote(tool, arguments)
        if result is None:
            result = await self.hooks.manual_result(call)
        return result

    async def _deliver(self, call: ToolCall, result: ToolResult) -> ToolResult:
        # Attempt N: the model's Nth try at this tool after N-1 round trips whose calls of it were invalid. Parallel
        # calls share their round trip's number: a sibling's invalid arguments, answered first, do not count.
        attempt = self.tries_before[call["function"]["name"]] + 1
        try:
            await self.hooks.on_tool_result(call, result, attempt=attempt)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # saving failed: that is ours, not the tool's, and must end the run
            raise LoopHookError(f"Could not record the result of {call['function']['name']}: {exc}") from exc
        return result

    def _exhausted(self, name: str) -> bool:
        return self.invalid_attempts[name] > self.settings.max_invalid_retries


def _same_json(edited: str, arguments: str) -> bool:
    """The approval form shows the arguments pretty-printed: approved untouched, they differ only in spacing."""
    if edited == arguments:
        return True
    try:
        return bool(json.loads(edited) == json.loads(arguments))
    except ValueError:
        return False


def _name_error_finish(result: StreamResult) -> None:
    """An error finish without an error body (Gemini's MALFORMED_FUNCTION_CALL: a call it could not write, with no
    parts) becomes the round trip's error before it is saved: its card shows it, live and in the saved transcript,
    and the run ends with it. Nothing came to run or to show, so the run must not read as finished."""
    if result.finish_reason == "error" and result.error is None:
        raw = result.raw_finish_reason or "no reason given"
        said = _clipped(result.finish_detail)
        text = f"The model ended its answer with an error ({raw})." + (f" It said: {said}" if said else "")
        result.error = ProviderError("invalid_response", text)


def _clipped(text: str | None, limit: int = 500) -> str:
    """The provider's words, short enough for a card (all of them stay in the raw events)."""
    text = (text or "").strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tool_message(call: ToolCall, result: ToolResult) -> Message:
    message: Message = {"role": "tool", "tool_call_id": call["id"], "content": result.content}
    if result.is_error:
        message["is_error"] = True
    return message


def request_for(base: dict[str, Any], tools: list[ToolConfig]) -> ChatRequest:
    """The internal request of a chat: its settings plus the specs of the enabled tools."""
    request: ChatRequest = {k: v for k, v in base.items() if v is not None}  # type: ignore[assignment]
    if tools:
        request["tools"] = [t.spec() for t in tools]
    return request
