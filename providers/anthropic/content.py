"""Content blocks of user, system and tool messages: internal OpenAI parts <-> Anthropic blocks.

Text parts <-> ``text`` blocks; ``image_url`` parts (data URLs and http URLs) <-> ``image`` blocks with a base64 or
url source, in user messages and inside ``tool_result`` content alike (a tool result's content may be a list of
text and image blocks, so a tool's image stays with its result, lossless but for ``detail``). Anthropic takes
JPEG, PNG, GIF and WebP only: the common mislabel ``image/jpg`` is sent as ``image/jpeg``, any other type is sent
as it is with a note (the API will refuse it). Blocks with no internal equivalent (``document``,
``search_result``...) do not appear in the internal content; they survive a same-format round trip through the
kept original (see ``kept_content``).
"""

from __future__ import annotations

import re
from typing import Any

from providers.anthropic.mapping import NAME
from providers.types import Message, ProviderData

DROPPED = "target format has no equivalent"
_DATA_URL = re.compile(r"^data:(?P<media>[^;,]+);base64,(?P<data>.*)$", re.DOTALL)
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")


def is_blank(text: Any) -> bool:
    return not isinstance(text, str) or not text.strip()


# --- internal -> wire --------------------------------------------------------------------------------------------


def part_to_block(part: Any, where: str, notes: list[str]) -> dict[str, Any] | None:
    """One internal content part as an Anthropic block; None (with a note) when it cannot be sent."""
    if isinstance(part, str):
        part = {"type": "text", "text": part}
    kind = part.get("type") if isinstance(part, dict) else None
    if kind == "text":
        if is_blank(part.get("text")):
            notes.append(f"{where}: empty text dropped (Anthropic rejects empty text blocks)")
            return None
        return {"type": "text", "text": part["text"]}
    if kind == "image_url":
        return _image_block(part, where, notes)
    notes.append(f"{where}: {kind or 'untyped'} content part dropped (no Anthropic equivalent)")
    return None


def _image_block(part: dict[str, Any], where: str, notes: list[str]) -> dict[str, Any] | None:
    image = part.get("image_url")
    url = image if isinstance(image, str) else (image or {}).get("url", "")
    if isinstance(image, dict) and image.get("detail"):
        notes.append(f"{where}: image detail `{image['detail']}` dropped (Anthropic has no detail setting)")
    match = _DATA_URL.match(url or "")
    if match:
        source = {"type": "base64", "media_type": _media_type(match["media"], where, notes), "data": match["data"]}
        return {"type": "image", "source": source}
    if url:
        return {"type": "image", "source": {"type": "url", "url": url}}
    notes.append(f"{where}: image part without a URL dropped")
    return None


def _media_type(media: str, where: str, notes: list[str]) -> str:
    if media.lower() == "image/jpg":
        notes.append(f"{where}: image media type `{media}` sent as `image/jpeg` (the name Anthropic takes)")
        return "image/jpeg"
    if media not in IMAGE_TYPES:
        notes.append(f"{where}: image media type `{media}` sent, but Anthropic takes only {', '.join(IMAGE_TYPES)}")
    return media


def content_to_blocks(content: Any, where: str, notes: list[str]) -> list[dict[str, Any]]:
    """Internal content (string, parts or None) as a list of blocks, empty text removed."""
    if content is None:
        return []
    parts = [content] if isinstance(content, str) else content
    blocks = [part_to_block(part, where, notes) for part in parts]
    return [block for block in blocks if block is not None]


# --- wire -> internal --------------------------------------------------------------------------------------------


def block_to_part(block: dict[str, Any]) -> dict[str, Any] | None:
    """The internal part for a block; None when the block has no internal equivalent."""
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return {"type": "text", "text": block["text"]}
    if kind == "image":
        source = block.get("source") or {}
        if source.get("type") == "base64":
            url = f"data:{source.get('media_type', '')};base64,{source.get('data', '')}"
            return {"type": "image_url", "image_url": {"url": url}}
        if source.get("type") == "url":
            return {"type": "image_url", "image_url": {"url": source.get("url", "")}}
    return None


def blocks_to_parts(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    parts = [block_to_part(block) for block in blocks]
    return [part for part in parts if part is not None]


def wire_content_to_internal(content: Any) -> str | list[dict[str, Any]]:
    """A string stays a string, a list of blocks becomes a list of parts: the representation is kept."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return blocks_to_parts([block for block in content if isinstance(block, dict)])


def as_parts(content: Any) -> list[dict[str, Any]]:
    """Content in one comparable shape: a string is one text part, None is no parts."""
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [part if isinstance(part, dict) else {"type": "text", "text": part} for part in content]


# --- the kept original -------------------------------------------------------------------------------------------


def same_format_data(message: Message | dict[str, Any]) -> ProviderData:
    data = message.get("provider_data") or {}
    return data if data.get("format") == NAME else {}


def kept_content(data: ProviderData, current: Any, where: str, notes: list[str]) -> Any | None:
    """The original wire ``content`` kept at import, if the internal content still says the same thing.

    Importing keeps the original in ``provider_data.fields["content"]`` only when re-encoding would not reproduce
    it (citations, cache_control, blocks with no internal equivalent). Once the user has edited the message the two
    differ and the edited message wins.
    """
    fields = data.get("fields") or {}
    if "content" not in fields:
        return None
    original = fields["content"]
    if as_parts(wire_content_to_internal(original)) == as_parts(current):
        return original
    notes.append(f"{where}: edited since import; its Anthropic-only content fields are not sent")
    return None


def extra_fields(data: ProviderData) -> dict[str, Any]:
    """Unknown wire fields to send back; ``content`` is the kept original, handled by ``kept_content``."""
    return {key: value for key, value in (data.get("fields") or {}).items() if key != "content"}


def note_foreign(data: ProviderData | None, where: str, notes: list[str]) -> None:
    """provider_data of another format has no meaning here: say what is left behind."""
    if not data or data.get("format") == NAME:
        return
    origin = data.get("format") or "an unlabelled format"
    if data.get("reasoning") or data.get("blocks"):
        notes.append(f"reasoning dropped: {DROPPED} ({where}, from {origin})")
    if data.get("fields"):
        names = ", ".join(sorted(data["fields"]))
        notes.append(f"{where}: {origin} fields dropped ({names}): {DROPPED}")


# --- tool results ------------------------------------------------------------------------------------------------

_RESULT_KEYS = frozenset({"type", "tool_use_id", "content", "is_error"})


def tool_result_content(content: Any, where: str, notes: list[str]) -> str | list[dict[str, Any]] | None:
    """A tool message's content for a ``tool_result``; None when empty (the block then has no ``content``)."""
    if content is None or content == "":
        return None
    if isinstance(content, str):
        return content
    return content_to_blocks(content, where, notes) or None


def tool_result_block(message: Message, wire_id: str, where: str, notes: list[str]) -> dict[str, Any]:
    data = same_format_data(message)
    note_foreign(message.get("provider_data"), where, notes)
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": wire_id}
    content = message.get("content")
    kept = kept_content(data, content, where, notes)
    value = kept if kept is not None else tool_result_content(content, where, notes)
    if value is not None:
        block["content"] = value
    if "is_error" in message:
        block["is_error"] = bool(message["is_error"])
    extras = {key: value for key, value in extra_fields(data).items() if key not in _RESULT_KEYS}
    return {**block, **extras}


def tool_message_from_block(block: dict[str, Any]) -> Message:
    message: Message = {
        "role": "tool",
        "tool_call_id": block.get("tool_use_id") or "",
        "content": wire_content_to_internal(block.get("content")),
    }
    if "is_error" in block:
        message["is_error"] = bool(block["is_error"])
    fields = {key: value for key, value in block.items() if key not in _RESULT_KEYS}
    if tool_result_content(message["content"], "", []) != block.get("content"):
        fields["content"] = block.get("content")  # blocks with no internal equivalent: resend them as they came
    if fields:
        message["provider_data"] = {"format": NAME, "fields": fields}
    return message
