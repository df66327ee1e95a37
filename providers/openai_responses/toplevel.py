"""Top-level request fields both ways: ``tools``, ``tool_choice`` and ``reasoning``.

Each ``*_to_wire`` takes the value kept at import (``provider_data.fields`` of this format) and sends it unchanged
while importing it still gives what the internal request says (so hosted tools, ``allowed_tools`` choices and
reasoning settings with no internal slot survive a same-format round trip); once the request was edited, the edited
value wins.

* Tools are flat ``{"type": "function", "name", "description", "parameters", "strict"}``. The API treats a missing
  ``strict`` as true (optional parameters then fail), so a tool without ``strict`` is sent ``strict: false`` with a
  note; a tool without parameters gets an empty object schema. Hosted tools (web_search, file_search, mcp...) have
  no internal equivalent and live only in the kept copy.
* ``tool_choice``: ``auto``/``none``/``required`` as they are; a named function is flat ``{"type": "function",
  "name"}``. ``allowed_tools`` and hosted-tool choices have no internal equivalent (kept copy only).
* ``reasoning``: ``{"effort", "summary": "auto"}`` (the summary is what makes reasoning visible); the token budget
  has no Responses equivalent. ``enabled: false`` sends no ``reasoning`` (not every model takes ``effort: none``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from providers.translation import TranslationError
from providers.types import ReasoningConfig, ToolSpec

_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
_CHOICES = frozenset({"auto", "none", "required"})


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


# --- tools -------------------------------------------------------------------------------------------------------


def tools_to_wire(tools: list[ToolSpec], kept: Any, notes: list[str]) -> Any:
    if unchanged(kept, tools, tools_from_wire):
        notes.append("tools sent exactly as imported (with their Responses-only entries)")
        return kept
    wire: list[dict[str, Any]] = []
    defaulted: list[str] = []
    for position, spec in enumerate(tools):
        function = (spec.get("function") or {}) if isinstance(spec, dict) else {}
        if not isinstance(spec, dict) or spec.get("type") != "function" or not function.get("name"):
            notes.append(f"tool {position} dropped: not a named function tool")
            continue
        tool: dict[str, Any] = {"type": "function", "name": function["name"]}
        if "description" in function:
            tool["description"] = function["description"]
        tool["parameters"] = function.get("parameters") or dict(_EMPTY_SCHEMA)
        if "strict" not in function:
            defaulted.append(function["name"])
        tool["strict"] = function.get("strict", False)
        wire.append(tool)
    if defaulted:
        names = ", ".join(f"`{name}`" for name in defaulted)
        notes.append(f"strict: false sent for {names} (no strict given; Responses would enforce the schema strictly)")
    return wire


def tools_from_wire(tools: Any) -> list[ToolSpec]:
    """Function tools only: hosted tools have no internal equivalent and stay in the kept copy."""
    specs: list[ToolSpec] = []
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(tool.get("name"), str):
            continue
        function: dict[str, Any] = {"name": tool["name"]}
        if "description" in tool:
            function["description"] = tool["description"]
        if isinstance(tool.get("parameters"), dict):
            function["parameters"] = tool["parameters"]
        if isinstance(tool.get("strict"), bool):
            function["strict"] = tool["strict"]
        specs.append({"type": "function", "function": function})  # type: ignore[typeddict-item]
    return specs


def encode_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Internal tool specs -> Responses ``tools`` entries (a tool library's export), mapped as requests map them."""
    return tools_to_wire(tools, None, [])


def import_tools(wire_tools: list[dict[str, Any]]) -> list[ToolSpec]:
    """Responses ``tools`` entries -> internal specs; hosted tools have no internal equivalent."""
    return tools_from_wire(wire_tools)


# --- tool_choice -------------------------------------------------------------------------------------------------


def tool_choice_to_wire(choice: Any, kept: Any) -> str | dict[str, Any] | None:
    if choice is None:
        return kept if unchanged(kept, None, tool_choice_from_wire) else None
    if unchanged(kept, choice, tool_choice_from_wire):
        return kept
    if isinstance(choice, str):
        if choice not in _CHOICES:
            raise TranslationError(f"tool_choice {choice!r} is not one of auto, none, required or a named function")
        return choice
    name = (choice.get("function") or {}).get("name") if isinstance(choice, dict) else None
    if not isinstance(choice, dict) or choice.get("type") != "function" or not name:
        raise TranslationError(f"tool_choice {json.dumps(choice)} does not name a function")
    return {"type": "function", "name": name}


def tool_choice_from_wire(wire: Any) -> str | dict[str, Any] | None:
    """The internal tool_choice; None when it has no internal equivalent (allowed_tools, hosted tools...)."""
    if isinstance(wire, str):
        return wire if wire in _CHOICES else None
    if isinstance(wire, dict) and wire.get("type") == "function" and isinstance(wire.get("name"), str):
        return {"type": "function", "function": {"name": wire["name"]}}
    return None


# --- reasoning ---------------------------------------------------------------------------------------------------


def reasoning_on(reasoning: ReasoningConfig | None) -> bool:
    return isinstance(reasoning, dict) and reasoning.get("enabled", True) is not False


def reasoning_to_wire(reasoning: ReasoningConfig | None, kept: Any, notes: list[str]) -> Any:
    if unchanged(kept, reasoning, reasoning_from_wire):  # also a kept value with no internal reading at all
        return kept
    if reasoning is None:
        return None
    if not reasoning_on(reasoning):
        notes.append("reasoning disabled: no `reasoning` sent (not every Responses model accepts effort `none`)")
        return None
    if "budget_tokens" in reasoning:
        notes.append(f"reasoning budget of {reasoning['budget_tokens']} tokens dropped (Responses takes an effort)")
    wire: dict[str, Any] = {}
    if reasoning.get("effort"):
        wire["effort"] = reasoning["effort"]
    wire["summary"] = "auto"
    return wire


def reasoning_from_wire(wire: Any) -> ReasoningConfig | None:
    if not isinstance(wire, dict):
        return None
    effort = wire.get("effort")
    config: ReasoningConfig = {"enabled": effort != "none"}
    if isinstance(effort, str):
        config["effort"] = effort
    return config
