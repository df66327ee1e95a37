"""Assistant turns: an internal assistant message <-> the run of assistant-side Responses items that makes it.

An assistant turn on this wire is a run of items: ``reasoning`` items, an assistant ``message`` (its text),
``function_call`` items, and whatever else the model produced (hosted-tool calls, ``item_reference``...). Every path
(request history, imports, whole responses, streams) maps a run the same way:

* ``reasoning`` items (with ``encrypted_content`` and ``summary``) and any other item with no internal slot are kept
  verbatim in ``provider_data.blocks`` and resent unchanged, first in the run, so each reasoning item still comes
  right before the item that followed it (the API rejects a reasoning item sent without its following item). The
  summaries' text is also in ``provider_data.reasoning`` (parts joined with a blank line), for display only.
* The text of the message item(s) is the internal ``content``. The message item itself (its ``id``, ``status``,
  ``phase``, ``annotations``...) is kept, without its text, in ``provider_data.fields["message"]`` and rebuilt around
  the (possibly edited) text; a plain ``{"role": "assistant", "content": "..."}`` needs nothing kept.
* Each ``function_call`` is one internal tool call: ``call_id`` is the internal id (what the output pairs on), the
  item's own ``id`` (``fc_...``) and any other field go to the call's ``provider_data.fields``. Decoded responses
  leave out ``status`` (always ``completed`` in a finished answer, ``in_progress`` when a stream announces a call).
* A run the internal message cannot hold exactly (a call before the text, two message items, a refusal part...) is
  also kept whole in ``provider_data.fields["items"]`` and resent as it was while the turn is unedited.
"""

from __future__ import annotations

import json
from typing import Any

from providers.openai_responses.wire import (
    CALL_KEYS,
    FUNCTION_CALL,
    MESSAGE,
    NAME,
    REASONING,
    arguments_text,
    note_foreign,
    same_format,
    synthetic_id,
)
from providers.types import Message, ProviderData, ToolCall


def item_kind(item: dict[str, Any]) -> str:
    """The item's type; an item without one is a message when it has a role (an "easy input message")."""
    kind = item.get("type")
    if kind is None and "role" in item:
        return MESSAGE
    return str(kind)


def text_of(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "".join(
        part["text"]
        for part in parts
        if isinstance(part, dict)
        and part.get("type") in ("output_text", "input_text")
        and isinstance(part.get("text"), str)
    )


def reasoning_text(blocks: list[dict[str, Any]]) -> str:
    texts = [
        part.get("text")
        for block in blocks
        if block.get("type") == REASONING
        for part in block.get("summary") or []
        if isinstance(part, dict)
    ]
    return "\n\n".join(text for text in texts if isinstance(text, str) and text)


# --- internal -> wire --------------------------------------------------------------------------------------------


def assistant_items(message: Message, where: str, notes: list[str]) -> list[dict[str, Any]]:
    """The run of input items for an assistant message (empty when it holds nothing to send)."""
    note_foreign(message.get("provider_data"), where, notes)
    data = same_format(message)
    kept = _kept_items(message, data, where, notes)
    if kept is not None:
        return kept
    items: list[dict[str, Any]] = [dict(block) for block in data.get("blocks") or [] if isinstance(block, dict)]
    text = _text(message.get("content"), where, notes)
    if text:
        item = message_item(text, (data.get("fields") or {}).get("message"))
        if item is None:
            notes.append(f"{where}: the text was edited since import; sent as a plain assistant message")
            item = {"role": "assistant", "content": text}
        items.append(item)
    for position, call in enumerate(message.get("tool_calls") or []):
        items.append(call_item(call, f"{where} call {position}", notes))
    return items


def output_items(message: Message, response_id: str) -> list[dict[str, Any]]:
    """The ``output`` of a response holding ``message``: every item with an id and a final status."""
    data = same_format(message)
    kept = _kept_items(message, data, "", [])
    if kept is not None:
        return kept
    items: list[dict[str, Any]] = [dict(block) for block in data.get("blocks") or [] if isinstance(block, dict)]
    reasoning = (message.get("provider_data") or {}).get("reasoning")
    if reasoning and not any(item.get("type") == REASONING for item in items):
        # reasoning from another format (or without its item): shown as a summary the SDKs can read
        summary = [{"type": "summary_text", "text": reasoning}]
        items.insert(0, {"id": synthetic_id("rs", response_id, 0), "type": REASONING, "summary": summary})
    text = _text(message.get("content"), "", [])
    if text:
        items.append(_output_message(text, (data.get("fields") or {}).get("message"), response_id, len(items)))
    for call in message.get("tool_calls") or []:
        items.append(call_item(call, "", [], output_id=synthetic_id("fc", response_id, len(items))))
    return items


def message_item(text: str, meta: Any) -> dict[str, Any] | None:
    """The message item kept without its text, around ``text``; None when the kept item cannot hold this text."""
    if meta is None:
        return {"role": "assistant", "content": text}
    if not isinstance(meta, dict):
        return None
    content = meta.get("content")
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict) and "text" not in content[0]:
        return {key: [{**content[0], "text": text}] if key == "content" else value for key, value in meta.items()}
    return dict(meta) if text_of(meta) == text else None


def call_item(call: ToolCall, where: str, notes: list[str], *, output_id: str | None = None) -> dict[str, Any]:
    """A ``function_call`` item; ``output_id``: write an output item (an id and a status are then required)."""
    function = call.get("function") or {}
    name = function.get("name")
    if not name:
        notes.append(f"{where}: the call has no function name; OpenAI rejects it")
    note_foreign(call.get("provider_data"), where, notes)
    fields = {key: value for key, value in (same_format(call).get("fields") or {}).items() if key not in CALL_KEYS}
    item: dict[str, Any] = {"type": FUNCTION_CALL}
    if "id" in fields:
        item["id"] = fields.pop("id")  # the item id (fc_...), apart from the call_id the result pairs on
    elif output_id is not None:
        item["id"] = output_id
    item["call_id"] = call.get("id")
    item["name"] = name or ""
    item["arguments"] = arguments_text(function.get("arguments"), where, notes)
    item.update(fields)
    if output_id is not None:
        item.setdefault("status", "completed")
    return item


def _output_message(text: str, meta: Any, response_id: str, index: int) -> dict[str, Any]:
    item = message_item(text, meta)
    if item is None or not isinstance(item.get("content"), list):
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
        item = {"type": MESSAGE, "status": "completed", "content": [part], "role": "assistant"}
    item.setdefault("id", synthetic_id("msg", response_id, index))
    return item


def _text(content: Any, where: str, notes: list[str]) -> str:
    if isinstance(content, list):
        notes.append(f"{where}: content parts sent as one text (a Responses assistant message is text)")
        return "".join(part.get("text") or "" for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def _kept_items(message: Message, data: ProviderData, where: str, notes: list[str]) -> list[dict[str, Any]] | None:
    """The run exactly as it came, if the message was not edited since (see the module docstring)."""
    original = (data.get("fields") or {}).get("items")
    if not isinstance(original, list) or not all(isinstance(item, dict) for item in original):
        return None
    imported, _ = assistant_from_items(original)
    if _view(imported) != _view(message):
        notes.append(f"{where}: the assistant turn was edited since import; its kept items are not sent")
        return None
    notes.append(f"{where}: assistant turn sent exactly as it came (its items do not fit an internal message)")
    return [dict(item) for item in original]


def _view(message: Message) -> tuple[Any, Any, Any]:
    calls = [
        (call.get("id"), (call.get("function") or {}).get("name"), (call.get("function") or {}).get("arguments"))
        for call in message.get("tool_calls") or []
    ]
    return message.get("content") or None, calls, (message.get("provider_data") or {}).get("blocks")


# --- wire -> internal --------------------------------------------------------------------------------------------


def assistant_from_items(
    items: list[dict[str, Any]], *, decoded: bool = False, response_id: str = ""
) -> tuple[Message, list[str]]:
    """A run of assistant-side items as one internal message, plus notes. ``decoded``: items of a response."""
    message = _bare_message(items, decoded, response_id)
    fields = _fields(message, items, decoded)
    if fields:
        data = message.setdefault("provider_data", {"format": NAME})
        data["fields"] = fields
    notes = []
    if "items" in fields:
        notes.append(f"assistant items kept whole for {NAME} ({_unusual(items)})")
    return message, notes


def turn_fields(items: list[dict[str, Any]], *, decoded: bool, response_id: str = "") -> dict[str, Any]:
    """The message-level fields kept for a run: what a stream decoder adds once the run is complete."""
    return _fields(_bare_message(items, decoded, response_id), items, decoded)


def call_from_item(item: dict[str, Any], position: int, *, decoded: bool, response_id: str = "") -> ToolCall:
    call_id = item.get("call_id")
    call: ToolCall = {
        "id": call_id if isinstance(call_id, str) and call_id else synthetic_id("call", response_id, position),
        "type": "function",
        "function": {"name": str(item.get("name") or ""), "arguments": _arguments(item.get("arguments"))},
    }
    fields = call_fields(item, decoded=decoded)
    if fields:
        call["provider_data"] = {"format": NAME, "fields": fields}
    return call


def call_fields(item: dict[str, Any], *, decoded: bool) -> dict[str, Any] | None:
    fields = {key: value for key, value in item.items() if key not in CALL_KEYS and not (decoded and key == "status")}
    return fields or None


def message_meta(item: dict[str, Any]) -> dict[str, Any] | None:
    """What the internal message keeps of a message item besides its text (None for a plain one)."""
    content = item.get("content")
    if set(item) == {"role", "content"} and isinstance(content, str):
        return None
    if (
        isinstance(content, list)
        and len(content) == 1
        and isinstance(content[0], dict)
        and content[0].get("type") == "output_text"
        and isinstance(content[0].get("text"), str)
    ):
        part = {key: value for key, value in content[0].items() if key != "text"}
        return {key: [part] if key == "content" else value for key, value in item.items()}
    return dict(item)


def _arguments(value: Any) -> str:
    text = value if isinstance(value, str) else ("" if value is None else json.dumps(value, ensure_ascii=False))
    return text if text.strip() else "{}"


def _bare_message(items: list[dict[str, Any]], decoded: bool, response_id: str) -> Message:
    messages = [item for item in items if item_kind(item) == MESSAGE]
    calls = [item for item in items if item_kind(item) == FUNCTION_CALL]
    blocks = [item for item in items if item_kind(item) not in (MESSAGE, FUNCTION_CALL)]
    message: Message = {"role": "assistant", "content": "".join(text_of(item) for item in messages) or None}
    if calls:
        message["tool_calls"] = [
            call_from_item(item, position, decoded=decoded, response_id=response_id)
            for position, item in enumerate(calls)
        ]
    data: ProviderData = {}
    if blocks:
        data["blocks"] = blocks
    reasoning = reasoning_text(blocks)
    if reasoning:
        data["reasoning"] = reasoning
    if data:
        message["provider_data"] = {"format": NAME, **data}
    return message


def _fields(message: Message, items: list[dict[str, Any]], decoded: bool) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    messages = [item for item in items if item_kind(item) == MESSAGE]
    meta = message_meta(messages[0]) if len(messages) == 1 else None
    if meta is not None:
        fields["message"] = meta
    candidate: Message = {**message}
    if fields:
        candidate["provider_data"] = {**(message.get("provider_data") or {"format": NAME}), "fields": dict(fields)}
    expected = [_normal(item, decoded) for item in items]
    if assistant_items(candidate, "", []) != expected:
        fields["items"] = items
    return fields


def _normal(item: dict[str, Any], decoded: bool) -> dict[str, Any]:
    if decoded and item_kind(item) == FUNCTION_CALL:
        return {key: value for key, value in item.items() if key != "status"}
    return item


def _unusual(items: list[dict[str, Any]]) -> str:
    if sum(1 for item in items if item_kind(item) == MESSAGE) > 1:
        return "several message items"
    return "item fields or an order the internal message cannot hold"
