"""Whole (non-streamed) ``GenerateContentResponse`` bodies, both ways.

The first candidate's content is one model turn (see ``assistant``): it becomes the same events a stream gives,
folded by the shared accumulator, so a streamed and a non-streamed turn end as identical messages. ``finishReason``
gives the finish (``wire``), ``usageMetadata`` the counts. Fields with no internal slot are kept in the message's
``provider_data.fields``: the candidate's (``finishMessage``, ``safetyRatings``, ``citationMetadata``,
``avgLogprobs``...) under ``candidate``, the response's (``promptFeedback``, ``createTime``...) under
``response``; ``encode_response`` writes them back. A prompt blocked before any candidate (``promptFeedback.
blockReason``, no ``candidates``) is a ``content_filter`` finish with the block reason as the raw reason. A body
that is an error object becomes a StreamError; one with neither candidates nor a block reason an
``invalid_response`` error.
"""

from __future__ import annotations

from typing import Any

from providers import events as ev
from providers.errors import ProviderError
from providers.gemini.assistant import assistant_from_parts, is_thought, model_parts, normalise
from providers.gemini.errors import encode_error, stream_error
from providers.gemini.wire import NAME, finish_reason, kept_fields, usage_from_wire, usage_to_wire, wire_finish
from providers.streaming import StreamResult, fold
from providers.types import Message

RESPONSE_KEYS = frozenset({"candidates", "usageMetadata", "modelVersion", "responseId"})
CANDIDATE_KEYS = frozenset({"content", "finishReason", "index"})


def response_events(body: dict[str, Any]) -> list[ev.Event]:
    if "candidates" not in body and isinstance(body.get("error"), dict):
        return [ev.StreamError(stream_error(body))]
    candidate = first_candidate(body)
    block = block_reason(body)
    if candidate is None and block is None:
        return [ev.StreamError(ProviderError("invalid_response", "response has no candidates", raw=body))]
    candidate = candidate or {}
    response_id = str(body.get("responseId") or "")
    message, _ = assistant_from_parts(normalise(parts_of(candidate)), seed=response_id, extras=extras(body, candidate))
    events = message_events(message)
    if isinstance(body.get("usageMetadata"), dict):
        events.append(ev.UsageUpdate(usage_from_wire(body["usageMetadata"])))
    raw = candidate.get("finishReason")
    if isinstance(raw, str):
        events.append(finish_event(candidate, raw))
    elif block is not None:
        events.append(ev.Finish("content_filter", block))
    events.append(ev.StreamEnd())  # a whole body has ended, whatever it says
    return events


def finish_event(candidate: dict[str, Any], raw: str) -> ev.Finish:
    """The candidate's finish; an error one carries the candidate's ``finishMessage`` (a MALFORMED_FUNCTION_CALL's
    says which call the model failed to write), which the reason alone does not tell."""
    reason = finish_reason(raw)
    said = candidate.get("finishMessage")
    return ev.Finish(reason, raw, said if reason == "error" and isinstance(said, str) and said else None)


def first_candidate(chunk: dict[str, Any]) -> dict[str, Any] | None:
    """The candidate of index 0 (Crosswire asks for one; others are left out)."""
    candidates = chunk.get("candidates")
    for candidate in candidates if isinstance(candidates, list) else []:
        if isinstance(candidate, dict) and candidate.get("index", 0) == 0:
            return candidate
    return None


def block_reason(chunk: dict[str, Any]) -> str | None:
    feedback = chunk.get("promptFeedback")
    reason = feedback.get("blockReason") if isinstance(feedback, dict) else None
    return reason if isinstance(reason, str) else None


def parts_of(candidate: dict[str, Any]) -> list[dict[str, Any]]:
    content = candidate.get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    return [part for part in parts if isinstance(part, dict)] if isinstance(parts, list) else []


def extras(body: dict[str, Any], candidate: dict[str, Any]) -> dict[str, Any]:
    """The candidate's and the response's fields with no internal slot."""
    kept: dict[str, Any] = {}
    candidate_fields = {key: value for key, value in candidate.items() if key not in CANDIDATE_KEYS}
    if candidate_fields:
        kept["candidate"] = candidate_fields
    response_fields = {key: value for key, value in body.items() if key not in RESPONSE_KEYS}
    if response_fields:
        kept["response"] = response_fields
    return kept


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


def encode_response(result: StreamResult, *, model: str, response_id: str) -> dict[str, Any]:
    """The body generativelanguage.googleapis.com returns; a failed result becomes Google's error body."""
    if result.error is not None:
        return encode_error(result.error)
    fields = kept_fields(result.message)
    body: dict[str, Any] = {}
    if not blocked_prompt(result.message, fields):
        body["candidates"] = [candidate(result, output_parts(result.message), fields)]
    if result.usage:
        body["usageMetadata"] = usage_to_wire(result.usage)
    body["modelVersion"], body["responseId"] = model, response_id
    body.update(fields.get("response") or {})
    return body


def candidate(result: StreamResult, parts: list[dict[str, Any]], fields: dict[str, Any]) -> dict[str, Any]:
    content: dict[str, Any] = {"parts": parts, "role": "model"} if parts else {"role": "model"}
    out: dict[str, Any] = {"content": content}
    reason = wire_finish(result.finish_reason, result.raw_finish_reason) if result.complete else None
    if reason is not None:
        out["finishReason"] = reason
    out["index"] = 0
    out.update(fields.get("candidate") or {})
    return out


def output_parts(message: Message) -> list[dict[str, Any]]:
    """The model parts of a response holding ``message``; reasoning from another format as a thought part."""
    parts = model_parts(message, "", [])
    reasoning = (message.get("provider_data") or {}).get("reasoning")
    if reasoning and not any(is_thought(part) for part in parts):
        parts.insert(0, {"text": reasoning, "thought": True})
    return parts


def blocked_prompt(message: Message, fields: dict[str, Any]) -> bool:
    """A prompt blocked before any candidate was written: the response has only its promptFeedback."""
    return block_reason(fields.get("response") or {}) is not None and not (
        message.get("content") or message.get("tool_calls") or (message.get("provider_data") or {}).get("blocks")
    )
