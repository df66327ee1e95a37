"""Responses stream decoder: typed SSE events -> clean internal events, one small method per event type.

Quirks absorbed (wire-formats.md §2.3-§2.5):

* Every event says which output item it belongs to by ``item_id`` and ``output_index``; ``output_index`` counts
  every item (reasoning, message, calls), internal tool positions count only calls. Calls get their position when
  ``response.output_item.added`` announces them, so argument deltas of parallel calls interleaved by
  ``output_index`` still land on the right call. The ``item_id`` is tried first, then the ``output_index``.
* A call is announced with its ``call_id`` (the internal id) and its item ``id`` (kept in the call's fields);
  ``function_call_arguments.delta`` fragments are passed on raw; ``.done`` and ``output_item.done`` supply the whole
  arguments only when no fragment came (some servers send none). ``output_item.done`` ends the call.
* Text comes in ``output_text.delta``; reasoning summaries in ``reasoning_summary_text.delta`` (summary parts joined
  with a blank line, as whole responses join them). The reasoning item itself is kept from ``output_item.done``:
  its ``encrypted_content`` there is the one to resend (the one in ``.added`` may be incomplete).
* Text or summaries that arrive only in ``output_item.done`` (no deltas) are still passed on; an item never done is
  finished from its copy in ``response.completed``; a stream that is one ``response.completed`` with the whole
  ``output`` decodes like a whole response.
* ``response.completed``/``response.incomplete`` carry usage and the status (the finish); no ``[DONE]`` follows.
  ``error`` (flat ``code``/``message``) is a StreamError; the ``response.failed`` after it adds no second error.
* Unknown event types (``response.in_progress``, ``content_part.*``, ``*.done`` events whose data already
  arrived, ``sequence_number``/``obfuscation`` padding, hosted-tool progress...) are ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from providers import events as ev
from providers import jsontext
from providers.errors import ProviderError
from providers.openai_responses.assistant import assistant_from_items, call_fields, item_kind, turn_fields
from providers.openai_responses.errors import failed_error, stream_error
from providers.openai_responses.response import ending_events, message_events
from providers.openai_responses.wire import FUNCTION_CALL, MESSAGE, REASONING, synthetic_id, usage_from_wire
from providers.sse import SSEEvent

_TEXT_PARTS = ("output_text", "input_text")


@dataclass
class OutputItem:
    """One output item between its ``output_item.added`` and ``output_item.done``."""

    type: str
    id: str
    added: dict[str, Any]
    position: int | None = None  # position in tool_calls, for function calls
    got_arguments: bool = False
    text_parts: set[int] = field(default_factory=set)  # content indexes whose text came in deltas
    summary_parts: set[int] = field(default_factory=set)  # summary indexes whose text came in deltas
    done: bool = False


@dataclass
class OpenAIResponsesStreamState:
    response_id: str = ""
    model: str = ""
    items: dict[int, OutputItem] = field(default_factory=dict)  # output_index -> item
    by_id: dict[str, int] = field(default_factory=dict)  # item id -> output_index
    finished: dict[int, dict[str, Any]] = field(default_factory=dict)  # output_index -> the item from .done
    calls: int = 0  # calls announced so far: the next call's position
    reasoning_sent: bool = False  # summary text already passed on (the next part is set apart by a blank line)
    error_sent: bool = False
    fields_sent: bool = False
    ended: bool = False


@dataclass
class OpenAIResponsesStreamDecoder:
    state: OpenAIResponsesStreamState = field(default_factory=OpenAIResponsesStreamState)
    _dispatch: dict[str, Callable[[dict[str, Any]], list[ev.Event]]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._dispatch = {
            "response.created": self.lifecycle,
            "response.in_progress": self.lifecycle,
            "response.queued": self.lifecycle,
            "response.output_item.added": self.item_added,
            "response.output_item.done": self.item_done,
            "response.output_text.delta": self.text_delta,
            "response.function_call_arguments.delta": self.arguments_delta,
            "response.function_call_arguments.done": self.arguments_done,
            "response.reasoning_summary_text.delta": self.summary_delta,
            "response.completed": self.finished,
            "response.incomplete": self.finished,
            "response.failed": self.failed,
            "error": self.error,
        }

    def feed(self, event: SSEEvent) -> list[ev.Event]:
        text = event.data.strip()
        if self.state.ended or not text:
            return []
        try:
            data = jsontext.loads(text)
        except ValueError:
            if event.event == "error":  # an error event is an error even when its text is not JSON
                return [ev.StreamError(ProviderError("stream", text[:300], raw=text))]
            error = ProviderError("invalid_response", f"stream event is not JSON: {text[:120]}", raw=text)
            return [ev.StreamError(error)]
        if not isinstance(data, dict):
            return []
        handler = self._dispatch.get(str(data.get("type") or event.event))
        return handler(data) if handler is not None else []

    def close(self) -> list[ev.Event]:
        """End of input: calls cut off mid-stream are closed so displays stop waiting for them."""
        if self.state.ended:
            return []
        self.state.ended = True
        return [*self._end_open_calls(), *self._kept_fields()]

    # --- response level ------------------------------------------------------------------------------------------

    def lifecycle(self, data: dict[str, Any]) -> list[ev.Event]:
        response = _dict(data.get("response"))
        if isinstance(response.get("id"), str) and not self.state.response_id:
            self.state.response_id = response["id"]
        if isinstance(response.get("model"), str):
            self.state.model = response["model"]
        return []

    def finished(self, data: dict[str, Any]) -> list[ev.Event]:
        response = _dict(data.get("response"))
        self.lifecycle(data)
        status = "incomplete" if data.get("type") == "response.incomplete" else "completed"
        response = {**response, "status": response.get("status") or status}
        output = response.get("output")
        events = self._unfinished_items(output if isinstance(output, list) else [])
        events.extend(self._end_open_calls())
        if not self.state.items and isinstance(output, list) and output:
            events.extend(self._whole_output(output))  # a server that sends only the final response
        else:
            events.extend(self._kept_fields())
        self.state.ended = True
        return [*events, *ending_events(response)]

    def failed(self, data: dict[str, Any]) -> list[ev.Event]:
        response = _dict(data.get("response"))
        events = [*self._end_open_calls(), *self._kept_fields()]
        if isinstance(response.get("usage"), dict):
            events.append(ev.UsageUpdate(usage_from_wire(response["usage"])))
        if not self.state.error_sent:
            events.append(ev.StreamError(failed_error(response)))
        self.state.ended = True
        return events

    def error(self, data: dict[str, Any]) -> list[ev.Event]:
        self.state.error_sent = True  # response.failed usually follows: the first, more specific error stays
        return [*self._end_open_calls(), ev.StreamError(stream_error(data))]

    # --- output items --------------------------------------------------------------------------------------------

    def item_added(self, data: dict[str, Any]) -> list[ev.Event]:
        item = data.get("item")
        if not isinstance(item, dict):
            return []
        index = _index(data.get("output_index"))
        slot = self._register(len(self.state.items) if index is None else index, item)
        return [self._start(slot)] if slot.type == FUNCTION_CALL else []

    def item_done(self, data: dict[str, Any]) -> list[ev.Event]:
        item = data.get("item")
        if not isinstance(item, dict):
            return []
        index = _index(data.get("output_index"))
        if index is None:
            index = self.state.by_id.get(str(item.get("id")), len(self.state.items))
        events: list[ev.Event] = []
        slot = self.state.items.get(index)
        if slot is None:  # never announced: the done item stands for both
            slot = self._register(index, item)
            if slot.type == FUNCTION_CALL:
                events.append(self._start(slot))
        if slot.done:
            return events
        slot.done = True
        self.state.finished[index] = item
        kind = item_kind(item)
        if kind == FUNCTION_CALL and slot.position is not None:
            events.extend(self._whole_arguments(slot, item.get("arguments")))
            events.append(ev.ToolCallEnd(slot.position))
        elif kind == MESSAGE:
            events.extend(self._missed_text(slot, item))
        else:
            if kind == REASONING:
                events.extend(self._missed_summaries(slot, item))
            events.append(ev.ProviderBlock(item))
        return events

    def text_delta(self, data: dict[str, Any]) -> list[ev.Event]:
        delta = data.get("delta")
        if not isinstance(delta, str) or not delta:
            return []
        slot = self._slot(data) or self._lazy(data, MESSAGE)
        if slot is not None:
            slot.text_parts.add(_index(data.get("content_index")) or 0)
        return [ev.TextDelta(delta)]

    def summary_delta(self, data: dict[str, Any]) -> list[ev.Event]:
        delta = data.get("delta")
        if not isinstance(delta, str) or not delta:
            return []
        slot = self._slot(data) or self._lazy(data, REASONING)
        part = _index(data.get("summary_index")) or 0
        first = slot is None or part not in slot.summary_parts
        if slot is not None:
            slot.summary_parts.add(part)
        return self._reasoning(delta, first)

    def arguments_delta(self, data: dict[str, Any]) -> list[ev.Event]:
        slot = self._slot(data)
        delta = data.get("delta")
        if slot is None or slot.position is None or not isinstance(delta, str) or not delta:
            return []  # a fragment of a call never announced: its whole arguments come with its done item
        slot.got_arguments = True
        return [ev.ToolCallDelta(slot.position, delta)]

    def arguments_done(self, data: dict[str, Any]) -> list[ev.Event]:
        slot = self._slot(data)
        return [] if slot is None else self._whole_arguments(slot, data.get("arguments"))

    # --- helpers -------------------------------------------------------------------------------------------------

    def _register(self, index: int, item: dict[str, Any]) -> OutputItem:
        slot = OutputItem(item_kind(item), str(item.get("id") or ""), item)
        self.state.items[index] = slot
        if slot.id:
            self.state.by_id[slot.id] = index
        return slot

    def _slot(self, data: dict[str, Any]) -> OutputItem | None:
        item_id = data.get("item_id")
        if isinstance(item_id, str) and item_id in self.state.by_id:
            return self.state.items[self.state.by_id[item_id]]
        index = _index(data.get("output_index"))
        return self.state.items.get(index) if index is not None else None

    def _lazy(self, data: dict[str, Any], kind: str) -> OutputItem | None:
        """A text or summary delta for an item never announced: remember it, so its done item adds no repeat."""
        index = _index(data.get("output_index"))
        if index is None:
            return None
        item_id = data.get("item_id")
        return self._register(index, {"type": kind, **({"id": item_id} if isinstance(item_id, str) else {})})

    def _start(self, slot: OutputItem) -> ev.ToolCallStart:
        state = self.state
        slot.position, state.calls = state.calls, state.calls + 1
        item = slot.added
        call_id = item.get("call_id")
        if not isinstance(call_id, str) or not call_id:
            call_id = synthetic_id("call", state.response_id, slot.position)
        return ev.ToolCallStart(slot.position, call_id, str(item.get("name") or ""), call_fields(item, decoded=True))

    def _whole_arguments(self, slot: OutputItem, arguments: Any) -> list[ev.Event]:
        if slot.got_arguments or slot.position is None or not isinstance(arguments, str) or not arguments:
            return []
        slot.got_arguments = True
        return [ev.ToolCallDelta(slot.position, arguments)]

    def _missed_text(self, slot: OutputItem, item: dict[str, Any]) -> list[ev.Event]:
        content = item.get("content")
        if isinstance(content, str):
            return [ev.TextDelta(content)] if content and not slot.text_parts else []
        events: list[ev.Event] = []
        for index, part in enumerate(content if isinstance(content, list) else []):
            if index in slot.text_parts or not isinstance(part, dict) or part.get("type") not in _TEXT_PARTS:
                continue
            if isinstance(part.get("text"), str) and part["text"]:
                events.append(ev.TextDelta(part["text"]))
        return events

    def _missed_summaries(self, slot: OutputItem, item: dict[str, Any]) -> list[ev.Event]:
        events: list[ev.Event] = []
        for index, part in enumerate(item.get("summary") or []):
            text = part.get("text") if isinstance(part, dict) else None
            if index not in slot.summary_parts and isinstance(text, str) and text:
                events.extend(self._reasoning(text, first=True))
        return events

    def _reasoning(self, text: str, first: bool) -> list[ev.Event]:
        events: list[ev.Event] = [ev.ReasoningDelta("\n\n")] if first and self.state.reasoning_sent else []
        self.state.reasoning_sent = True
        return [*events, ev.ReasoningDelta(text)]

    def _end_open_calls(self) -> list[ev.Event]:
        events: list[ev.Event] = []
        for slot in self.state.items.values():
            if slot.position is not None and not slot.done:
                slot.done = True
                events.append(ev.ToolCallEnd(slot.position))
        return events

    def _kept_fields(self) -> list[ev.Event]:
        state = self.state
        if state.fields_sent or not state.finished:
            return []
        state.fields_sent = True
        items = [state.finished[index] for index in sorted(state.finished)]
        fields = turn_fields(items, decoded=True, response_id=state.response_id)
        return [ev.MessageFields(fields)] if fields else []

    def _unfinished_items(self, output: list[Any]) -> list[ev.Event]:
        """Items announced but never done: the final response's copy (matched by id) finishes them."""
        final = {item.get("id"): item for item in output if isinstance(item, dict) and item.get("id")}
        events: list[ev.Event] = []
        for index, slot in list(self.state.items.items()):
            if not slot.done and slot.id in final:
                events.extend(self.item_done({"output_index": index, "item": final[slot.id]}))
        return events

    def _whole_output(self, output: list[Any]) -> list[ev.Event]:
        items = [item for item in output if isinstance(item, dict)]
        message, _ = assistant_from_items(items, decoded=True, response_id=self.state.response_id)
        self.state.fields_sent = True
        return message_events(message)


def _index(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def new_stream_decoder() -> OpenAIResponsesStreamDecoder:
    return OpenAIResponsesStreamDecoder()
