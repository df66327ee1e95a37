"""Internal result -> the SSE events api.openai.com sends for it (what a simulator serves, what the CLI encodes).

Event order, as recorded (wire-formats.md §2.3): ``response.created`` and ``response.in_progress`` (the response
object, ``in_progress``, empty output) -> per output item ``response.output_item.added`` (the item as it starts:
``in_progress``, empty content or arguments) -> its parts -> ``response.output_item.done`` (the final item) ->
``response.completed`` (or ``response.incomplete`` for a length or content-filter finish) with the whole output and
the usage. Parts: a message streams each ``output_text`` part between ``content_part.added`` and ``.done``
(``output_text.delta`` pieces, then ``output_text.done``); a reasoning item each summary part between
``reasoning_summary_part.added``/``.done`` (``reasoning_summary_text.delta`` pieces, then ``.done``), its
``encrypted_content`` only in the done item; a function call streams ``function_call_arguments.delta`` pieces then
``.done``. Text and arguments are cut into ``fragment_size``-character pieces. Every event has its ``event:`` line
and a ``sequence_number`` counting from 0. There is no ``[DONE]``.

A failed result ends with an ``error`` event then ``response.failed`` (as recorded for ``insufficient_quota``); an
incomplete one (``complete`` false, no error) stops after its items, like a connection cut mid-stream.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from providers.openai_responses.assistant import item_kind, output_items
from providers.openai_responses.errors import error_event, failed_code
from providers.openai_responses.response import response_object
from providers.openai_responses.wire import FUNCTION_CALL, MESSAGE, REASONING, wire_status
from providers.sse import SSEEvent
from providers.streaming import StreamResult


@dataclass
class _Writer:
    """The events of one response, numbered as they are written."""

    size: int
    events: list[SSEEvent] = field(default_factory=list)

    def emit(self, name: str, payload: dict[str, Any]) -> None:
        body = {"type": name, **payload, "sequence_number": len(self.events)}
        self.events.append(SSEEvent(json.dumps(body, ensure_ascii=False, separators=(",", ":")), name))

    def pieces(self, text: str) -> list[str]:
        return [text[start : start + self.size] for start in range(0, len(text), self.size)]


def encode_stream(
    result: StreamResult, *, model: str, response_id: str, fragment_size: int = 8, created: int | None = None
) -> list[SSEEvent]:
    if fragment_size < 1:
        raise ValueError("fragment_size must be at least 1")
    created = int(time.time()) if created is None else created
    writer = _Writer(fragment_size)
    started = response_object(response_id, model, created, "in_progress", [], None)
    writer.emit("response.created", {"response": started})
    writer.emit("response.in_progress", {"response": started})
    items = output_items(result.message, response_id)
    for index, item in enumerate(items):
        _ITEMS.get(item_kind(item), _opaque)(writer, index, item)
    if result.error is not None:
        writer.emit("error", error_event(result.error))
        failure = {"code": failed_code(result.error), "message": result.error.message}
        failed = response_object(response_id, model, created, "failed", items, result.usage, error=failure)
        writer.emit("response.failed", {"response": failed})
    elif result.complete:
        status, reason = wire_status(result.finish_reason, result.raw_finish_reason)
        final = response_object(response_id, model, created, status, items, result.usage, reason)
        writer.emit(f"response.{status}", {"response": final})
    return writer.events


def _message(writer: _Writer, index: int, item: dict[str, Any]) -> None:
    content = item.get("content")
    if not isinstance(content, list):
        return _opaque(writer, index, item)
    where = {"item_id": item.get("id", ""), "output_index": index}
    writer.emit(
        "response.output_item.added", {"output_index": index, "item": {**item, "status": "in_progress", "content": []}}
    )
    for part_index, part in enumerate(content):
        at = {**where, "content_index": part_index}
        text = part.get("text") if isinstance(part, dict) else None
        if not isinstance(part, dict) or part.get("type") != "output_text" or not isinstance(text, str):
            writer.emit("response.content_part.added", {**at, "part": part})
            writer.emit("response.content_part.done", {**at, "part": part})
            continue
        writer.emit("response.content_part.added", {**at, "part": {**part, "text": ""}})
        for piece in writer.pieces(text):
            writer.emit("response.output_text.delta", {**at, "delta": piece, "logprobs": []})
        writer.emit("response.output_text.done", {**at, "text": text, "logprobs": []})
        writer.emit("response.content_part.done", {**at, "part": part})
    writer.emit("response.output_item.done", {"output_index": index, "item": item})


def _call(writer: _Writer, index: int, item: dict[str, Any]) -> None:
    where = {"item_id": item.get("id", ""), "output_index": index}
    arguments = item.get("arguments") if isinstance(item.get("arguments"), str) else ""
    writer.emit(
        "response.output_item.added",
        {"output_index": index, "item": {**item, "status": "in_progress", "arguments": ""}},
    )
    for piece in writer.pieces(arguments):
        writer.emit("response.function_call_arguments.delta", {**where, "delta": piece})
    writer.emit("response.function_call_arguments.done", {**where, "arguments": arguments})
    writer.emit("response.output_item.done", {"output_index": index, "item": item})


def _reasoning(writer: _Writer, index: int, item: dict[str, Any]) -> None:
    where = {"item_id": item.get("id", ""), "output_index": index}
    # The added item has no summary yet, and no encrypted content: only the done item's is complete.
    start = {key: value for key, value in item.items() if key != "encrypted_content"}
    writer.emit("response.output_item.added", {"output_index": index, "item": {**start, "summary": []}})
    for part_index, part in enumerate(item.get("summary") or []):
        at = {**where, "summary_index": part_index}
        text = part.get("text") if isinstance(part, dict) and isinstance(part.get("text"), str) else ""
        writer.emit("response.reasoning_summary_part.added", {**at, "part": {"type": "summary_text", "text": ""}})
        for piece in writer.pieces(text):
            writer.emit("response.reasoning_summary_text.delta", {**at, "delta": piece})
        writer.emit("response.reasoning_summary_text.done", {**at, "text": text})
        writer.emit("response.reasoning_summary_part.done", {**at, "part": part})
    writer.emit("response.output_item.done", {"output_index": index, "item": item})


def _opaque(writer: _Writer, index: int, item: dict[str, Any]) -> None:
    writer.emit("response.output_item.added", {"output_index": index, "item": item})
    writer.emit("response.output_item.done", {"output_index": index, "item": item})


_ITEMS: dict[str, Callable[[_Writer, int, dict[str, Any]], None]] = {
    MESSAGE: _message,
    FUNCTION_CALL: _call,
    REASONING: _reasoning,
}
