"""An internal result -> the SSE events api.openai.com sends for it (what the simulator serves).

As recorded (wire-formats.md §1.3): every chunk carries ``id``, ``object: "chat.completion.chunk"`` (the SDK's
``.stream()`` skips chunks without it), ``created``, ``model`` and ``choices``, plus ``usage: null`` when usage
was asked for; the first chunk holds only the role; a call's first fragment alone has ``id``, ``type`` and
``name``, with ``arguments: ""``; arguments follow in ``fragment_size``-character pieces; ``finish_reason`` comes
in its own empty-delta chunk, then one ``choices: []`` chunk with the usage, then ``data: [DONE]``.

Reasoning (``provider_data.reasoning``) is streamed first as compat servers do, under the key the source server
used when it was recorded (this format only), else ``reasoning_content``. Text is cut like the arguments.

A failed result ends with OpenRouter's in-stream ``{"error": {...}}`` chunk and no ``[DONE]``; an incomplete one
(``complete`` false, no error) stops after its content, like a connection cut mid-stream.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from providers.openai_chat.errors import error_body
from providers.openai_chat.response import same_format_fields, wire_call
from providers.openai_chat.wire import DONE, REASONING_KEYS, encode_usage, wire_finish
from providers.sse import SSEEvent
from providers.streaming import StreamResult
from providers.types import Message, ToolCall


@dataclass(frozen=True)
class _Chunks:
    """The fields every chunk of one response repeats."""

    response_id: str
    model: str
    created: int
    include_usage: bool

    def event(self, body: dict[str, Any]) -> SSEEvent:
        head = {"id": self.response_id, "object": "chat.completion.chunk", "created": self.created, "model": self.model}
        return SSEEvent(json.dumps({**head, **body}, ensure_ascii=False, separators=(",", ":")))

    def delta(self, delta: dict[str, Any], finish_reason: str | None = None) -> SSEEvent:
        body: dict[str, Any] = {
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}]
        }
        if self.include_usage:
            body["usage"] = None
        return self.event(body)


def encode_stream(
    result: StreamResult,
    *,
    model: str,
    response_id: str,
    fragment_size: int = 8,
    include_usage: bool = True,
    created: int | None = None,
) -> list[SSEEvent]:
    if fragment_size < 1:
        raise ValueError("fragment_size must be at least 1")
    chunks = _Chunks(response_id, model, int(time.time()) if created is None else created, include_usage)
    message = result.message
    events = [chunks.delta(_role_delta(message))]
    events.extend(_reasoning(chunks, message, fragment_size))
    content = message.get("content")
    if isinstance(content, str):
        events.extend(chunks.delta({"content": piece}) for piece in _pieces(content, fragment_size))
    for position, call in enumerate(message.get("tool_calls") or []):
        events.extend(_call(chunks, position, call, fragment_size))
    events.extend(_ending(chunks, result))
    return events


def _role_delta(message: Message) -> dict[str, Any]:
    tool_only = bool(message.get("tool_calls")) and not message.get("content")
    return {"role": "assistant", "content": None if tool_only else "", "refusal": None}


def _reasoning(chunks: _Chunks, message: Message, size: int) -> list[SSEEvent]:
    reasoning = (message.get("provider_data") or {}).get("reasoning")
    if not reasoning:
        return []
    fields = same_format_fields(message)
    key = next(key for key in REASONING_KEYS if key in fields)
    return [chunks.delta({key: piece}) for piece in _pieces(reasoning, size)]


def _call(chunks: _Chunks, position: int, call: ToolCall, size: int) -> list[SSEEvent]:
    head = {"index": position, **wire_call(call)}
    arguments = head["function"]["arguments"]
    head["function"] = {"name": head["function"]["name"], "arguments": ""}
    events = [chunks.delta({"tool_calls": [head]})]
    for piece in _pieces(arguments, size):
        events.append(chunks.delta({"tool_calls": [{"index": position, "function": {"arguments": piece}}]}))
    return events


def _ending(chunks: _Chunks, result: StreamResult) -> list[SSEEvent]:
    if result.error is not None:
        return [chunks.event(error_body(result.error))]
    if not result.complete:
        return []
    events = [chunks.delta({}, wire_finish(result.finish_reason, result.raw_finish_reason))]
    if chunks.include_usage:
        events.append(chunks.event({"choices": [], "usage": encode_usage(result.usage)}))
    events.append(SSEEvent(DONE))
    return events


def _pieces(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]
