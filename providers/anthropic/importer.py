"""Anthropic Messages request body -> internal ChatRequest (what a pasted or recorded request becomes).

The reverse of ``request.py``: the top-level ``system`` becomes system messages at the start; a user message's
``tool_result`` blocks become ``role: "tool"`` messages (results first), its other blocks one user message after
them; an assistant message keeps thinking blocks in ``provider_data.blocks``. Whatever has no internal slot is kept
in ``provider_data.fields`` of format ``anthropic`` (unknown request keys verbatim; ``system``, ``tools``,
``tool_choice``, ``thinking`` or a message's ``content`` whole, when re-encoding would not give them back), so
``encode_request(import_request(body))`` sends the same request.
"""

from __future__ import annotations

from typing import Any

from providers.anthropic.assistant import assistant_from_wire
from providers.anthropic.content import blocks_to_parts, content_to_blocks, tool_message_from_block
from providers.anthropic.mapping import NAME, plural, tool_choice_from_wire, tool_choice_to_wire
from providers.anthropic.toplevel import (
    needs_keeping,
    reasoning_from_wire,
    system_from_wire,
    system_to_wire,
    thinking_to_wire,
    tools_from_wire,
    tools_to_wire,
)
from providers.translation import Translation, TranslationError
from providers.types import ChatRequest, Message

_KNOWN = frozenset(
    {"model", "messages", "system", "max_tokens", "temperature", "stream", "tools", "tool_choice", "thinking"}
)
_PLAIN_TEXT_KEYS = {"type", "text"}


def import_request(body: dict[str, Any]) -> Translation[ChatRequest]:
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        raise TranslationError("an Anthropic Messages request needs a `messages` list")
    notes: list[str] = []
    request: ChatRequest = {}
    if "model" in body:
        request["model"] = body["model"]
    system = system_from_wire(body.get("system"))
    if system:
        notes.append(f"top-level `system` became {plural(len(system), 'system message')} at the start")
    request["messages"] = system + _messages(body["messages"], notes)
    for key in ("max_tokens", "temperature", "stream"):
        if key in body:
            request[key] = body[key]  # type: ignore[literal-required]
    kept = {key: value for key, value in body.items() if key not in _KNOWN}
    if kept:
        notes.append(f"request fields kept in provider_data for {NAME}: {', '.join(kept)}")
    _top_level(body, request, kept, notes)
    if kept:
        request["provider_data"] = {"format": NAME, "fields": kept}
    return Translation(request, notes)


def _top_level(body: dict[str, Any], request: ChatRequest, kept: dict[str, Any], notes: list[str]) -> None:
    """tools, tool_choice, thinking and system: the internal value, plus the original when it would not come back."""
    known = set(kept)
    _derived(body, request, kept)
    for key in (key for key in kept if key not in known):
        notes.append(f"`{key}` kept whole in provider_data for {NAME} (it has fields with no internal equivalent)")


def _derived(body: dict[str, Any], request: ChatRequest, kept: dict[str, Any]) -> None:
    if "tools" in body:
        request["tools"] = tools_from_wire(body["tools"])
        if needs_keeping(body["tools"], tools_from_wire, lambda tools: tools_to_wire(tools, None, [])):
            kept["tools"] = body["tools"]
    if "tool_choice" in body:
        _tool_choice(body["tool_choice"], request, kept)
    if "thinking" in body:
        reasoning = reasoning_from_wire(body["thinking"])
        if reasoning is not None:
            request["reasoning"] = reasoning
        if needs_keeping(body["thinking"], reasoning_from_wire, lambda r: thinking_to_wire(r, None, [])[0]):
            kept["thinking"] = body["thinking"]
    if "system" in body and needs_keeping(body["system"], system_from_wire, lambda m: system_to_wire(m, None, [])):
        kept["system"] = body["system"]


def _tool_choice(wire: Any, request: ChatRequest, kept: dict[str, Any]) -> None:
    choice, parallel = tool_choice_from_wire(wire) if isinstance(wire, dict) else (None, None)
    if choice is not None:
        request["tool_choice"] = choice
    if parallel is not None:
        request["parallel_tool_calls"] = parallel
    if needs_keeping(wire, tool_choice_from_wire, lambda pair: tool_choice_to_wire(pair[0], pair[1], [])):
        kept["tool_choice"] = wire


# --- messages ----------------------------------------------------------------------------------------------------


def _messages(wire_messages: list[Any], notes: list[str]) -> list[Message]:
    messages: list[Message] = []
    for position, wire in enumerate(wire_messages):
        if not isinstance(wire, dict):
            raise TranslationError(f"message {position} is not an object")
        role = wire.get("role")
        if role == "assistant":
            message, message_notes = assistant_from_wire(wire.get("content"))
            notes.extend(f"message {position}: {note}" for note in message_notes)
            messages.append(_with_fields(message, wire))
        elif role == "user":
            messages.extend(_user(position, wire, notes))
        else:
            raise TranslationError(f"message {position}: role {role!r} is neither user nor assistant")
    return messages


def _user(position: int, wire: dict[str, Any], notes: list[str]) -> list[Message]:
    content = wire.get("content")
    if not isinstance(content, list):
        return [_with_fields({"role": "user", "content": content if isinstance(content, str) else ""}, wire)]
    blocks = [block for block in content if isinstance(block, dict)]
    results = [block for block in blocks if block.get("type") == "tool_result"]
    others = [block for block in blocks if block.get("type") != "tool_result"]
    messages = [tool_message_from_block(block) for block in results]
    if len(results) > 1:
        notes.append(f"message {position}: {len(results)} tool_result blocks became {len(results)} tool messages")
    if results and others and blocks.index(results[0]) > blocks.index(others[0]):
        notes.append(f"message {position}: tool results placed before the user text (internal order)")
    if others or not results:
        messages.append(_user_message(others, bool(results), wire))
    elif set(wire) - {"role", "content"}:
        notes.append(f"message {position}: message fields dropped (a results-only message has no internal home)")
    return messages


def _user_message(blocks: list[dict[str, Any]], after_results: bool, wire: dict[str, Any]) -> Message:
    """After tool results a lone plain text block reads back as a string: the encoder merges it back as a block."""
    single_text = len(blocks) == 1 and set(blocks[0]) == _PLAIN_TEXT_KEYS and isinstance(blocks[0]["text"], str)
    content: str | list[dict[str, Any]] = (
        blocks[0]["text"] if after_results and single_text else blocks_to_parts(blocks)
    )
    message = _with_fields({"role": "user", "content": content}, wire)
    if content_to_blocks(content, "", []) != blocks:
        data = message.setdefault("provider_data", {"format": NAME})
        data["fields"] = {**data.get("fields", {}), "content": blocks}
    return message


def _with_fields(message: Message, wire: dict[str, Any]) -> Message:
    fields = {key: value for key, value in wire.items() if key not in ("role", "content")}
    if fields:
        data = message.setdefault("provider_data", {"format": NAME})
        data["fields"] = {**data.get("fields", {}), **fields}
    return message
