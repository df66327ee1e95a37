"""Assistant turns: an internal assistant message <-> an Anthropic assistant ``content`` list.

Used by requests (history), by imports and by whole responses, so every path builds the same blocks:
``provider_data.blocks`` first (thinking with its signature, redacted_thinking: resent unchanged), then the text,
then one ``tool_use`` per call. Anything else a provider put in the turn (citations on text, server-tool blocks,
text after a tool_use) is kept whole in ``provider_data.fields["content"]`` and resent while the turn is unedited.
"""

from __future__ import annotations

from typing import Any

from providers.anthropic.content import DROPPED, content_to_blocks, extra_fields, note_foreign, same_format_data
from providers.anthropic.mapping import NAME, IdMap, arguments_to_input, input_to_arguments, plural
from providers.translation import TranslationError
from providers.types import Message, ProviderData, ToolCall

REASONING_BLOCKS = frozenset({"thinking", "redacted_thinking"})
_TOOL_USE_KEYS = frozenset({"type", "id", "name", "input"})


# --- internal -> wire --------------------------------------------------------------------------------------------


def assistant_to_blocks(message: Message, ids: IdMap, notes: list[str], where: str) -> list[dict[str, Any]]:
    data = same_format_data(message)
    note_foreign(message.get("provider_data"), where, notes)
    kept = _kept_turn(message, data, ids, notes, where)
    if kept is not None:
        return kept
    blocks: list[dict[str, Any]] = [dict(block) for block in data.get("blocks") or []]
    blocks += _text_blocks(message.get("content"), bool(message.get("tool_calls")), where, notes)
    for position, call in enumerate(message.get("tool_calls") or []):
        blocks.append(tool_use_block(call, ids, notes, f"{where} call {position}"))
    return blocks


def _text_blocks(content: Any, has_calls: bool, where: str, notes: list[str]) -> list[dict[str, Any]]:
    if content is None or (content == "" and has_calls):
        return []  # a tool-only turn: OpenAI's null/"" content simply has no Anthropic block
    return content_to_blocks(content, where, notes)


def tool_use_block(call: ToolCall, ids: IdMap, notes: list[str], where: str) -> dict[str, Any]:
    function = call.get("function") or {}
    name = function.get("name")
    where = f"{where} ({name})" if name else where
    if not name:
        raise TranslationError(f"{where}: the tool call has no function name; Anthropic requires one")
    data = call.get("provider_data") or {}
    extras = extra_fields(data) if data.get("format") == NAME else {}
    if data and data.get("format") != NAME:
        notes.append(f"{where}: {data.get('format') or 'unlabelled'} call fields dropped: {DROPPED}")
    block = {
        "type": "tool_use",
        "id": ids.wire_id(call.get("id"), where, notes),
        "name": name,
        "input": arguments_to_input(function.get("arguments"), where, notes),
    }
    return {**block, **{key: value for key, value in extras.items() if key not in _TOOL_USE_KEYS}}


def _kept_turn(
    message: Message, data: ProviderData, ids: IdMap, notes: list[str], where: str
) -> list[dict[str, Any]] | None:
    """The turn exactly as imported, if the message was not edited since (see the module docstring)."""
    original = (data.get("fields") or {}).get("content")
    if not isinstance(original, list):
        return None
    imported, _ = assistant_from_wire(original)
    if _turn_view(imported) != _turn_view(message):
        notes.append(f"{where}: the assistant turn was edited since import; its extra Anthropic blocks are not sent")
        return None
    notes.append(f"{where}: assistant turn sent exactly as imported (it holds Anthropic-only blocks or fields)")
    return [_with_wire_id(block, ids, notes, where) for block in original]


def _turn_view(message: Message) -> tuple[Any, Any, Any]:
    calls = [{**call, "provider_data": None} for call in message.get("tool_calls") or []]
    return message.get("content") or None, calls, (message.get("provider_data") or {}).get("blocks")


def _with_wire_id(block: dict[str, Any], ids: IdMap, notes: list[str], where: str) -> dict[str, Any]:
    if block.get("type") != "tool_use":
        return block
    return {**block, "id": ids.wire_id(block.get("id"), where, notes)}


# --- wire -> internal --------------------------------------------------------------------------------------------


def assistant_from_wire(content: Any) -> tuple[Message, list[str]]:
    """An Anthropic assistant ``content`` (string or blocks) as one internal assistant message, plus notes."""
    if isinstance(content, str):
        return {"role": "assistant", "content": content}, []
    blocks = [block for block in content or [] if isinstance(block, dict)]
    kept = [block for block in blocks if block.get("type") in REASONING_BLOCKS]
    texts = [block.get("text") or "" for block in blocks if block.get("type") == "text"]
    calls = [tool_call_from_block(block) for block in blocks if block.get("type") == "tool_use"]
    message: Message = {"role": "assistant", "content": "".join(texts) or None}
    if calls:
        message["tool_calls"] = calls
    data: ProviderData = {}
    if kept:
        data["blocks"] = kept
    reasoning = "".join(block.get("thinking") or "" for block in kept if block.get("type") == "thinking")
    if reasoning:
        data["reasoning"] = reasoning
    notes = _reasoning_notes(kept)
    if data:
        data["format"] = NAME
        message["provider_data"] = data
    if not _reproduces(message, blocks):
        message["provider_data"] = {**data, "format": NAME, "fields": {"content": blocks}}
        notes.append(f"assistant content kept whole for {NAME} ({_unusual(blocks)})")
    return message, notes


def tool_call_from_block(block: dict[str, Any]) -> ToolCall:
    call: ToolCall = {
        "id": block.get("id") or "",
        "type": "function",
        "function": {"name": block.get("name") or "", "arguments": input_to_arguments(block.get("input"))},
    }
    extras = {key: value for key, value in block.items() if key not in _TOOL_USE_KEYS}
    if extras:
        call["provider_data"] = {"format": NAME, "fields": extras}
    return call


def _reproduces(message: Message, blocks: list[dict[str, Any]]) -> bool:
    try:
        return assistant_to_blocks(message, IdMap(), [], "") == blocks
    except TranslationError:
        return False


def _reasoning_notes(kept: list[dict[str, Any]]) -> list[str]:
    if not kept:
        return []
    thinking = sum(1 for block in kept if block.get("type") == "thinking")
    counts = [plural(thinking, "thinking block")] if thinking else []
    if len(kept) > thinking:
        counts.append(plural(len(kept) - thinking, "redacted_thinking block"))
    return [f"{' and '.join(counts)} kept unchanged in provider_data, to be sent back first"]


def _unusual(blocks: list[dict[str, Any]]) -> str:
    known = {"text", "tool_use", *REASONING_BLOCKS}
    unknown = sorted({str(block.get("type")) for block in blocks if block.get("type") not in known})
    if unknown:
        return "blocks with no internal equivalent: " + ", ".join(unknown)
    return "block fields or an order the internal message cannot hold"
