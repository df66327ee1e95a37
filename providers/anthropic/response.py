"""Whole (non-streamed) Messages responses, both ways.

A response body becomes the same events a stream gives, folded by the shared accumulator, so a streamed and a
non-streamed turn end as identical messages. ``encode_response`` builds the body api.anthropic.com returns.
"""

from __future__ import annotations

from typing import Any

from providers import events as ev
from providers.anthropic.assistant import assistant_from_wire, assistant_to_blocks
from providers.anthropic.errors import error_from_event
from providers.anthropic.mapping import NAME, IdMap, finish_reason, usage_from_wire, usage_to_wire, wire_stop_reason
from providers.streaming import StreamResult, fold
from providers.types import Message


def response_events(body: dict[str, Any]) -> list[ev.Event]:
    if body.get("type") == "error":
        return [ev.StreamError(error_from_event(body))]
    message, _ = assistant_from_wire(body.get("content") or [])
    events = message_events(message)
    if isinstance(body.get("usage"), dict):
        events.append(ev.UsageUpdate(usage_from_wire(body["usage"])))
    if body.get("stop_reason") is not None:
        events.append(ev.Finish(finish_reason(body["stop_reason"]), body["stop_reason"]))
    events.append(ev.StreamEnd())
    return events


def message_events(message: Message) -> list[ev.Event]:
    """The events that rebuild ``message`` in the accumulator, in stream order."""
    data = message.get("provider_data") or {}
    events: list[ev.Event] = []
    for block in data.get("blocks") or []:
        if block.get("type") == "thinking" and block.get("thinking"):
            events.append(ev.ReasoningDelta(block["thinking"]))
        events.append(ev.ProviderBlock(block))
    if message.get("content"):
        events.append(ev.TextDelta(str(message["content"])))
    for position, call in enumerate(message.get("tool_calls") or []):
        fields = (call.get("provider_data") or {}).get("fields")
        events.append(ev.ToolCallStart(position, call["id"], call["function"]["name"], fields or None))
        events.append(ev.ToolCallDelta(position, call["function"]["arguments"]))
        events.append(ev.ToolCallEnd(position))
    if data.get("fields"):
        events.append(ev.MessageFields(data["fields"]))
    return events


def decode_response(body: dict[str, Any]) -> StreamResult:
    return fold(response_events(body), NAME)


def encode_response(result: StreamResult, *, model: str, response_id: str) -> dict[str, Any]:
    """A Messages response body; errors are not bodies of this shape (see ``errors.encode_error``)."""
    return {
        "id": response_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": assistant_to_blocks(result.message, IdMap(), [], "response"),
        "stop_reason": wire_stop_reason(result.finish_reason, result.raw_finish_reason),
        "stop_sequence": None,
        "usage": usage_to_wire(result.usage),
    }
