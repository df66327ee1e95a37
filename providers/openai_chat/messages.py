"""Messages and tool calls, internal <-> OpenAI Chat wire (the internal format *is* OpenAI Chat, plus extensions).

What changes on the way out:

* ``is_error`` on a tool message has no OpenAI field: the failure is stated in the content instead (``"Error: "``
  prefix, unless the content already starts with "error"), with a note. Importing cannot tell a stated failure
  from a normal result, so ``is_error`` does not come back (lossy by design).
* ``content: null`` is sent only on an assistant message with tool calls and no text (what api.openai.com itself
  returns). Every other message gets ``""`` instead of ``null``: LM Studio and mistral-common reject ``null``,
  and an assistant message without calls must have content. Servers that also reject ``null`` on tool-only turns
  get ``""`` through ``encode_request(..., tool_call_content="")``.
* An empty ``tool_calls`` list is not sent (OpenAI rejects an empty array).
* ``provider_data`` of this format goes back as wire fields: ``fields`` verbatim (``reasoning_content`` for
  DeepSeek/llama.cpp, ``reasoning`` for OpenRouter, ``reasoning_details``, ``refusal``, Gemini compat
  ``extra_content``...); reasoning text without a recorded key is sent as ``reasoning_content``.
  provider_data of another format is dropped, with a note.
* ``arguments``: ``""``/``null``/absent -> ``"{}"``; JSON objects some clients send -> their JSON text; text that
  is not JSON is kept verbatim and noted.
* A tool message holds text only: its ``image_url`` parts go to a user message inserted right after its run of
  tool messages, with a note (``images``). User messages carry ``image_url`` parts as they are.

Importing keeps every unknown message or call field in ``provider_data.fields`` (format ``openai-chat``), and the
reasoning text also in ``provider_data.reasoning`` for display, as the stream decoder does.
"""

from __future__ import annotations

import json
from typing import Any

from providers.openai_chat.images import ToolImages
from providers.openai_chat.wire import CALL_KEYS, DEFAULT_REASONING_KEY, NAME, REASONING_KEYS, arguments_text
from providers.types import Message, ProviderData, ToolCall

MESSAGE_KEYS: frozenset[str] = frozenset({"role", "content", "name", "tool_calls", "tool_call_id"})
_INTERNAL_ONLY: frozenset[str] = frozenset({"provider_data", "is_error"})


def encode_messages(
    messages: list[Message], notes: list[str], *, tool_call_content: str | None = None
) -> list[dict[str, Any]]:
    """Every message in order, plus a user message after each run of tool messages that held images."""
    images = ToolImages(notes)
    wire: list[dict[str, Any]] = []
    for position, message in enumerate(messages):
        if message.get("role") == "tool":
            message = images.take(message, position)
        else:
            wire.extend(images.release())
        wire.append(encode_message(message, position, notes, tool_call_content=tool_call_content))
    wire.extend(images.release())
    return wire


def encode_message(
    message: Message, position: int, notes: list[str], *, tool_call_content: str | None = None
) -> dict[str, Any]:
    where = f"message {position} ({message.get('role')})"
    wire: dict[str, Any] = {key: value for key, value in message.items() if key not in _INTERNAL_ONLY}
    calls = message.get("tool_calls") or []
    if calls:
        wire["tool_calls"] = [encode_call(call, f"{where} call {call.get('id')}", notes) for call in calls]
    else:
        wire.pop("tool_calls", None)
    if message.get("role") == "tool" and message.get("is_error"):
        wire["content"] = _stated_failure(message.get("content"))
        notes.append(f"{where}: is_error has no OpenAI Chat field; the failure is stated in the content")
    wire["content"] = _content(wire.get("content"), bool(calls), tool_call_content)
    _apply_provider_data(wire, message.get("provider_data"), where, notes)
    return wire


def encode_call(call: ToolCall, where: str, notes: list[str]) -> dict[str, Any]:
    function: dict[str, Any] = dict(call.get("function") or {})
    function["arguments"] = normalise_arguments(function.get("arguments"), where, notes)
    if not function.get("name"):
        notes.append(f"{where}: the call has no function name; OpenAI rejects it")
    wire: dict[str, Any] = {key: value for key, value in call.items() if key != "provider_data"}
    wire["type"] = "function"
    wire["function"] = function
    _apply_provider_data(wire, call.get("provider_data"), where, notes)
    return wire


def import_message(wire: dict[str, Any], position: int, notes: list[str]) -> Message:
    where = f"message {position} ({wire.get('role')})"
    message: dict[str, Any] = {key: value for key, value in wire.items() if key in MESSAGE_KEYS}
    calls = wire.get("tool_calls")
    if isinstance(calls, list):
        message["tool_calls"] = [import_call(call, f"{where} call {call.get('id')}", notes) for call in calls]
    else:
        message.pop("tool_calls", None)  # ``null`` from some clients means "no calls"
    extra = {key: value for key, value in wire.items() if key not in MESSAGE_KEYS}
    if extra:
        message["provider_data"] = provider_data_for(extra)
    return message  # type: ignore[return-value]


def import_call(wire: dict[str, Any], where: str, notes: list[str]) -> ToolCall:
    function: dict[str, Any] = dict(wire.get("function") or {})
    function["arguments"] = normalise_arguments(function.get("arguments"), where, notes)
    call: dict[str, Any] = {"id": wire.get("id"), "type": "function", "function": function}
    extra = {key: value for key, value in wire.items() if key not in CALL_KEYS}
    if extra:
        call["provider_data"] = {"format": NAME, "fields": extra}
    return call  # type: ignore[return-value]


def provider_data_for(fields: dict[str, Any]) -> ProviderData:
    data: ProviderData = {"format": NAME, "fields": fields}
    for key in REASONING_KEYS:
        if isinstance(fields.get(key), str) and fields[key]:
            data["reasoning"] = fields[key]
            break
    return data


def normalise_arguments(value: Any, where: str, notes: list[str]) -> str:
    if value is not None and not isinstance(value, str):
        notes.append(f"{where}: arguments were a JSON value, not a string; sent as its JSON text")
    text = arguments_text(value)
    if not text.strip():
        return "{}"
    try:
        json.loads(text)
    except ValueError:
        notes.append(f"{where}: arguments are not valid JSON; kept verbatim: {text[:80]!r}")
    return text


def _content(content: Any, has_calls: bool, tool_call_content: str | None) -> Any:
    if has_calls and (content is None or content == ""):
        return tool_call_content
    return "" if content is None else content


def _stated_failure(content: Any) -> Any:
    if isinstance(content, list):
        return _stated_failure_parts(content)
    text = content if isinstance(content, str) else ""
    if not text:
        return "Error"
    return text if text.lower().startswith("error") else f"Error: {text}"


def _stated_failure_parts(parts: list[Any]) -> list[Any]:
    first = parts[0] if parts else None
    if isinstance(first, dict) and first.get("type") == "text" and isinstance(first.get("text"), str):
        return [{**first, "text": _stated_failure(first["text"])}, *parts[1:]]
    return [{"type": "text", "text": "Error: "}, *parts]


def _apply_provider_data(wire: dict[str, Any], data: ProviderData | None, where: str, notes: list[str]) -> None:
    if not data:
        return
    if data.get("format") != NAME:
        _note_dropped(data, where, notes)
        return
    for key, value in (data.get("fields") or {}).items():
        wire.setdefault(key, value)  # a real field of the message wins over a kept copy
    reasoning = data.get("reasoning")
    if reasoning and not any(key in wire for key in REASONING_KEYS):
        wire[DEFAULT_REASONING_KEY] = reasoning
    if data.get("blocks"):
        notes.append(f"{where}: provider blocks dropped: OpenAI Chat has no slot for them")


def _note_dropped(data: ProviderData, where: str, notes: list[str]) -> None:
    source = data.get("format") or "unknown format"
    if data.get("reasoning") or data.get("blocks"):
        notes.append(f"{where}: reasoning dropped: target format has no equivalent ({source} provider_data)")
    if data.get("fields"):
        names = ", ".join(sorted(data["fields"]))
        notes.append(f"{where}: {source} fields dropped ({names}): target format has no equivalent")
