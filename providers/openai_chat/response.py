"""Whole (non-streamed) OpenAI Chat responses: ``chat.completion`` body <-> the internal events and result.

Quirks handled:

* The body becomes the events a stream would give (reasoning, text, one start/delta/end per call, finish, usage,
  end) and is folded by the shared accumulator, so streamed and whole responses give identical messages.
* ``arguments`` ``null``/``""`` -> ``"{}"`` (via the accumulator); an object instead of a string -> its JSON text.
* A call without an id gets the same synthetic id a stream would give it.
* The legacy ``function_call`` message field (old functions API) becomes a tool call.
* Message fields that carry a value (``reasoning_content``, ``reasoning``, ``reasoning_details``, a non-null
  ``refusal``, non-empty ``annotations``...) are kept in ``provider_data.fields``; the always-present defaults
  (``refusal: null``, ``annotations: []``) are not.
* A body that is an error object (``{"error": {...}}``, no status known here) becomes a StreamError.
* ``encode_response`` writes what api.openai.com returns: ``refusal: null``, ``annotations: []``, ``logprobs:
  null``, ``content: null`` for a tool-only turn, full usage details; a failed result becomes an error body.
"""

from __future__ import annotations

import time
from typing import Any

from providers import events as ev
from providers.errors import ProviderError
from providers.openai_chat.errors import error_body, stream_error
from providers.openai_chat.wire import (
    DEFAULT_REASONING_KEY,
    NAME,
    REASONING_KEYS,
    arguments_text,
    call_fields,
    decode_usage,
    encode_usage,
    map_finish,
    synthetic_id,
    wire_finish,
)
from providers.streaming import StreamResult, fold
from providers.types import Message, ToolCall

_STRUCTURAL = frozenset({"role", "content", "tool_calls", "function_call"})


def response_events(body: dict[str, Any]) -> list[ev.Event]:
    if isinstance(body.get("error"), dict):
        return [ev.StreamError(stream_error(body))]
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        error = ProviderError("invalid_response", "response has no choices", raw=body)
        return [ev.StreamError(error)]
    choice = choices[0]
    message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
    events = _message_events(message, str(body.get("id") or ""))
    reason = choice.get("finish_reason")
    if isinstance(reason, str) and reason:
        events.append(ev.Finish(map_finish(reason), reason))
    if isinstance(body.get("usage"), dict):
        events.append(ev.UsageUpdate(decode_usage(body["usage"])))
    events.append(ev.StreamEnd())
    return events


def decode_response(body: dict[str, Any]) -> StreamResult:
    return fold(response_events(body), NAME)


def _message_events(message: dict[str, Any], response_id: str) -> list[ev.Event]:
    events: list[ev.Event] = []
    for key in REASONING_KEYS:
        if isinstance(message.get(key), str) and message[key]:
            events.append(ev.ReasoningDelta(message[key]))
            break
    text = _text(message.get("content"))
    if text:
        events.append(ev.TextDelta(text))
    for position, call in enumerate(_wire_calls(message)):
        events.extend(_call_events(position, call, response_id))
    fields = {key: value for key, value in message.items() if key not in _STRUCTURAL and value not in (None, [], {})}
    if fields:
        events.append(ev.MessageFields(fields))
    return events


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # a few compat servers answer with content parts
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def _wire_calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        return [call for call in calls if isinstance(call, dict)]
    legacy = message.get("function_call")
    return [{"function": legacy}] if isinstance(legacy, dict) else []


def _call_events(position: int, call: dict[str, Any], response_id: str) -> list[ev.Event]:
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else None
    name = function.get("name") if isinstance(function.get("name"), str) else ""
    start = ev.ToolCallStart(position, call_id or synthetic_id(response_id, position), name, call_fields(call))
    arguments = arguments_text(function.get("arguments"))
    deltas: list[ev.Event] = [ev.ToolCallDelta(position, arguments)] if arguments else []
    return [start, *deltas, ev.ToolCallEnd(position)]


def encode_response(
    result: StreamResult, *, model: str, response_id: str, created: int | None = None
) -> dict[str, Any]:
    if result.error is not None:
        return error_body(result.error)
    choice = {
        "index": 0,
        "message": wire_message(result.message),
        "logprobs": None,
        "finish_reason": wire_finish(result.finish_reason, result.raw_finish_reason),
    }
    return {
        "id": response_id,
        "object": "chat.completion",
        "created": int(time.time()) if created is None else created,
        "model": model,
        "choices": [choice],
        "usage": encode_usage(result.usage),
    }


def wire_message(message: Message) -> dict[str, Any]:
    content = message.get("content")
    wire: dict[str, Any] = {"role": "assistant", "content": content or None, "refusal": None, "annotations": []}
    calls = message.get("tool_calls") or []
    if calls:
        wire["tool_calls"] = [wire_call(call) for call in calls]
    wire.update(same_format_fields(message))
    return wire


def wire_call(call: ToolCall) -> dict[str, Any]:
    function = call["function"]
    wire: dict[str, Any] = {
        "id": call["id"],
        "type": "function",
        "function": {"name": function["name"], "arguments": function.get("arguments") or "{}"},
    }
    data = call.get("provider_data") or {}
    if data.get("format") == NAME:
        wire.update(data.get("fields") or {})
    return wire


def same_format_fields(message: Message) -> dict[str, Any]:
    """The message's kept wire fields, plus its reasoning under the key the server used (``reasoning_content``
    when none was recorded); reasoning from another format is still shown, as DeepSeek-style text."""
    data = message.get("provider_data") or {}
    fields = dict(data.get("fields") or {}) if data.get("format") == NAME else {}
    reasoning = data.get("reasoning")
    if reasoning and not any(key in fields for key in REASONING_KEYS):
        fields[DEFAULT_REASONING_KEY] = reasoning
    return fields
