"""Internal result -> the SSE events api.anthropic.com sends for it (the simulator serves these).

Event order, as recorded: ``message_start`` (``content: []``, usage) -> per block ``content_block_start`` / deltas /
``content_block_stop`` (a ``ping`` after the first block start) -> ``message_delta`` (stop_reason, cumulative usage)
-> ``message_stop``. Thinking: ``thinking_delta`` fragments, then one ``signature_delta`` just before the stop.
``redacted_thinking`` arrives whole in its start. ``tool_use`` starts with ``input: {}``, then ``input_json_delta``
fragments of the argument text as it is (a call without arguments sends one empty fragment). Every event has its
``event:`` line: the SDK silently drops events without one.

A result that ended in an error gets an ``error`` event and no ``message_stop``; an incomplete result without an
error simply stops (no ``message_stop``), like a cut connection.
"""

from __future__ import annotations

import json
from typing import Any

from providers.anthropic.content import same_format_data
from providers.anthropic.errors import encode_error
from providers.anthropic.mapping import IdMap, usage_to_wire, wire_stop_reason
from providers.sse import SSEEvent
from providers.streaming import StreamResult
from providers.types import Message, ToolCall


def encode_stream(result: StreamResult, *, model: str, response_id: str, fragment_size: int = 8) -> list[SSEEvent]:
    if fragment_size < 1:
        raise ValueError("fragment_size must be at least 1")
    out = [_sse("message_start", {"type": "message_start", "message": _start_message(result, model, response_id)})]
    for index, block_events in enumerate(_blocks(result.message, fragment_size)):
        out.extend(block_events)
        if index == 0:
            out.insert(len(out) - len(block_events) + 1, _sse("ping", {"type": "ping"}))
    out.extend(_ending(result))
    return out


def _sse(name: str, payload: dict[str, Any]) -> SSEEvent:
    return SSEEvent(json.dumps(payload, ensure_ascii=False, separators=(",", ":")), name)


def _start_message(result: StreamResult, model: str, response_id: str) -> dict[str, Any]:
    usage = usage_to_wire(result.usage)
    usage["output_tokens"] = min(usage["output_tokens"], 1)  # as recorded: the real count comes in message_delta
    return {
        "id": response_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }


def _ending(result: StreamResult) -> list[SSEEvent]:
    if result.error is not None:
        return [_sse("error", encode_error(result.error))]
    out = []
    if result.finish_reason is not None or result.complete:
        delta = {"stop_reason": wire_stop_reason(result.finish_reason, result.raw_finish_reason), "stop_sequence": None}
        out.append(
            _sse("message_delta", {"type": "message_delta", "delta": delta, "usage": usage_to_wire(result.usage)})
        )
    if result.complete:
        out.append(_sse("message_stop", {"type": "message_stop"}))
    return out


# --- blocks ------------------------------------------------------------------------------------------------------


def _blocks(message: Message, size: int) -> list[list[SSEEvent]]:
    """Events per content block, in the order the encoded request would hold them."""
    blocks: list[list[SSEEvent]] = []
    for block in same_format_data(message).get("blocks") or []:
        blocks.append(_provider_block(len(blocks), block, size))
    text = _text(message.get("content"))
    if text:
        start = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": piece} for piece in _cut(text, size)]
        blocks.append(_block(len(blocks), start, deltas))
    ids = IdMap()
    for call in message.get("tool_calls") or []:
        blocks.append(_tool_use(len(blocks), call, ids, size))
    return blocks


def _block(index: int, start: dict[str, Any], deltas: list[dict[str, Any]]) -> list[SSEEvent]:
    events = [_sse("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})]
    for delta in deltas:
        events.append(_sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
    events.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events


def _provider_block(index: int, block: dict[str, Any], size: int) -> list[SSEEvent]:
    if block.get("type") != "thinking":
        return _block(index, block, [])  # redacted_thinking (and anything else opaque) arrives whole
    deltas = [{"type": "thinking_delta", "thinking": piece} for piece in _cut(block.get("thinking") or "", size)]
    deltas.append({"type": "signature_delta", "signature": block.get("signature") or ""})
    return _block(index, {**block, "thinking": "", "signature": ""}, deltas)


def _tool_use(index: int, call: ToolCall, ids: IdMap, size: int) -> list[SSEEvent]:
    function = call.get("function") or {}
    fields = (call.get("provider_data") or {}).get("fields") if same_format_data(call) else None  # type: ignore[arg-type]
    start = {
        "type": "tool_use",
        "id": ids.wire_id(call.get("id"), f"tool call {function.get('name')}", []),
        "name": function.get("name") or "",
        "input": {},
        **{key: value for key, value in (fields or {}).items() if key not in ("type", "id", "name", "input")},
    }
    arguments = function.get("arguments") or ""
    pieces = [""] if arguments == "{}" or not arguments.strip() else _cut(arguments, size)
    return _block(index, start, [{"type": "input_json_delta", "partial_json": piece} for piece in pieces])


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def _cut(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]
