"""User and tool messages <-> Gemini ``parts`` (the model side is in ``assistant``).

* Text parts <-> ``{"text"}``; ``image_url`` data URLs <-> ``{"inlineData": {"mimeType", "data"}}``; other image
  URLs <-> ``{"fileData": {"mimeType", "fileUri"}}`` (the type guessed from the name, ``image/jpeg`` when it says
  nothing). Empty text is dropped (Gemini rejects an empty text part); a single text part imports as a string.
* A tool message is a ``functionResponse`` part: ``name`` is the called function's (Gemini requires it and pairs on
  it), ``id`` only when the call had one, and ``response`` an object: ``{"result": <content>}``, or
  ``{"error": <content>}`` for a failed tool (``is_error``). Importing reads those two shapes back; any other
  ``response`` object becomes its JSON text, and is resent as it came while that text is unedited.
* ``response`` is JSON, so a tool message's images cannot go in it: its text goes there (``IMAGE_PLACEHOLDER`` when
  it has none) and its images become ``inlineData``/``fileData`` parts of the same user content, after all the
  function responses (``tool_images``, placed by ``messages``), with a note. Importing reads such parts as a user
  message after the tool messages: which result an image belonged to is not on the wire.
* Parts with no internal equivalent (audio, PDFs, ``videoMetadata``...) are kept whole in ``provider_data.fields``
  and resent while the internal content still reads the same (the edited message wins).
"""

from __future__ import annotations

import mimetypes
import re
from typing import Any

from providers.gemini.wire import NAME, compact, kept_fields, note_foreign, plural
from providers.types import Message

_DATA_URL = re.compile(r"^data:(?P<mime>[^;,]+);base64,(?P<data>.*)$", re.DOTALL)
IMAGE_PLACEHOLDER = "[image attached after the function responses]"
_RESPONSE_KEYS = frozenset({"name", "id", "response"})


# --- internal -> wire --------------------------------------------------------------------------------------------


def content_to_parts(content: Any, where: str, notes: list[str]) -> list[dict[str, Any]]:
    if content is None:
        return []
    items = [content] if isinstance(content, str) else content if isinstance(content, list) else []
    parts = [_part(item, where, notes) for item in items]
    return [part for part in parts if part is not None]


def _part(item: Any, where: str, notes: list[str]) -> dict[str, Any] | None:
    if isinstance(item, str):
        item = {"type": "text", "text": item}
    kind = item.get("type") if isinstance(item, dict) else None
    if kind == "text" and isinstance(item.get("text"), str):
        if not item["text"]:
            notes.append(f"{where}: empty text dropped (Gemini rejects an empty text part)")
            return None
        return {"text": item["text"]}
    if kind == "image_url":
        return _image(item, where, notes)
    notes.append(f"{where}: {kind or 'untyped'} content part dropped (no Gemini equivalent)")
    return None


def _image(item: dict[str, Any], where: str, notes: list[str]) -> dict[str, Any] | None:
    image = item.get("image_url")
    url = image if isinstance(image, str) else (image or {}).get("url") if isinstance(image, dict) else None
    if not isinstance(url, str) or not url:
        notes.append(f"{where}: image part without a URL dropped")
        return None
    if isinstance(image, dict) and image.get("detail"):
        notes.append(f"{where}: image detail `{image['detail']}` dropped (Gemini has no detail setting)")
    match = _DATA_URL.match(url)
    if match:
        return {"inlineData": {"mimeType": match["mime"], "data": match["data"]}}
    return {"fileData": {"mimeType": mimetypes.guess_type(url)[0] or "image/jpeg", "fileUri": url}}


def user_parts(message: Message, where: str, notes: list[str]) -> list[dict[str, Any]]:
    """The parts of a user message: the kept original while unedited, else the translated content."""
    note_foreign(message.get("provider_data"), where, notes)
    content = message.get("content")
    kept = kept_fields(message).get("parts")
    if isinstance(kept, list):
        if _comparable(content_from_parts(kept)) == _comparable(content):
            return [dict(part) for part in kept if isinstance(part, dict)]
        notes.append(f"{where}: edited since import; its Gemini-only parts are not sent")
    return content_to_parts(content, where, notes)


def function_response_part(
    message: Message, name: str, wire_id: str | None, where: str, notes: list[str]
) -> dict[str, Any]:
    note_foreign(message.get("provider_data"), where, notes)
    fields = kept_fields(message)
    extras = fields.pop("functionResponse", None)
    extras = extras if isinstance(extras, dict) else {}
    body: dict[str, Any] = {"name": name, **({"id": wire_id} if wire_id else {})}
    body["response"] = _response(message, extras.get("response"), where, notes)
    for key, value in extras.items():
        if key in ("id", "name") and value is None:
            body.pop(key, None)  # the original response had none, though the call did
        elif key != "response":
            body[key] = value
    return {"functionResponse": body, **fields}


def tool_images(message: Message, where: str, notes: list[str]) -> list[dict[str, Any]]:
    """The images of a tool message as parts, to send after the function responses of its user content."""
    content = message.get("content")
    images = [item for item in content if _is_image(item)] if isinstance(content, list) else []
    parts = [part for part in (_image(item, where, notes) for item in images) if part is not None]
    if parts:
        notes.append(
            f"{where}: {plural(len(parts), 'image')} sent after the function responses, in the same user content "
            "(a Gemini functionResponse holds JSON only)"
        )
    return parts


def _is_image(item: Any) -> bool:
    return isinstance(item, dict) and item.get("type") == "image_url"


def _response(message: Message, kept: Any, where: str, notes: list[str]) -> dict[str, Any]:
    """``{"result": text}`` / ``{"error": text}``, or the object kept at import while its text is unedited."""
    text = _text(message.get("content"), where, notes)
    if isinstance(kept, dict) and compact(kept) == text:
        return kept
    if kept is not None:
        notes.append(f"{where}: edited since import; its response object is sent as text")
    return {"error" if message.get("is_error") else "result": text}


def _text(content: Any, where: str, notes: list[str]) -> str:
    if isinstance(content, list):
        texts = [part.get("text") for part in content if isinstance(part, dict) and part.get("type") == "text"]
        images = sum(1 for part in content if _is_image(part))  # sent beside the response (``tool_images``)
        if len(texts) + images < len(content):
            notes.append(f"{where}: non-text parts of a tool result dropped (the response is text)")
        text = "".join(text for text in texts if isinstance(text, str))
        return IMAGE_PLACEHOLDER if images and not text else text
    return content if isinstance(content, str) else ""


def _comparable(content: Any) -> Any:
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content


# --- wire -> internal --------------------------------------------------------------------------------------------


def content_from_parts(parts: list[Any]) -> str | list[dict[str, Any]]:
    """Internal content for user parts: one text part is a string; parts without an equivalent are left out."""
    converted = [_internal(part) for part in parts if isinstance(part, dict)]
    items = [item for item in converted if item is not None]
    if len(items) == 1 and items[0]["type"] == "text":
        return items[0]["text"]
    return items


def _internal(part: dict[str, Any]) -> dict[str, Any] | None:
    if set(part) == {"text"} and isinstance(part["text"], str):
        return {"type": "text", "text": part["text"]}
    inline = part.get("inlineData") if set(part) == {"inlineData"} else None
    if isinstance(inline, dict) and str(inline.get("mimeType", "")).startswith("image/"):
        return {"type": "image_url", "image_url": {"url": f"data:{inline['mimeType']};base64,{inline.get('data', '')}"}}
    file = part.get("fileData") if set(part) == {"fileData"} else None
    if isinstance(file, dict) and str(file.get("mimeType", "")).startswith("image/") and file.get("fileUri"):
        return {"type": "image_url", "image_url": {"url": file["fileUri"]}}
    return None


def user_message(parts: list[dict[str, Any]], extras: dict[str, Any]) -> Message:
    content = content_from_parts(parts)
    message: Message = {"role": "user", "content": content}
    fields = dict(extras)
    if content_to_parts(content, "", []) != parts:
        fields["parts"] = parts  # parts with no internal equivalent: resent as they came while unedited
    if fields:
        message["provider_data"] = {"format": NAME, "fields": fields}
    return message


def tool_message(part: dict[str, Any], call_id: str, call_wire_id: str | None, call_name: str) -> Message:
    """A ``functionResponse`` part answering the call ``call_id`` as an internal tool message."""
    body = part["functionResponse"]
    response = body.get("response")
    message: Message = {"role": "tool", "tool_call_id": call_id, "content": ""}
    extras = {key: value for key, value in body.items() if key not in _RESPONSE_KEYS}
    if body.get("id") != call_wire_id:
        extras["id"] = body.get("id")  # an id the call did not have (or another one): resent as it came
    if body.get("name") != call_name:
        extras["name"] = body.get("name")
    if _single_text(response, "result"):
        message["content"] = response["result"]
    elif _single_text(response, "error"):
        message["content"], message["is_error"] = response["error"], True
    else:
        message["content"] = compact(response)
        extras["response"] = response
    fields = {key: value for key, value in part.items() if key != "functionResponse"}
    if extras:
        fields["functionResponse"] = extras
    if fields:
        message["provider_data"] = {"format": NAME, "fields": fields}
    return message


def _single_text(response: Any, key: str) -> bool:
    return isinstance(response, dict) and set(response) == {key} and isinstance(response[key], str)
