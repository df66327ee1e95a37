"""The tool loop's hooks for a saved conversation: save each piece as it happens and send it to the browsers."""

from __future__ import annotations

import asyncio
import functools
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playground.chat.event_saver import EventSaver, Unsaved
from playground.chat.loop import Decision
from playground.chat.orm import orm_thread
from playground.chat.registry import ActiveRun, Frame
from playground.chat.writes import (
    _fill_round_trip,
    _insert_round_trip,
    _MessageNotSaved,
    _Record,
    _save_ended,
    _save_ended_and_message,
    _save_status,
    save_message,
    summary,
)
from playground.conversations.models import Conversation, Message, RoundTrip
from playground.review.live import timeline_changed
from playground.tools.config import ToolConfig
from playground.tools.results import ToolResult
from playground.tools.schema import check_arguments, field_states
from providers import events as ev
from providers.client import RequestSent, Update, WireEvent
from providers.client import RoundTrip as ClientRoundTrip
from providers.types import Message as InternalMessage
from providers.types import ToolCall

if TYPE_CHECKING:
    from collections.abc import Callable

WAIT_LIMIT_S = 30 * 60  # a manual answer or an approval not given by then is answered for the person

# Re-parsing the partial arguments costs O(length): at most this often per call, so long arguments stay cheap.
FIELD_CHECK_EVERY_S = 0.1


@dataclass
class _LiveCall:
    id: str
    name: str
    parts: list[str] = field(default_factory=list)
    checked_at: float = 0.0
    last_fields: list[dict[str, str]] = field(default_factory=list)


@dataclass
class ConversationHooks:
    conversation: Conversation
    run: ActiveRun
    tools: dict[str, ToolConfig]
    first_position: int = 0  # position of this run's first round trip in the conversation
    wait_limit_s: float = 0.0  # how long a manual answer or an approval may take; 0 means WAIT_LIMIT_S
    rows: dict[int, RoundTrip] = field(default_factory=dict)
    calls: dict[int, _LiveCall] = field(default_factory=dict)
    savers: dict[int, EventSaver] = field(default_factory=dict)  # raw events of round trips still streaming
    # Answers given before the run began (to the open questions of an interrupted run): call id -> answer.
    preset_answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    strategy: str = "native"  # of the round trip in progress (RequestSent says it)
    next_message: int | None = None  # the position of the next message saved, once the history is read
    # The conversation's messages as (role, data, complete), once the history is read: with the run's own, what the
    # search index is made of when the run ends (not read back from the database).
    messages: list[tuple[str, dict[str, Any], bool]] | None = None
    # Parallel calls are answered concurrently; their results must still take one position each, in turn.
    _append_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def __post_init__(self) -> None:
        self.wait_limit_s = self.wait_limit_s or WAIT_LIMIT_S

    def position(self, index: int) -> int:
        return self.first_position + index

    async def on_update(self, round_trip_index: int, update: Update) -> None:
        if isinstance(update, RequestSent):
            await self._request_sent(self.position(round_trip_index), update)
        else:
            self.on_stream(round_trip_index, update)

    def on_stream(self, round_trip_index: int, update: Update) -> None:
        """A raw event or a stream event: sent on and saved without waiting (``RoundTripRun.emit_now``)."""
        rt = self.first_position + round_trip_index
        if type(update) is WireEvent:
            t_ms, data, event = update.t_ms, update.data, update.event
            self.run.emit({"type": "rt.wire", "rt": rt, "t_ms": t_ms, "event": event, "data": data})
            saver = self.savers.get(rt)
            if saver is not None:
                saver.add((t_ms, data, event))
        elif type(update) is ev.TextDelta:  # nearly every event of an answer: no call to follow
            self.run.emit({"type": "rt.delta", "rt": rt, "kind": update.kind, "text": update.text})
        else:
            self.run.emit({"type": "rt.delta", "rt": rt, **ev.event_to_dict(update)})
            self._track_call(rt, update)

    async def _request_sent(self, rt: int, update: RequestSent) -> None:
        self.run.new_round_trip()
        self.calls = {}
        self.strategy = update.strategy
        wire_request = update.wire_request.to_dict()
        # Emitted before the row is saved, the round trip's first wait: it leaves in one message with what the run
        # emitted before (its status, at a turn's start), so the provider's first chunks find the pacing's slack
        # unspent (pacing.py). A row that fails to save ends the run with an error, which the pages are told.
        self.run.emit(
            {
                "type": "rt.start",
                "rt": rt,
                "format": self.conversation.format,
                "request": update.request,
                "notes": update.notes,
                "wire_request": wire_request,
                "strategy": update.strategy,
            }
        )
        row = RoundTrip(
            conversation=self.conversation,
            position=rt,
            format=self.conversation.format,
            model=self.conversation.model,
            request=dict(update.request),
            notes=update.notes,
            wire_request=wire_request,
        )
        await orm_thread(_insert_round_trip)(row)
        self.rows[rt] = row
        self.savers[rt] = EventSaver(self.rows[rt])

    def _track_call(self, rt: int, event: ev.Event) -> None:
        """Follow each call's arguments so a finished call is validated against its tool's schema at once."""
        if isinstance(event, ev.ToolCallStart):
            self.calls[event.index] = _LiveCall(event.id, event.name)
        elif isinstance(event, ev.ToolCallDelta) and event.index in self.calls:
            call = self.calls[event.index]
            call.parts.append(event.arguments)
            if time.monotonic() - call.checked_at >= FIELD_CHECK_EVERY_S:
                self._fields(rt, call)
        elif isinstance(event, ev.ToolCallEnd) and event.index in self.calls:
            self._fields(rt, self.calls[event.index])
            self.run.emit(self._check_frame(rt, event.index, self.calls[event.index]))

    def _fields(self, rt: int, call: _LiveCall) -> None:
        """Field by field, what the arguments so far look like against the schema: sent only when it changes."""
        call.checked_at = time.monotonic()
        tool = self.tools.get(call.name)
        states = [f.to_dict() for f in field_states(tool.parameters if tool else None, "".join(call.parts))]
        if states != call.last_fields:
            call.last_fields = states
            self.run.emit({"type": "tool.fields", "rt": rt, "call_id": call.id, "fields": states})

    def _check_frame(self, rt: int, index: int, call: _LiveCall) -> Frame:
        tool = self.tools.get(call.name)
        check = check_arguments(tool.parameters if tool else None, "".join(call.parts))
        return {
            "type": "tool.check",
            "rt": rt,
            "index": index,
            "call_id": call.id,
            "ok": check.ok,
            "known_tool": tool is not None,
            "problems": [{"path": p.path, "message": p.message} for p in check.problems],
        }

    async def on_round_trip(
        self, round_trip_index: int, round_trip: ClientRoundTrip, message: InternalMessage | None
    ) -> None:
        await self.run.send_queued_now()  # the answer's last deltas go out now, not after its record is saved
        rt = self.position(round_trip_index)
        inserted = self.rows.get(rt)  # with its request, when the request went
        # A Stop can land just after the row was inserted but before it was remembered: find it, never insert twice.
        row = (
            inserted
            or await RoundTrip.objects.filter(conversation=self.conversation, position=rt).afirst()
            or RoundTrip(conversation=self.conversation, position=rt, format=self.conversation.format)
        )
        # The request and its wire form, a whole history each, were saved with the row: only what came back is new.
        record = _Record(
            row, inserted is not None and inserted.pk is not None, await self._unsaved_batches(rt, round_trip)
        )
        _fill_round_trip(row, round_trip, batched=record.unsaved is not None)
        if message is None:
            await orm_thread(_save_ended)(*record)
            self._round_trip_saved(rt, row)
            return
        # The tool-calling strategy its round trip used, when not the provider's own tools (a card says "via").
        meta = {"strategy": self.strategy} if self.strategy != "native" else None
        complete = round_trip.result.complete
        try:
            saved = await self._save_message(message, complete=complete, round_trip=row, meta=meta, record=record)
        except _MessageNotSaved as failed:
            self._round_trip_saved(rt, row)  # the pages are told of the record that is saved, as ever
            raise failed.cause from None
        self._round_trip_saved(rt, row)
        self.run.emit({"type": "message.saved", "position": saved.position, "complete": complete}, live=False)

    async def _unsaved_batches(self, rt: int, round_trip: ClientRoundTrip) -> Unsaved | None:
        """The raw events the round trip's end saves in batches: those its saver has not written yet. None when the
        row's own column takes them all instead: it had no saver (not inserted as its request went), or its saver
        missed an event (an error between the event's arrival and its hand-over); nothing is lost either way."""
        saver = self.savers.pop(rt, None)
        if saver is None:
            return None
        unsaved = await saver.close()
        return unsaved if saver.added == len(round_trip.raw_events) else None

    def _round_trip_saved(self, rt: int, row: RoundTrip) -> None:
        self.rows[rt] = row
        self.run.emit({"type": "rt.end", "rt": rt, **summary(row)}, live=False)
        self.run.round_trip_done()

    async def on_tool_result(self, call: ToolCall, result: ToolResult, *, attempt: int) -> None:
        meta = {"source": result.source, "attempt": attempt, "tool": call["function"]["name"], **(result.meta or {})}
        message: InternalMessage = {"role": "tool", "tool_call_id": call["id"], "content": result.content}
        if result.is_error:
            message["is_error"] = True
        await self._save_message(message, complete=True, meta=meta)
        timeline_changed(self.conversation.pk)  # a run that answers its own calls shows each round trip as it ends
        frame = {"type": "tool.result", "call_id": call["id"], "content": result.content, "is_error": result.is_error}
        if "edited_arguments" in meta:  # approved with the person's edit: the card shows what ran
            frame["edited_arguments"] = meta["edited_arguments"]
        self.run.emit({**frame, "source": result.source, "attempt": attempt, "tool": meta["tool"]}, live=False)

    async def manual_result(self, call: ToolCall) -> ToolResult:
        answer = await self._ask(call, "manual")
        if answer is None:
            return ToolResult(f"No one answered within {WAIT_LIMIT_S // 60} minutes.", True, "manual")
        return ToolResult(str(answer.get("content", "")), bool(answer.get("is_error")), "manual")

    async def approve(self, call: ToolCall) -> Decision:
        answer = await self._ask(call, "approval")
        if answer is None:
            return Decision("deny", reason=f"No one approved this call within {WAIT_LIMIT_S // 60} minutes.")
        if answer.get("action") == "deny":
            return Decision("deny", reason=str(answer.get("reason") or "The user denied this tool call."))
        arguments = answer.get("arguments")
        return Decision("approve", arguments=arguments if isinstance(arguments, str) else None)

    async def _ask(self, call: ToolCall, kind: str) -> dict[str, Any] | None:
        """The person's answer, or None when nobody answered in time (the run must not hold its resources forever)."""
        preset = self.preset_answers.pop(call["id"], None)
        if preset is not None:
            return preset
        await self.set_status(Conversation.Status.WAITING, "Waiting for an answer to a tool call.")
        frame = {
            "type": "tool.awaiting",
            "kind": kind,
            "call_id": call["id"],
            "name": call["function"]["name"],
            "arguments": call["function"]["arguments"],
        }
        try:
            answer: dict[str, Any] | None = await asyncio.wait_for(
                self.run.wait_for_answer(call["id"], frame), self.wait_limit_s
            )
        except TimeoutError:
            answer = None
        if not self.run.waiting:  # parallel calls: still waiting while any other one is unanswered
            await self.set_status(Conversation.Status.RUNNING, "")
        return answer

    async def set_status(self, status: str, message: str, index: Callable[[], dict[str, Any]] | None = None) -> None:
        """Save the status; ``index``: the search fields to save with it, computed on the ORM's thread in the same
        trip (a failure to compute them is logged: the status is saved alone)."""
        self.conversation.status, self.conversation.status_message = status, message
        await orm_thread(_save_status)(self.conversation, index)
        self.announce_status(status, message)
        timeline_changed(self.conversation.pk)

    def announce_status(self, status: str, message: str) -> None:
        label = Conversation.Status(status).label
        self.run.emit({"type": "status", "status": status, "label": label, "message": message}, live=False)

    async def finish(self, status: str, message: str, index: Callable[[], dict[str, Any]] | None = None) -> None:
        self.conversation.run_owner = ""  # released: no process holds this conversation any more
        await self.set_status(status, message, index)
        self.run.emit({"type": "run.end", "status": status, "message": message}, live=False)

    async def _save_message(
        self,
        message: InternalMessage,
        *,
        complete: bool,
        round_trip: RoundTrip | None = None,
        meta: dict[str, Any] | None = None,
        record: _Record | None = None,
    ) -> Message:
        """``record``: a round trip's whole record, saved before the message in the same trip."""
        save = save_message if record is None else functools.partial(_save_ended_and_message, record)
        async with self._append_lock:
            saved: Message = await orm_thread(save)(
                self.conversation, message, complete=complete, round_trip=round_trip, meta=meta,
                position=self.next_message,
            )  # fmt: skip
            self.next_message = saved.position + 1
            if self.messages is not None:
                self.messages.append((saved.role, saved.data, saved.complete))
            return saved
