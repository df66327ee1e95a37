"""User, system, developer and tool messages <-> Responses input items (the assistant side is in ``assistant``).

* A message is an input item ``{"role", "content"}``: a string stays a string; text parts become ``input_text``,
  ``image_url`` parts ``input_image`` (``detail`` is required by the API: ``auto`` when none is given, and ``auto``
  reads back as no detail). Parts with no Responses equivalent are dropped with a note.
* A tool message is a ``function_call_output`` item paired on ``call_id``; its ``output`` is the content (a string,
  or ``input_text``/``input_image`` parts). ``is_error`` has no field: the failure is stated in the output instead
  (``"Error: "`` prefix), with a note; importing cannot tell it from a normal result (lossy by design).
* ``name`` on a message has no Responses field: dropped, with a note.
* Importing keeps every other key of an item (``type: "message"``, an item ``id``, ``status``) in
  ``provider_data.fields``, and content with parts that have no internal equivalent (``input_file``, audio...) whole
  in ``fields["content"]``, resent while the internal content still reads the same (the edited message wins).
"""

from __future__ import annotations

from typing import Any

from providers.openai_responses.wire import FUNCTION_CALL_OUTPUT, NAME, note_foreign, same_format
from providers.types import Message

_MESSAGE_KEYS = frozenset({"role", "content"})
_OUTPUT_KEYS = frozenset({"type", "call_id", "output"})


# --- internal -> wire --------------------------------------------------------------------------------------------


def encode_message(message: Message, where: str, notes: list[str]) -> dict[str, Any]:
    note_foreign(message.get("provider_data"), where, notes)
    if message.get("name"):
        notes.append(f"{where}: name `{message['name']}` dropped (Responses messages have no name)")
    fields = _extra(message)
    content = message.get("content")
    kept = _kept_content(fields, content, where, notes)
    wire = {key: value for key, value in fields.items() if key != "content"}
    wire["role"] = message.get("role")
    wire["content"] = kept if kept is not None else _content(content, where, notes)
    return wire


def encode_tool_message(message: Message, where: str, notes: list[str]) -> dict[str, Any]:
    note_foreign(message.get("provider_data"), where, notes)
    fields = _extra(message)
    content: Any = message.get("content")
    if message.get("is_error"):
        content = _stated_failure(content)
        notes.append(f"{where}: is_error has no Responses field; the failure is stated in the output")
    kept = _kept_content(fields, content, where, notes)
    output = kept if kept is not None else _content("" if content is None else content, where, notes)
    wire: dict[str, Any] = {"type": FUNCTION_CALL_OUTPUT, "call_id": message.get("tool_call_id"), "output": output}
    wire.update({key: value for key, value in fields.items() if key not in _OUTPUT_KEYS and key != "content"})
    return wire


def _content(content: Any, where: str, notes: list[str]) -> str | list[dict[str, Any]]:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = [_part(part, where, notes) for part in content]
    return [part for part in parts if part is not None]


def _part(part: Any, where: str, notes: list[str]) -> dict[str, Any] | None:
    if isinstance(part, str):
        return {"type": "input_text", "text": part}
    kind = part.get("type") if isinstance(part, dict) else None
    if kind == "text" and isinstance(part.get("text"), str):
        return {"type": "input_text", "text": part["text"]}
    if kind == "image_url":
        image = part.get("image_url")
        url = image if isinstance(image, str) else (image or {}).get("url")
        if not url:
            notes.append(f"{where}: image part without a URL dropped")
            return None
        detail = (image.get("detail") if isinstance(image, dict) else None) or "auto"
        return {"type": "input_image", "image_url": url, "detail": detail}
    notes.append(f"{where}: {kind or 'untyped'} content part dropped (no Responses equivalent)")
    return None


def _stated_failure(content: Any) -> Any:
    if isinstance(content, list):
        first = content[0] if content else None
        if isinstance(first, dict) and first.get("type") == "text" and isinstance(first.get("text"), str):
            return [{**first, "text": _stated_failure(first["text"])}, *content[1:]]
        return [{"type": "text", "text": "Error: "}, *content]
    text = content if isinstance(content, str) else ""
    if not text:
        return "Error"
    return text if text.lower().startswith("error") else f"Error: {text}"


def _extra(message: Message) -> dict[str, Any]:
    return dict(same_format(message).get("fields") or {})


def _kept_content(fields: dict[str, Any], current: Any, where: str, notes: list[str]) -> Any | None:
    """The original wire content kept at import, while the internal content still reads the same."""
    if "content" not in fields:
        return None
    original = fields["content"]
    if content_from_wire(original) == _comparable(current):
        return original
    notes.append(f"{where}: edited since import; its Responses-only content parts are not sent")
    return None


def _comparable(content: Any) -> Any:
    return "" if content is None else content


# --- wire -> internal --------------------------------------------------------------------------------------------


def message_from_item(item: dict[str, Any]) -> Message:
    content = item.get("content")
    message: Message = {"role": item.get("role"), "content": content_from_wire(content)}  # type: ignore[typeddict-item]
    fields = {key: value for key, value in item.items() if key not in _MESSAGE_KEYS}
    if _content(message["content"], "", []) != content:
        fields["content"] = content  # parts with no internal equivalent: resent as they came while unedited
    if fields:
        message["provider_data"] = {"format": NAME, "fields": fields}
    return message


def tool_message_from_item(item: dict[str, Any]) -> Message:
    output = item.get("output")
    message: Message = {"role": "tool", "tool_call_id": item.get("call_id"), "content": content_from_wire(output)}  # type: ignore[typeddict-item]
    fields = {key: value for key, value in item.items() if key not in _OUTPUT_KEYS}
    if _content(message["content"], "", []) != output:
        fields["content"] = output
    if fields:
        message["provider_data"] = {"format": NAME, "fields": fields}
    return message


def content_from_wire(content: Any) -> str | list[dict[str, Any]]:
    """A string stays a string; parts become internal parts (those without an equivalent are left out)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [_internal_part(part) for part in content if isinstance(part, dict)]
    return [part for part in parts if part is not None]


def _internal_part(part: dict[str, Any]) -> dict[str, Any] | None:
    kind = part.get("type")
    if kind in ("input_text", "output_text") and isinstance(part.get("text"), str):
        return {"type": "text", "text": part["text"]}
    if kind == "input_image" and isinstance(part.get("image_url"), str) and part["image_url"]:
        image: dict[str, Any] = {"url": part["image_url"]}
        if part.get("detail") not in (None, "auto"):
            image["detail"] = part["detail"]
        return {"type": "image_url", "image_url": image}
    return None
