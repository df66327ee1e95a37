"""Whole (non-streamed) Responses bodies, both ways.

A response's ``output`` is one assistant run (see ``assistant``): it becomes the same events a stream gives, folded
by the shared accumulator, so a streamed and a non-streamed turn end as identical messages. ``status`` and
``incomplete_details`` give the finish (``wire``), ``usage`` the counts; a ``failed`` response is a StreamError from
its ``error``, a ``cancelled`` one a ``cancelled`` error; one still ``in_progress``/``queued`` (background mode)
has no finish yet, so it is incomplete. A body that is an HTTP error object (``{"error": {...}}`` and no
``output``) becomes a StreamError. ``encode_response`` builds the body api.openai.com returns; a failed result
becomes the HTTP error body.
"""

from __future__ import annotations

import time
from typing import Any

from providers import events as ev
from providers.errors import ProviderError
from providers.openai_responses.assistant import assistant_from_items, output_items
from providers.openai_responses.errors import cancelled_error, encode_error, failed_error, stream_error
from providers.openai_responses.wire import NAME, finish_reason, raw_reason, usage_from_wire, usage_to_wire, wire_status
from providers.streaming import StreamResult, fold
from providers.types import Message, Usage


def response_events(body: dict[str, Any]) -> list[ev.Event]:
    if "output" not in body and isinstance(body.get("error"), dict):
        return [ev.StreamError(stream_error(body))]
    output = body.get("output")
    if not isinstance(output, list):
        return [ev.StreamError(ProviderError("invalid_response", "response has no output list", raw=body))]
    response_id = body.get("id") if isinstance(body.get("id"), str) else ""
    items = [item for item in output if isinstance(item, dict)]
    message, _ = assistant_from_items(items, decoded=True, response_id=response_id)
    return [*message_events(message), *ending_events(body)]


def ending_events(response: dict[str, Any]) -> list[ev.Event]:
    """Usage, then the finish and the end (or the error) a response object's status says."""
    events: list[ev.Event] = []
    if isinstance(response.get("usage"), dict):
        events.append(ev.UsageUpdate(usage_from_wire(response["usage"])))
    status = response.get("status") or "completed"  # a compat server that sends no status has finished
    if status == "failed":
        events.append(ev.StreamError(failed_error(response)))
    elif status == "cancelled":
        events.append(ev.StreamError(cancelled_error(response)))
    elif status in ("completed", "incomplete"):
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        events.append(ev.Finish(finish_reason(status, reason), raw_reason(response)))
        events.append(ev.StreamEnd())
    return events


def message_events(message: Message) -> list[ev.Event]:
    """The events that rebuild ``message`` in the accumulator, in stream order."""
    data = message.get("provider_data") or {}
    events: list[ev.Event] = []
    if data.get("reasoning"):
        events.append(ev.ReasoningDelta(data["reasoning"]))
    events.extend(ev.ProviderBlock(block) for block in data.get("blocks") or [])
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


def encode_response(
    result: StreamResult, *, model: str, response_id: str, created: int | None = None
) -> dict[str, Any]:
    if result.error is not None:
        return encode_error(result.error)
    status, reason = wire_status(result.finish_reason, result.raw_finish_reason)
    output = output_items(result.message, response_id)
    return response_object(response_id, model, created, status, output, result.usage, reason)


def response_object(
    response_id: str,
    model: str,
    created: int | None,
    status: str,
    output: list[dict[str, Any]],
    usage: Usage | None,
    incomplete_reason: str | None = None,
    error: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``response`` object as the API returns it (and as stream lifecycle events carry it)."""
    final = status in ("completed", "incomplete", "failed")
    return {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()) if created is None else created,
        "status": status,
        "error": error,
        "incomplete_details": {"reason": incomplete_reason} if incomplete_reason else None,
        "instructions": None,
        "model": model,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": usage_to_wire(usage) if final else None,
        "metadata": {},
    }
