"""Top-level request fields both ways: ``system``, ``tools`` and ``thinking``.

Each ``*_to_wire`` takes the value kept at import (``provider_data.fields`` of this format) and sends it unchanged
while importing it still gives what the internal request says (so ``cache_control`` on a system block or a tool, and
server tools, survive a same-format round trip); once the request was edited, the edited value wins.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from providers.anthropic.content import as_parts, content_to_blocks
from providers.anthropic.mapping import DEFAULT_THINKING_BUDGET, MIN_THINKING_BUDGET, plural
from providers.translation import TranslationError
from providers.types import Message, ReasoningConfig, ToolSpec

_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def unchanged(kept: Any, current: Any, importer: Callable[[Any], Any]) -> bool:
    """Does the kept wire value still import to what the internal request now says?"""
    if kept is None:
        return False
    try:
        return bool(importer(kept) == current)
    except (TranslationError, AttributeError, TypeError, KeyError):
        return False


def needs_keeping(wire: Any, importer: Callable[[Any], Any], encoder: Callable[[Any], Any]) -> bool:
    """True when importing then encoding ``wire`` would not give it back: the original must be kept."""
    try:
        return bool(encoder(importer(wire)) != wire)
    except (TranslationError, AttributeError, TypeError, KeyError):
        return True


# --- system ------------------------------------------------------------------------------------------------------


def system_to_wire(messages: list[Message], kept: Any, notes: list[str]) -> str | list[dict[str, Any]] | None:
    if not messages:
        return None
    contents = [as_parts(message.get("content")) for message in messages]
    if unchanged(kept, contents, lambda wire: [as_parts(m.get("content")) for m in system_from_wire(wire)]):
        notes.append("top-level `system` sent exactly as imported")
        return kept
    if len(messages) == 1 and isinstance(messages[0].get("content"), str) and messages[0]["content"].strip():
        notes.append("system message moved to the top-level `system` field")
        return messages[0]["content"]
    blocks = _system_blocks(messages, notes)
    if not blocks:
        notes.append("empty system message dropped")
        return None
    notes.append(
        f"{plural(len(messages), 'system message')} sent in order as the top-level `system` field "
        f"({plural(len(blocks), 'text block')})"
    )
    return blocks


def _system_blocks(messages: list[Message], notes: list[str]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for position, message in enumerate(messages):
        for block in content_to_blocks(message.get("content"), f"system message {position}", notes):
            if block["type"] == "text":
                blocks.append(block)
            else:
                notes.append(f"system message {position}: {block['type']} dropped (system takes text only)")
    return blocks


def system_from_wire(system: Any) -> list[Message]:
    """A string is one system message; a list of text blocks is one system message per block, in order."""
    if system is None or system == "":
        return []
    if isinstance(system, str):
        return [{"role": "system", "content": system}]
    return [{"role": "system", "content": block.get("text") or ""} for block in system if isinstance(block, dict)]


# --- tools -------------------------------------------------------------------------------------------------------


def tools_to_wire(tools: list[ToolSpec], kept: Any, notes: list[str]) -> list[dict[str, Any]]:
    if unchanged(kept, tools, tools_from_wire):
        notes.append("tools sent exactly as imported (with their Anthropic-only fields)")
        return list(kept)
    wire = []
    for position, spec in enumerate(tools):
        function = spec.get("function") or {}
        if spec.get("type") != "function" or not function.get("name"):
            notes.append(f"tool {position} dropped: not a named function tool")
            continue
        tool: dict[str, Any] = {"name": function["name"]}
        if "description" in function:
            tool["description"] = function["description"]
        # Anthropic requires a schema; a tool without parameters takes an empty object
        tool["input_schema"] = function.get("parameters") or dict(_EMPTY_SCHEMA)
        if "strict" in function:
            tool["strict"] = function["strict"]
        wire.append(tool)
    return wire


def tools_from_wire(tools: Any) -> list[ToolSpec]:
    """Custom tools only: server tools (web_search, bash...) have no internal equivalent and stay in the kept copy."""
    specs: list[ToolSpec] = []
    for tool in tools or []:
        if not isinstance(tool, dict) or tool.get("type", "custom") != "custom" or "name" not in tool:
            continue
        function: dict[str, Any] = {"name": tool["name"]}
        if "description" in tool:
            function["description"] = tool["description"]
        function["parameters"] = tool.get("input_schema") or dict(_EMPTY_SCHEMA)
        if "strict" in tool:
            function["strict"] = tool["strict"]
        specs.append({"type": "function", "function": function})  # type: ignore[typeddict-item]
    return specs


# --- thinking ----------------------------------------------------------------------------------------------------


def thinking_to_wire(
    reasoning: ReasoningConfig | None, kept: Any, notes: list[str]
) -> tuple[dict[str, Any] | None, int | None]:
    """The ``thinking`` object, and the budget that max_tokens must exceed."""
    if reasoning is None:
        return None, None
    if unchanged(kept, reasoning, reasoning_from_wire):
        return kept, kept.get("budget_tokens")
    if reasoning.get("effort"):
        notes.append(f"reasoning effort `{reasoning['effort']}` dropped (Anthropic thinking takes a token budget)")
    if not reasoning.get("enabled", True):
        return {"type": "disabled"}, None
    budget = reasoning.get("budget_tokens")
    if budget is None:
        budget = DEFAULT_THINKING_BUDGET
        notes.append(f"thinking budget set to {budget} tokens (none given)")
    elif budget < MIN_THINKING_BUDGET:
        notes.append(f"thinking budget raised from {budget} to {MIN_THINKING_BUDGET} tokens (Anthropic's minimum)")
        budget = MIN_THINKING_BUDGET
    return {"type": "enabled", "budget_tokens": budget}, budget


def reasoning_from_wire(thinking: Any) -> ReasoningConfig | None:
    if not isinstance(thinking, dict):
        return None
    if thinking.get("type") == "disabled":
        return {"enabled": False}
    config: ReasoningConfig = {"enabled": True}
    if "budget_tokens" in thinking:
        config["budget_tokens"] = thinking["budget_tokens"]
    return config  # adaptive thinking too: enabled; its exact shape stays in the kept copy
