"""Simulated models for the edges of the tool-calling strategies (``sim-1`` follows every strategy already).

* ``sim-no-tools``: no tool support. A request with ``tools`` is refused with HTTP 400 "sim-no-tools does not
  support tools" (Gemini: "Function calling is not enabled for models/sim-no-tools"), as Ollama and other
  compatible servers refuse it; the prompted protocol it follows.
* ``sim-prompted``: no native tool calling. ``tools`` are accepted and ignored (it answers in text); the prompted
  protocol is followed, with a sentence before the calls.
* ``sim-sloppy``: its first call of a turn has the usual JSON slips (single quotes, a trailing comma) and a
  misspelt required key; after the error result it sends the call right.
* ``sim-strict``: honours a ``json_schema`` response format strictly. The schema must be in the strict subset
  (refused like the real API otherwise); every key of the schema is sent, ``null`` for an optional one left out.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from providers.simulator.conversation import read_turn, text_of
from providers.simulator.model import PlannedCall, Reply
from providers.simulator.rejection import Rejection
from providers.simulator.strategy import NATIVE, PROMPTED, STRUCTURED, Mode
from providers.types import ChatRequest, Message, ToolSpec

NO_TOOLS, PROMPTED_MODEL, SLOPPY, STRICT_MODEL = "sim-no-tools", "sim-prompted", "sim-sloppy", "sim-strict"
STRATEGY_MODELS = (NO_TOOLS, PROMPTED_MODEL, SLOPPY, STRICT_MODEL)
PREAMBLE = "I'll use a tool for that."

# OpenAI's strict subset (providers.strategies.strict keeps the same list): anything else is "not permitted".
_STRICT_KEYWORDS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref",
        "$defs", "definitions", "description", "title", "pattern", "format", "multipleOf", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems",
    }
)  # fmt: skip


def refusal(model: str, body: dict[str, Any], mode: Mode, *, gemini: bool) -> Rejection | None:
    """What the model's server refuses before answering: tools it has none of, a schema outside the strict subset."""
    if model == NO_TOOLS and body.get("tools"):
        if gemini:
            return Rejection(f"Function calling is not enabled for models/{model}")
        return Rejection(f"{model} does not support tools", param="tools")
    if model == STRICT_MODEL and mode.kind == STRUCTURED and mode.strict and mode.schema is not None:
        problem = strict_problem(mode.schema)
        if problem is not None:
            name = (body.get("response_format") or {}).get("json_schema", {}).get("name") or _text_name(body)
            return Rejection(f"Invalid schema for response_format '{name}': {problem}", param="response_format")
    return None


def _text_name(body: dict[str, Any]) -> str:
    text = body.get("text")
    fmt = text.get("format") if isinstance(text, dict) else None
    return str((fmt or {}).get("name") or "response")


def strict_problem(schema: Any, context: tuple[str, ...] = ()) -> str | None:
    """The first way ``schema`` leaves OpenAI's strict subset, worded as the API words it; None when it is in."""
    if not isinstance(schema, dict):
        return None
    where = f"In context={context!r}, "
    if not context and schema.get("type") != "object":
        return f"schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{schema.get('type')}\"'."
    for key in schema:
        if key not in _STRICT_KEYWORDS:
            return f"{where}'{key}' is not permitted."
    properties = schema.get("properties")
    if schema.get("type") == "object" or isinstance(properties, dict):
        if schema.get("additionalProperties") is not False:
            return f"{where}'additionalProperties' is required to be supplied and to be false."
        missing = [key for key in properties or {} if key not in (schema.get("required") or [])]
        if missing:
            return (
                f"{where}'required' is required to be supplied and to be an array including every key in "
                f"properties. Missing '{missing[0]}'."
            )
    children: list[tuple[tuple[str, ...], Any]] = [
        ((*context, "properties", key), sub) for key, sub in (properties or {}).items()
    ]
    children += [((*context, "items"), schema.get("items"))] if isinstance(schema.get("items"), dict) else []
    children += [((*context, "anyOf", str(i)), sub) for i, sub in enumerate(schema.get("anyOf") or [])]
    for defs in ("$defs", "definitions"):
        children += [((*context, defs, key), sub) for key, sub in (schema.get(defs) or {}).items()]
    for path, sub in children:
        found = strict_problem(sub, path)
        if found is not None:
            return found
    return None


def prepare(model: str, request: ChatRequest, mode: Mode) -> ChatRequest:
    """What the scripted model is asked. ``sim-prompted`` cannot call tools natively: offered ``tools``, it answers
    as if there were none. ``sim-sloppy``, told its last calls failed, makes them again (as if never made)."""
    if model == PROMPTED_MODEL and mode.kind == NATIVE and request.get("tools"):
        return {**request, "tools": [], "tool_choice": "none"}  # type: ignore[typeddict-item]
    if model == SLOPPY:
        return _without_failed_calls(request)
    return request


def _without_failed_calls(request: ChatRequest) -> ChatRequest:
    messages = list(request.get("messages") or [])
    end = len(messages)
    start = end
    while start > 0 and messages[start - 1].get("role") == "tool":
        start -= 1
    results = messages[start:end]
    if not results or start == 0 or not any(_failed(m) for m in results):
        return request
    return {**request, "messages": messages[: start - 1]}  # the assistant turn and its results, dropped


def _failed(message: Message) -> bool:
    # Formats without an error flag state the failure in the text ("Error: ...", openai_chat.messages).
    text = text_of(message.get("content")).lstrip()
    return bool(message.get("is_error")) or text.startswith(("Error", "Invalid arguments"))


def shape(model: str, reply: Reply, request: ChatRequest, mode: Mode, *, gemini: bool = False) -> Reply:
    """The model's own habits, applied to the scripted reply before it is written in the requested form.

    ``gemini``: Gemini's native calls carry their arguments as an object, never as text, so the only slip left
    there is the misspelt key."""
    if model == SLOPPY and reply.calls and mode.kind != STRUCTURED and not _corrected(request):
        tools, as_object = list(request.get("tools") or []), gemini and mode.kind == NATIVE
        return replace(reply, calls=(_sloppy(reply.calls[0], tools, as_object), *reply.calls[1:]))
    if model == STRICT_MODEL and mode.kind == STRUCTURED and mode.strict and reply.calls:
        tools = {t["function"]["name"]: t for t in request.get("tools") or []}
        return replace(reply, calls=tuple(_all_keys(call, tools.get(call.name)) for call in reply.calls))
    return reply


def preamble(model: str, mode: Mode) -> str | None:
    return PREAMBLE if model == PROMPTED_MODEL and mode.kind == PROMPTED else None


def _corrected(request: ChatRequest) -> bool:
    """A result came back in this turn (an error, on most wire formats, is only told in its text): the model has
    been told, and now writes its call right."""
    return bool(read_turn(request.get("messages") or []).results)


def _sloppy(call: PlannedCall, tools: list[ToolSpec], as_object: bool) -> PlannedCall:
    """Single quotes, a trailing comma, and the first required key misspelt (capitalised): the repairs fix the
    first two, the schema check catches the third."""
    try:
        arguments = json.loads(call.arguments)
    except ValueError:
        return call
    if not isinstance(arguments, dict):
        return call
    schema = next((t["function"].get("parameters") for t in tools if t["function"]["name"] == call.name), None)
    required = [key for key in (schema or {}).get("required") or [] if key in arguments]
    if required:
        key = required[0]
        arguments = {(k.capitalize() if k == key and k != k.capitalize() else f"{k}_" if k == key else k): v
                     for k, v in arguments.items()}  # fmt: skip
    if as_object:
        return PlannedCall(call.name, json.dumps(arguments, ensure_ascii=False, separators=(",", ":")))
    pairs = ", ".join(f"{_single(k)}: {_single(v)}" for k, v in arguments.items())
    return PlannedCall(call.name, "{" + pairs + ",}" if pairs else "{,}")


def _single(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_single(k)}: {_single(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_single(v) for v in value) + "]"
    return json.dumps(value)


def _all_keys(call: PlannedCall, tool: ToolSpec | None) -> PlannedCall:
    """Under a strict schema every key is present: the optional ones the model left out are sent as ``null``."""
    try:
        arguments = json.loads(call.arguments)
    except ValueError:
        return call
    properties = ((tool or {}).get("function", {}).get("parameters") or {}).get("properties") or {}
    if not isinstance(arguments, dict) or not properties:
        return call
    filled = {**arguments, **{key: None for key in properties if key not in arguments}}
    return PlannedCall(call.name, json.dumps(filled, ensure_ascii=False, separators=(",", ":")))


__all__ = ["PROMPTED", "STRATEGY_MODELS", "preamble", "prepare", "refusal", "shape", "strict_problem"]
