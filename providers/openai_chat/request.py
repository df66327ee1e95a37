"""Requests, internal <-> OpenAI Chat wire body (``POST /v1/chat/completions``).

Near pass-through: the internal request is an OpenAI Chat request plus a few extensions.

* Tool call ids are kept as they are. An empty or missing id is rejected (``TranslationError``): the result that
  answers the call could not name it. Ids over 40 characters are noted (api.openai.com rejects them; other
  providers' ids, e.g. Vertex ones, can be that long).
* Every tool message must directly follow (after other tool messages only) the assistant message holding a call
  with its ``tool_call_id``; anything else is rejected, as OpenAI would. A call left without a result is noted.
  Images of tool messages travel in a user message after the run of tool messages (see ``images``), so the body
  can hold one message more per run than the request.
* ``max_tokens`` stays ``max_tokens``; on import ``max_completion_tokens`` becomes ``max_tokens`` when there is
  no ``max_tokens``. ``reasoning`` has no OpenAI Chat equivalent and is noted.
* ``stream: true`` adds ``stream_options: {include_usage: true}`` (usage only arrives with it); on import that
  implied value is not kept as an unknown field.
* Unknown top-level fields go to ``provider_data.fields`` on import and come back on encode (same format only).
"""

from __future__ import annotations

from typing import Any

from providers.openai_chat.messages import encode_messages, import_message
from providers.openai_chat.wire import NAME
from providers.translation import Translation, TranslationError
from providers.types import ChatRequest

_SETTINGS: tuple[str, ...] = ("tools", "tool_choice", "parallel_tool_calls", "temperature", "max_tokens")
_KNOWN: frozenset[str] = frozenset({"model", "messages", "stream", *_SETTINGS})
_MAX_ID = 40
_INCLUDE_USAGE = {"include_usage": True}


def encode_request(request: ChatRequest, *, tool_call_content: str | None = None) -> Translation[dict[str, Any]]:
    """``tool_call_content``: what an assistant turn with calls and no text sends as content (``None`` = null)."""
    if not isinstance(request, dict):
        raise TranslationError("a request must be a JSON object")
    notes = check_messages(request.get("messages"))
    messages = encode_messages(request["messages"], notes, tool_call_content=tool_call_content)
    body: dict[str, Any] = {"model": request["model"]} if "model" in request else {}
    body["messages"] = messages
    body.update({key: request[key] for key in _SETTINGS if key in request})  # type: ignore[literal-required]
    if request.get("stream"):
        body["stream"] = True
        body["stream_options"] = dict(_INCLUDE_USAGE)
    elif "stream" in request:
        body["stream"] = request["stream"]
    reasoning = request.get("reasoning")
    if reasoning and reasoning.get("enabled", True):
        notes.append("reasoning settings dropped: OpenAI Chat has no equivalent")
    _apply_request_fields(body, request.get("provider_data"), notes)
    return Translation(body, notes)


def import_request(body: dict[str, Any]) -> Translation[ChatRequest]:
    if not isinstance(body, dict):
        raise TranslationError("a request body must be a JSON object")
    notes = check_messages(body.get("messages"))
    request: dict[str, Any] = {key: body[key] for key in ("model", *_SETTINGS) if key in body}
    request["messages"] = [
        import_message(message, position, notes) for position, message in enumerate(body["messages"])
    ]
    if "stream" in body:
        request["stream"] = body["stream"]
    extra = {key: value for key, value in body.items() if key not in _KNOWN}
    if body.get("stream") and extra.get("stream_options") == _INCLUDE_USAGE:
        del extra["stream_options"]  # implied by stream: true, encode_request adds it back
    if "max_tokens" not in request and isinstance(extra.get("max_completion_tokens"), int):
        request["max_tokens"] = extra.pop("max_completion_tokens")
        notes.append("max_completion_tokens imported as max_tokens")
    if extra:
        request["provider_data"] = {"format": NAME, "fields": extra}
    return Translation(request, notes)  # type: ignore[arg-type]


def check_messages(messages: Any) -> list[str]:
    """Reject what no OpenAI-shaped server accepts (unanswerable results, empty ids); return notes on the rest."""
    if not isinstance(messages, list):
        raise TranslationError("messages must be a list of message objects")
    notes: list[str] = []
    open_calls: dict[str, int] = {}  # ids of the last assistant turn -> its position, while only results follow
    answered: set[str] = set()
    for position, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise TranslationError(f"message {position}: not a message object with a string role")
        if message["role"] == "tool":
            answered.add(_result_id(message, position, open_calls))
            continue
        notes.extend(_unanswered(open_calls, answered))
        open_calls, answered = {}, set()
        if message["role"] == "assistant":
            open_calls = {call_id: position for call_id in _call_ids(message, position, notes)}
    notes.extend(_unanswered(open_calls, answered))
    return notes


def _call_ids(message: dict[str, Any], position: int, notes: list[str]) -> list[str]:
    calls = message.get("tool_calls")
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise TranslationError(f"message {position} (assistant): tool_calls must be a list")
    ids: list[str] = []
    for number, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("function", {}), dict):
            raise TranslationError(f"message {position} (assistant): tool call {number} is not a call object")
        call_id = call.get("id")
        if not isinstance(call_id, str) or not call_id.strip():
            raise TranslationError(
                f"message {position} (assistant): tool call {number} has an empty or missing id "
                "(its tool result could not refer to it)"
            )
        if len(call_id) > _MAX_ID:
            notes.append(
                f"message {position}: tool call id {call_id!r} is over {_MAX_ID} characters; OpenAI rejects it"
            )
        ids.append(call_id)
    return ids


def _result_id(message: dict[str, Any], position: int, open_calls: dict[str, int]) -> str:
    call_id = message.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id.strip():
        raise TranslationError(f"message {position} (tool): tool_call_id is empty or missing")
    if call_id not in open_calls:
        raise TranslationError(
            f"message {position} (tool): tool_call_id {call_id!r} matches no tool call of the assistant message "
            "before it (tool results must directly follow the assistant message that made the call)"
        )
    return call_id


def _unanswered(open_calls: dict[str, int], answered: set[str]) -> list[str]:
    return [
        f"message {position}: tool call {call_id!r} has no tool result; OpenAI rejects an unanswered call"
        for call_id, position in open_calls.items()
        if call_id not in answered
    ]


def _apply_request_fields(body: dict[str, Any], data: Any, notes: list[str]) -> None:
    if not data:
        return
    if data.get("format") != NAME:
        names = ", ".join(sorted(data.get("fields") or {})) or "none"
        notes.append(f"request fields of {data.get('format') or 'unknown format'} dropped ({names})")
        return
    for key, value in (data.get("fields") or {}).items():
        if key == "stream_options" and isinstance(value, dict) and "stream_options" in body:
            body[key] = {**value, **body[key]}
        else:
            body.setdefault(key, value)
