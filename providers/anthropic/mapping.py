"""Small Anthropic <-> internal mappings shared by requests, responses and streams.

Stop reasons, usage, tool_choice, tool call ids, arguments and the notes' wording helpers live here so that every
direction uses the same tables.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from providers.translation import TranslationError
from providers.types import Usage

NAME = "anthropic"
DEFAULT_MAX_TOKENS = 4096
DEFAULT_THINKING_BUDGET = 2048
MIN_THINKING_BUDGET = 1024  # Anthropic rejects smaller budgets
RAW_ARGUMENTS_KEY = "_raw_arguments"  # carries argument text that is not a JSON object (see arguments_to_input)

STOP_REASONS: dict[str, str] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}
# The wire reason sent for an internal one when the raw reason is unknown or belongs to another format.
WIRE_STOP_REASONS: dict[str, str] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}

_VALID_ID = re.compile(r"[a-zA-Z0-9_-]+")  # used with fullmatch: "$" would accept a trailing newline
_INVALID_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


def finish_reason(raw: str | None) -> str:
    # An unknown future reason still ends the turn; the raw value stays visible in Finish.raw_reason.
    return STOP_REASONS.get(raw or "", "stop")


def wire_stop_reason(reason: str | None, raw: str | None) -> str | None:
    """The raw reason when it still means ``reason`` (keeps stop_sequence, pause_turn...), else the table's.

    ``tool_calls`` is the accumulator's verdict whenever complete calls were seen, so with it any Anthropic raw reason
    is still what the provider said (``stop_sequence`` right after a call, for one).
    """
    if reason is None:
        return raw
    if raw in STOP_REASONS and (STOP_REASONS[raw] == reason or reason == "tool_calls"):
        return raw
    return WIRE_STOP_REASONS.get(reason, "end_turn")


# --- usage -------------------------------------------------------------------------------------------------------


def usage_from_wire(wire: dict[str, Any]) -> Usage:
    """Anthropic ``input_tokens`` excludes cache reads and writes; internal ``prompt_tokens`` includes both."""
    cache_read = int(wire.get("cache_read_input_tokens") or 0)
    cache_creation = int(wire.get("cache_creation_input_tokens") or 0)
    prompt = int(wire.get("input_tokens") or 0) + cache_read + cache_creation
    completion = int(wire.get("output_tokens") or 0)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "cached_tokens": cache_read,
        "cache_creation_tokens": cache_creation,
    }


def usage_to_wire(usage: Usage | None) -> dict[str, int]:
    usage = usage or {}
    cache_read = usage.get("cached_tokens", 0)
    cache_creation = usage.get("cache_creation_tokens", 0)
    return {
        "input_tokens": max(usage.get("prompt_tokens", 0) - cache_read - cache_creation, 0),
        "cache_creation_input_tokens": cache_creation,
        "cache_read_input_tokens": cache_read,
        "output_tokens": usage.get("completion_tokens", 0),
    }


# --- tool_choice -------------------------------------------------------------------------------------------------

_CHOICE_TO_WIRE = {"auto": "auto", "none": "none", "required": "any"}
_CHOICE_FROM_WIRE = {wire: internal for internal, wire in _CHOICE_TO_WIRE.items()}


def tool_choice_to_wire(choice: str | dict[str, Any] | None, parallel: bool | None, notes: list[str]) -> dict | None:
    if choice is None and parallel is None:
        return None
    wire = _choice_object(choice if choice is not None else "auto", notes)
    if parallel is None:
        return wire
    if wire["type"] == "none":
        notes.append("parallel_tool_calls dropped: Anthropic takes no parallel switch with tool_choice none")
    else:
        wire["disable_parallel_tool_use"] = not parallel
        if not parallel:
            notes.append("parallel_tool_calls=false sent as tool_choice.disable_parallel_tool_use=true")
    return wire


def _choice_object(choice: str | dict[str, Any], notes: list[str]) -> dict[str, Any]:
    if isinstance(choice, str):
        if choice not in _CHOICE_TO_WIRE:
            raise TranslationError(f"tool_choice {choice!r} is not one of auto, none, required or a named function")
        return {"type": _CHOICE_TO_WIRE[choice]}
    name = (choice.get("function") or {}).get("name") if choice.get("type") == "function" else None
    if not name:
        raise TranslationError(f"tool_choice {json.dumps(choice)} does not name a function")
    return {"type": "tool", "name": name}


def tool_choice_from_wire(wire: dict[str, Any]) -> tuple[str | dict[str, Any] | None, bool | None]:
    """(internal tool_choice, parallel_tool_calls); tool_choice None when the type is unknown."""
    kind = wire.get("type")
    parallel = None if "disable_parallel_tool_use" not in wire else not wire["disable_parallel_tool_use"]
    if kind == "tool":
        return {"type": "function", "function": {"name": wire.get("name", "")}}, parallel
    return _CHOICE_FROM_WIRE.get(str(kind)), parallel


# --- tool call ids -----------------------------------------------------------------------------------------------


@dataclass
class IdMap:
    """Ids outside Anthropic's ``^[a-zA-Z0-9_-]+$`` (Kimi ``functions.add:0``) get a deterministic replacement.

    The replacement is a function of the id alone, so a call and its result, and every later turn that re-sends the
    history, get the same one; the hash suffix keeps ``a.b`` and ``a:b`` apart.
    """

    rewritten: dict[str, str] = field(default_factory=dict)

    def wire_id(self, original: Any, where: str, notes: list[str]) -> str:
        if not isinstance(original, str) or not original:
            raise TranslationError(f"{where}: the tool call id is empty; Anthropic requires a non-empty id")
        if _VALID_ID.fullmatch(original):
            return original
        if original not in self.rewritten:
            digest = hashlib.sha256(original.encode()).hexdigest()[:8]
            self.rewritten[original] = f"{_INVALID_ID_CHARS.sub('_', original)}_{digest}"
            notes.append(
                f"tool call id `{original}` rewritten to `{self.rewritten[original]}` (Anthropic ids must match "
                "^[a-zA-Z0-9_-]+$); its result uses the same id"
            )
        return self.rewritten[original]


# --- arguments ---------------------------------------------------------------------------------------------------


def arguments_to_input(arguments: Any, where: str, notes: list[str]) -> dict[str, Any]:
    """The internal JSON string becomes Anthropic's ``input`` object, parsed exactly once, here.

    Text that is not a JSON object cannot be an ``input``; it travels as ``{"_raw_arguments": "<text>"}`` so the call
    is neither dropped nor refused, the model sees what was sent, and importing restores the text verbatim.
    """
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        if arguments == "":
            notes.append(f"{where}: empty arguments sent as {{}}")
        return {}
    if isinstance(arguments, dict):
        return arguments  # some clients store the object itself; it is already what Anthropic wants
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return value
    notes.append(f'{where}: arguments are not a JSON object; sent verbatim as {{"{RAW_ARGUMENTS_KEY}": …}}')
    return {RAW_ARGUMENTS_KEY: text}


def input_to_arguments(value: Any) -> str:
    """Anthropic ``input`` -> the internal JSON string, serialised exactly once (compact, like OpenAI's own)."""
    if value is None or value == {}:
        return "{}"
    if isinstance(value, str):
        return value  # not an object on the wire; keep the text as it came
    raw = value.get(RAW_ARGUMENTS_KEY) if isinstance(value, dict) and len(value) == 1 else None
    if isinstance(raw, str) and not _is_json_object(raw):
        return raw
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


# --- notes -------------------------------------------------------------------------------------------------------


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
