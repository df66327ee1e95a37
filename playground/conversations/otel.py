"""A conversation as OpenTelemetry spans in OTLP JSON, named and attributed by the GenAI semantic conventions.

One trace per conversation: a root ``invoke_agent Crosswire`` span, a ``chat <model>`` span per model round trip (a
CLIENT call to the provider) and an ``execute_tool <name>`` span per tool call (INTERNAL: Crosswire answers tools
itself). Times come from what was saved: a round trip starts when its request was sent and lasts its total time; a
tool call runs from the end of the round trip that asked for it until its result was saved.

Trace and span ids are hashes of the conversation and the item, so exporting twice gives the same file and a
backend that receives both keeps one trace. The GenAI conventions are still "Development" status; the attributes
used are listed in docs/conversations.md.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from playground.conversations.present import _text

if TYPE_CHECKING:
    from playground.conversations.models import Conversation, Message, RoundTrip

SCOPE = {"name": "crosswire.conversations", "version": "1"}
AGENT_NAME = "Crosswire"
# gen_ai.provider.name's well-known values; an OpenAI-compatible server speaks "openai" as far as the wire goes.
PROVIDERS = {"openai-chat": "openai", "openai-responses": "openai", "anthropic": "anthropic", "gemini": "gcp.gemini"}
SPAN_KIND_INTERNAL = 1
SPAN_KIND_CLIENT = 3
STATUS_ERROR = 2  # OTLP's STATUS_CODE_ERROR; spans that did not fail leave the status unset
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _id(*parts: object, length: int) -> str:
    return hashlib.sha256(":".join(str(p) for p in parts).encode()).hexdigest()[:length]


def trace_id(conversation: Conversation) -> str:
    # The creation time as well as the id: two installations' conversation 7 are different traces.
    return _id("crosswire", conversation.pk, conversation.created_at.isoformat(), length=32)


def _nanos(moment: datetime) -> str:
    """OTLP JSON writes 64-bit integers as strings; computed exactly, not through a float."""
    return str((moment - _EPOCH) // timedelta(microseconds=1) * 1000)


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_value(v) for v in value]}}
    return {"stringValue": str(value)}


def _attributes(values: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": key, "value": _value(value)} for key, value in values.items() if value is not None]


def _span(
    trace: str, span_id: str, parent: str, name: str, kind: int, window: tuple[datetime, datetime]
) -> dict[str, Any]:
    span: dict[str, Any] = {"traceId": trace, "spanId": span_id, "name": name, "kind": kind}
    if parent:
        span["parentSpanId"] = parent
    span["startTimeUnixNano"], span["endTimeUnixNano"] = _nanos(window[0]), _nanos(window[1])
    return span


def conversation_trace(conversation: Conversation) -> dict[str, Any]:
    """The OTLP ``ExportTraceServiceRequest`` (JSON encoding) of the whole conversation."""
    messages = list(conversation.messages.order_by("position"))
    round_trips = list(conversation.round_trips.order_by("position"))
    trace = trace_id(conversation)
    root_id = _id(trace, "conversation", length=16)
    chats = [_chat_span(conversation, rt, trace, root_id) for rt in round_trips]
    ends = {rt.pk: _round_trip_end(rt) for rt in round_trips}
    tools = _tool_spans(conversation, messages, ends, trace, root_id)
    root = _root_span(conversation, messages, round_trips, [*chats, *tools], trace, root_id)
    resource = {"attributes": _attributes({"service.name": "crosswire"})}
    return {
        "resourceSpans": [{"resource": resource, "scopeSpans": [{"scope": SCOPE, "spans": [root, *chats, *tools]}]}]
    }


def _round_trip_end(rt: RoundTrip) -> datetime:
    elapsed = rt.total_ms if rt.total_ms is not None else rt.ttfb_ms
    return rt.started_at + timedelta(milliseconds=elapsed or 0)


def _int(usage: Any, key: str) -> int | None:
    value = usage.get(key) if isinstance(usage, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _server(rt: RoundTrip) -> dict[str, Any]:
    url = str((rt.wire_request or {}).get("url") or "")
    parts = urlsplit(url)
    if not parts.hostname:
        return {}
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return {"server.address": parts.hostname, "server.port": port}


def _chat_span(conversation: Conversation, rt: RoundTrip, trace: str, root_id: str) -> dict[str, Any]:
    model = rt.model or str(rt.request.get("model") or conversation.model)
    provider = PROVIDERS.get(rt.format, rt.format)
    span = _span(
        trace,
        _id(trace, "round-trip", rt.position, length=16),
        root_id,
        f"chat {model}",
        SPAN_KIND_CLIENT,
        (rt.started_at, _round_trip_end(rt)),
    )
    max_tokens, temperature = rt.request.get("max_tokens"), rt.request.get("temperature")
    values: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": provider,
        "gen_ai.system": provider,  # the name before semantic conventions 1.37, which many backends still read
        "gen_ai.conversation.id": str(conversation.pk),
        "gen_ai.request.model": model,
        "gen_ai.request.max_tokens": max_tokens if isinstance(max_tokens, int) else None,
        "gen_ai.request.temperature": float(temperature) if isinstance(temperature, int | float) else None,
        "gen_ai.usage.input_tokens": _int(rt.usage, "prompt_tokens"),
        "gen_ai.usage.output_tokens": _int(rt.usage, "completion_tokens"),
        "gen_ai.response.finish_reasons": [rt.finish_reason] if rt.finish_reason else None,
        **_server(rt),
        "http.response.status_code": rt.status_code,
        "crosswire.round_trip.position": rt.position,
        "crosswire.wire_format": rt.format,
        "crosswire.raw_finish_reason": rt.raw_finish_reason or None,
        "crosswire.ttfb_ms": rt.ttfb_ms,
        "crosswire.complete": rt.complete,
    }
    if rt.error:
        values["error.type"] = str(rt.error.get("type") or rt.status_code or "_OTHER")
        span["status"] = {"code": STATUS_ERROR, "message": str(rt.error.get("message") or "")}
    span["attributes"] = _attributes(values)
    return span


def _tool_spans(
    conversation: Conversation, messages: list[Message], ends: dict[int, datetime], trace: str, root_id: str
) -> list[dict[str, Any]]:
    results = {str(m.data.get("tool_call_id")): m for m in messages if m.role == "tool"}
    descriptions = {t["name"]: t.get("description") or None for t in conversation.tools}
    spans = []
    for message in messages:
        asked_at = ends.get(message.round_trip_id or 0, message.created_at)
        for call in message.data.get("tool_calls") or []:
            name, call_id = call["function"]["name"], call["id"]
            result = results.get(call_id)
            done_at = max(result.created_at, asked_at) if result is not None else asked_at
            span = _span(
                trace,
                _id(trace, "tool", message.position, call_id, length=16),
                root_id,
                f"execute_tool {name}",
                SPAN_KIND_INTERNAL,
                (asked_at, done_at),
            )
            values = {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.call.id": call_id,
                "gen_ai.tool.type": "function",
                "gen_ai.tool.description": descriptions.get(name),
                "gen_ai.tool.call.arguments": call["function"]["arguments"],
                "gen_ai.tool.call.result": _text(result.data.get("content")) if result is not None else None,
                "crosswire.tool.source": (result.meta.get("source") or None) if result is not None else None,
            }
            if result is not None and result.data.get("is_error"):
                values["error.type"] = "tool_error"
                span["status"] = {"code": STATUS_ERROR, "message": "The tool answered with an error."}
            span["attributes"] = _attributes(values)
            spans.append(span)
    return spans


def _total(counts: list[int | None]) -> int | None:
    known = [n for n in counts if n is not None]
    return sum(known) if known else None


def _root_span(
    conversation: Conversation,
    messages: list[Message],
    round_trips: list[RoundTrip],
    children: list[dict[str, Any]],
    trace: str,
    root_id: str,
) -> dict[str, Any]:
    starts = [m.created_at for m in messages] + [rt.started_at for rt in round_trips]
    begin = min(starts, default=conversation.created_at)
    end_nanos = max([int(c["endTimeUnixNano"]) for c in children] + [int(_nanos(t)) for t in starts], default=0)
    span = _span(trace, root_id, "", f"invoke_agent {AGENT_NAME}", SPAN_KIND_INTERNAL, (begin, begin))
    span["endTimeUnixNano"] = str(max(end_nanos, int(span["startTimeUnixNano"])))
    inputs = [_int(rt.usage, "prompt_tokens") for rt in round_trips]
    outputs = [_int(rt.usage, "completion_tokens") for rt in round_trips]
    values = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": AGENT_NAME,
        "gen_ai.conversation.id": str(conversation.pk),
        "gen_ai.provider.name": PROVIDERS.get(conversation.format, conversation.format) or None,
        "gen_ai.request.model": conversation.model or None,
        "gen_ai.usage.input_tokens": _total(inputs),
        "gen_ai.usage.output_tokens": _total(outputs),
        "crosswire.conversation.title": conversation.title or None,
        "crosswire.conversation.status": conversation.status,
    }
    if conversation.status == "error":
        values["error.type"] = "_OTHER"
        span["status"] = {"code": STATUS_ERROR, "message": conversation.status_message}
    span["attributes"] = _attributes(values)
    return span
