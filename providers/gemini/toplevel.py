"""Top-level request fields both ways: ``systemInstruction``, ``tools``, ``toolConfig`` and ``thinkingConfig``.

Each ``*_to_wire`` takes the value kept at import (``provider_data.fields`` of this format) and sends it unchanged
while importing it still gives what the internal request says (so a ``googleSearch`` tool, a ``VALIDATED`` mode or
a dynamic thinking budget survive a same-format round trip); once the request was edited, the edited value wins.

* ``systemInstruction`` is ``{"parts": [{"text"}...]}``: one text part per system message, in order.
* Tools are one ``{"functionDeclarations": [...]}`` entry; parameters go through ``schema`` (Gemini's OpenAPI
  subset), and an object schema without properties is left out (Gemini rejects an ``OBJECT`` with empty
  ``properties``). ``strict`` has no Gemini equivalent. Importing reads ``parameters`` and ``parametersJsonSchema``.
* ``toolConfig.functionCallingConfig.mode``: ``auto`` -> ``AUTO``, ``none`` -> ``NONE``, ``required`` -> ``ANY``, a
  named function -> ``ANY`` with ``allowedFunctionNames: [name]``. ``VALIDATED`` and several allowed names have no
  internal equivalent (kept copy only).
* ``reasoning`` -> ``thinkingConfig``: ``includeThoughts: true`` (thought summaries are what makes reasoning
  visible), the budget as ``thinkingBudget`` or else the effort as ``thinkingLevel`` (Gemini refuses both);
  ``enabled: false`` is ``thinkingBudget: 0``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from providers.gemini.schema import from_gemini, to_gemini
from providers.translation import TranslationError
from providers.types import Message, ReasoningConfig, ToolSpec

_FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}")
_MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY"}
_CHOICES = {wire: internal for internal, wire in _MODES.items()}


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


# --- systemInstruction -------------------------------------------------------------------------------------------


def system_to_wire(messages: list[Message], kept: Any, notes: list[str]) -> dict[str, Any] | None:
    if unchanged(kept, [_system_text(m.get("content")) for m in messages], _kept_system_texts):
        notes.append("`systemInstruction` sent exactly as imported")
        return dict(kept)
    parts = [{"text": text} for text in (_system_text(m.get("content")) for m in messages) if text]
    if len(parts) < len(messages):
        notes.append("empty system message dropped (Gemini rejects empty text)")
    return {"parts": parts} if parts else None


def system_from_wire(system: Any) -> list[Message]:
    """One system message per text part, in order."""
    parts = system.get("parts") if isinstance(system, dict) else None
    texts = [part.get("text") for part in parts or [] if isinstance(part, dict)]
    return [{"role": "system", "content": text} for text in texts if isinstance(text, str)]


def _kept_system_texts(system: Any) -> list[str]:
    return [str(message["content"]) for message in system_from_wire(system)]


def _system_text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text") or "" for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


# --- tools -------------------------------------------------------------------------------------------------------


def tools_to_wire(tools: list[ToolSpec], kept: Any, notes: list[str]) -> list[dict[str, Any]]:
    if unchanged(kept, tools, tools_from_wire):
        notes.append("tools sent exactly as imported (with their Gemini-only entries)")
        return list(kept)
    declarations = []
    for position, spec in enumerate(tools):
        function = (spec.get("function") or {}) if isinstance(spec, dict) else {}
        if not isinstance(spec, dict) or spec.get("type") != "function" or not function.get("name"):
            notes.append(f"tool {position} dropped: not a named function tool")
            continue
        declarations.append(_declaration(function, notes))
    return [{"functionDeclarations": declarations}] if declarations else []


def _declaration(function: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    name = function["name"]
    if not _FUNCTION_NAME.fullmatch(name):
        notes.append(f"tool `{name}`: Gemini function names must match [A-Za-z_][A-Za-z0-9_.:-]{{0,63}}")
    declaration: dict[str, Any] = {"name": name}
    if "description" in function:
        declaration["description"] = function["description"]
    if "strict" in function:
        notes.append(f"tool `{name}`: strict dropped (Gemini has no strict mode for function declarations)")
    parameters = function.get("parameters")
    if isinstance(parameters, dict) and parameters:
        schema, changes = to_gemini(parameters)
        if changes:
            notes.append(f"tool `{name}`: parameters changed for Gemini's schema subset: {changes}")
        if schema.get("properties") or schema.get("type") not in (None, "OBJECT"):
            declaration["parameters"] = schema
        else:
            notes.append(f"tool `{name}`: parameters left out (Gemini rejects an object schema without properties)")
    return declaration


def tools_from_wire(tools: Any) -> list[ToolSpec]:
    """Function declarations only: other tools (googleSearch, codeExecution...) stay in the kept copy."""
    specs: list[ToolSpec] = []
    for tool in tools if isinstance(tools, list) else []:
        declarations = tool.get("functionDeclarations") if isinstance(tool, dict) else None
        for declaration in declarations if isinstance(declarations, list) else []:
            if isinstance(declaration, dict) and isinstance(declaration.get("name"), str):
                specs.append({"type": "function", "function": _function(declaration)})
    return specs


def _function(declaration: dict[str, Any]) -> Any:
    function: dict[str, Any] = {"name": declaration["name"]}
    if "description" in declaration:
        function["description"] = declaration["description"]
    if isinstance(declaration.get("parameters"), dict):
        function["parameters"] = from_gemini(declaration["parameters"])
    elif isinstance(declaration.get("parametersJsonSchema"), dict):
        function["parameters"] = declaration["parametersJsonSchema"]
    return function


def encode_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Internal tool specs -> Gemini ``tools`` entries (a tool library's export), mapped as requests map them."""
    return tools_to_wire(tools, None, [])


def import_tools(wire_tools: list[dict[str, Any]]) -> list[ToolSpec]:
    """Gemini ``tools`` entries -> internal specs; built-in tools (googleSearch...) have no internal equivalent."""
    return tools_from_wire(wire_tools)


# --- toolConfig --------------------------------------------------------------------------------------------------


def tool_config_to_wire(choice: Any, kept: Any) -> dict[str, Any] | None:
    if unchanged(kept, choice, tool_choice_from_wire):  # also a kept value with no internal reading at all
        return dict(kept)
    if choice is None:
        return None
    if isinstance(choice, str):
        if choice not in _MODES:
            raise TranslationError(f"tool_choice {choice!r} is not one of auto, none, required or a named function")
        return {"functionCallingConfig": {"mode": _MODES[choice]}}
    name = (choice.get("function") or {}).get("name") if isinstance(choice, dict) else None
    if not isinstance(choice, dict) or choice.get("type") != "function" or not name:
        raise TranslationError(f"tool_choice {json.dumps(choice)} does not name a function")
    return {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [name]}}


def tool_choice_from_wire(wire: Any) -> str | dict[str, Any] | None:
    """The internal tool_choice; None when it has no internal equivalent (VALIDATED, several allowed names...)."""
    config = wire.get("functionCallingConfig") if isinstance(wire, dict) else None
    mode = config.get("mode") if isinstance(config, dict) else None
    if not isinstance(mode, str):
        return None
    names = config.get("allowedFunctionNames") if isinstance(config, dict) else None
    if mode.upper() == "ANY" and isinstance(names, list) and names:
        if len(names) == 1 and isinstance(names[0], str):
            return {"type": "function", "function": {"name": names[0]}}
        return "required"  # a subset of tools: the kept copy says which
    return _CHOICES.get(mode.upper())


# --- thinkingConfig ----------------------------------------------------------------------------------------------


def thinking_to_wire(reasoning: ReasoningConfig | None, kept: Any, notes: list[str]) -> dict[str, Any] | None:
    if unchanged(kept, reasoning, reasoning_from_wire):
        return dict(kept)
    if not isinstance(reasoning, dict):
        return None
    if reasoning.get("enabled", True) is False:
        notes.append("reasoning disabled: thinkingBudget 0 (Gemini 2.5 Pro and Gemini 3 cannot turn thinking off)")
        return {"thinkingBudget": 0}
    config: dict[str, Any] = {"includeThoughts": True}
    if "budget_tokens" in reasoning:
        config["thinkingBudget"] = reasoning["budget_tokens"]
        if reasoning.get("effort"):
            notes.append(f"reasoning effort `{reasoning['effort']}` dropped (Gemini takes a budget or a level)")
    elif reasoning.get("effort"):
        config["thinkingLevel"] = reasoning["effort"]
    return config


def reasoning_from_wire(config: Any) -> ReasoningConfig | None:
    if not isinstance(config, dict):
        return None
    budget = config.get("thinkingBudget")
    if budget == 0:
        return {"enabled": False}
    reasoning: ReasoningConfig = {"enabled": True}
    if isinstance(budget, int) and not isinstance(budget, bool) and budget > 0:
        reasoning["budget_tokens"] = budget
    if isinstance(config.get("thinkingLevel"), str):
        reasoning["effort"] = config["thinkingLevel"]
    return reasoning  # a dynamic budget (-1) or includeThoughts false: the exact shape stays in the kept copy
