"""Gemini stream decoder (``:streamGenerateContent?alt=sse``): ``data:`` chunks -> clean internal events.

Quirks absorbed (wire-formats.md §4.2-§4.4):

* Every chunk is a whole ``GenerateContentResponse``, not a delta of one growing object: its parts are the new
  pieces of the turn. Text and thought text are passed on as they come (``TextDelta``, ``ReasoningDelta``) and
  joined into one part per run (``assistant.PartsBuilder``), the same parts a whole response gives.
* A ``functionCall`` part is always a whole call (Gemini 2.5 sends parallel calls together in one chunk, Gemini 3
  one per chunk): ``ToolCallStart``, the whole arguments as one ``ToolCallDelta``, ``ToolCallEnd`` at once. Calls
  without an ``id`` get the same synthetic id the whole response would give (response id + position).
* No end marker: the chunk with a ``finishReason`` ends the turn (a trailing ``{"text": ""}`` part may come with
  it). Only then are the kept thought parts and message fields passed on, with the finish and ``StreamEnd``; a
  stream that stops before it is cut, and ``close()`` passes on what arrived (the result is incomplete).
* ``usageMetadata`` repeats on every chunk with running counts: each chunk's replaces the last (``UsageUpdate``).
* An ``{"error": {...}}`` chunk is a StreamError; a chunk that is not JSON is an ``invalid_response`` error. A
  prompt blocked before any candidate (``promptFeedback.blockReason``) ends the turn as ``content_filter``.
* Vertex's argument streaming (``partialArgs``/``willContinue``) is not decoded: such a call arrives as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from providers import events as ev
from providers import jsontext
from providers.errors import ProviderError
from providers.gemini.assistant import (
    KnownCall,
    PartsBuilder,
    blocks_of,
    call_fields,
    is_call,
    is_text,
    is_thought,
    turn_fields,
)
from providers.gemini.errors import stream_error
from providers.gemini.response import (
    CANDIDATE_KEYS,
    RESPONSE_KEYS,
    block_reason,
    finish_event,
    first_candidate,
    parts_of,
)
from providers.gemini.wire import args_to_arguments, synthetic_call_id, usage_from_wire
from providers.sse import SSEEvent


@dataclass
class GeminiStreamState:
    response_id: str | None = None  # the first chunk's responseId: it seeds the synthetic call ids
    model_version: str | None = None
    parts: PartsBuilder = field(default_factory=PartsBuilder)
    # Each call as announced, in order (so the next one's position is its length), reused when the turn ends.
    known: list[KnownCall] = field(default_factory=list)
    candidate_fields: dict[str, Any] = field(default_factory=dict)  # latest value of each candidate-only field
    response_fields: dict[str, Any] = field(default_factory=dict)
    finished: bool = False  # a finishReason arrived: later chunks may still update the usage
    ended: bool = False  # finished, failed or closed: the kept parts were passed on


@dataclass
class GeminiStreamDecoder:
    state: GeminiStreamState = field(default_factory=GeminiStreamState)

    def feed(self, event: SSEEvent) -> list[ev.Event]:
        text = event.data.strip()
        if not text or (self.state.ended and not self.state.finished):
            return []
        try:
            data = jsontext.loads(text)
        except ValueError:
            error = ProviderError("invalid_response", f"stream chunk is not JSON: {text[:120]}", raw=text)
            return [*self._kept(), ev.StreamError(error)]
        if isinstance(data, list):  # a client that fed the non-SSE array form chunk by chunk
            return [event for item in data if isinstance(item, dict) for event in self._chunk(item)]
        return self._chunk(data) if isinstance(data, dict) else []

    def close(self) -> list[ev.Event]:
        """End of input: what arrived is kept; without a finishReason the accumulator marks it incomplete."""
        return self._kept()

    # --- one chunk -----------------------------------------------------------------------------------------------

    def _chunk(self, chunk: dict[str, Any]) -> list[ev.Event]:
        state = self.state
        if "candidates" not in chunk and isinstance(chunk.get("error"), dict):
            return [*self._kept(), ev.StreamError(stream_error(chunk))]
        if state.response_id is None:
            state.response_id = str(chunk.get("responseId") or "")
        if isinstance(chunk.get("modelVersion"), str):
            state.model_version = chunk["modelVersion"]
        events: list[ev.Event] = []
        if isinstance(chunk.get("usageMetadata"), dict):
            events.append(ev.UsageUpdate(usage_from_wire(chunk["usageMetadata"])))
        if state.finished:
            return events  # after the finish only the usage may still change
        state.response_fields.update({key: value for key, value in chunk.items() if key not in RESPONSE_KEYS})
        candidate = first_candidate(chunk) or {}
        for part in parts_of(candidate):
            events.extend(self._part(part))
        state.candidate_fields.update({key: value for key, value in candidate.items() if key not in CANDIDATE_KEYS})
        raw = candidate.get("finishReason")
        block = block_reason(chunk)
        if isinstance(raw, str) or (block is not None and not candidate):
            finish = finish_event(candidate, raw) if isinstance(raw, str) else ev.Finish("content_filter", block)
            events.extend([*self._kept(), finish, ev.StreamEnd()])
            state.finished = True
        return events

    def _part(self, part: dict[str, Any]) -> list[ev.Event]:
        kept = self.state.parts.add(part)
        if is_call(part):
            return self._call(kept)
        if is_text(part) and part["text"]:
            return [ev.ReasoningDelta(part["text"]) if is_thought(part) else ev.TextDelta(part["text"])]
        return []

    def _call(self, part: dict[str, Any]) -> list[ev.Event]:
        state = self.state
        position = len(state.known)
        body = part["functionCall"]
        name = body.get("name") if isinstance(body.get("name"), str) else ""
        arguments = args_to_arguments(body.get("args"))
        call_id = body.get("id")
        if not isinstance(call_id, str) or not call_id:
            call_id = synthetic_call_id(state.response_id or "", position, name, arguments)
        state.known.append(KnownCall(body, state.response_id or "", arguments, call_id))
        return [
            ev.ToolCallStart(position, call_id, name, call_fields(part)),
            ev.ToolCallDelta(position, arguments),
            ev.ToolCallEnd(position),
        ]

    def _kept(self) -> list[ev.Event]:
        """The thought parts and message fields of the turn, once it is over (finished, failed or cut)."""
        state = self.state
        if state.ended:
            return []
        state.ended = True
        parts = state.parts.result()
        extras: dict[str, Any] = {}
        if state.candidate_fields:
            extras["candidate"] = state.candidate_fields
        if state.response_fields:
            extras["response"] = state.response_fields
        events: list[ev.Event] = [ev.ProviderBlock(block) for block in blocks_of(parts)]
        fields = turn_fields(parts, extras, state.response_id or "", state.known)
        if fields:
            events.append(ev.MessageFields(fields))
        return events


def new_stream_decoder() -> GeminiStreamDecoder:
    return GeminiStreamDecoder()
