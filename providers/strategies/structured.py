"""The structured strategy: tools offered through a JSON response format instead of ``tools``.

The model must answer with one JSON object, the *envelope* (the root must be an object: OpenAI refuses an ``anyOf``
root, hence the ``reply`` wrapper)::

    {"reply": {"type": "tool_call", "calls": [{"name": "get_weather", "arguments": {...}}, ...]}}
    {"reply": {"type": "final", "text": "It is sunny in Paris."}}

``reply`` is an ``anyOf`` of the two; each entry of ``calls`` is an ``anyOf`` with one branch per tool, whose
``name`` is a one-value ``enum`` (``const`` is not honoured everywhere) and whose ``arguments`` is the tool's schema
made strict. Several entries in ``calls`` are parallel calls. Keys are listed in the order a stream needs them:
``type`` first, ``name`` before ``arguments``.

``tool_choice`` narrows the envelope: ``none`` leaves only ``final``, ``required`` only ``tool_call``, a named tool
only its branch; ``parallel_tool_calls: false`` sets ``maxItems: 1`` on ``calls``. A tool schema's ``$defs`` move to
the envelope's ``$defs`` (prefixed ``TOOL__``) with its ``$ref`` rewritten, since ``#`` now means the envelope.

The internal request gets ``response_format`` in OpenAI Chat's shape (``{"type": "json_schema", "json_schema":
{"name", "strict": true, "schema"}}``); each codec maps it to its own equivalent (see docs/strategies.md).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from providers.strategies.calls import call_id, canonical
from providers.strategies.history import add_instructions, convert_history, parse_arguments, text_of
from providers.strategies.strict import strict_schema
from providers.translation import Translation
from providers.types import ChatRequest, Message, ToolCall, ToolSpec

ENVELOPE_NAME = "tool_reply"
_DROPPED = ("tools", "tool_choice", "parallel_tool_calls")


class StructuredReplyError(ValueError):
    """The reply is not a valid envelope; the message says what is wrong, for the model to be told."""


@dataclass
class ParsedReply:
    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def message(self) -> Message:
        message: Message = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = self.tool_calls
        return message


def structured_request(request: ChatRequest) -> Translation[ChatRequest]:
    tools = [tool for tool in request.get("tools") or [] if (tool.get("function") or {}).get("name")]
    history = convert_history(list(request.get("messages") or []), _render_calls, "structured envelope")
    notes = [*history.notes]
    names, final = _choice(request.get("tool_choice"), tools, notes)
    parallel = request.get("parallel_tool_calls") is not False
    schema = envelope_schema([t for t in tools if t["function"]["name"] in names], final, parallel, notes)
    out: dict[str, Any] = {key: value for key, value in request.items() if key not in _DROPPED}
    out["messages"] = add_instructions(history.value, instructions(tools, names, final))
    out["response_format"] = {
        "type": "json_schema",
        "json_schema": {"name": ENVELOPE_NAME, "strict": True, "schema": schema},
    }
    notes.append("tools sent as a JSON response format (structured strategy); the reply is a JSON envelope")
    notes.append("envelope instructions added to the system prompt")
    return Translation(out, notes)  # type: ignore[arg-type]


def envelope_schema(tools: list[ToolSpec], final: bool, parallel: bool, notes: list[str]) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    variants = []
    if tools:
        branches = [_tool_branch(tool, defs, notes) for tool in tools]
        calls: dict[str, Any] = {"type": "array", "minItems": 1, "items": {"anyOf": branches}}
        if not parallel:
            calls["maxItems"] = 1
        variants.append(_object({"type": {"type": "string", "enum": ["tool_call"]}, "calls": calls}, "Call tools."))
    if final or not tools:
        text = {"type": "string", "description": "The answer for the user."}
        variants.append(_object({"type": {"type": "string", "enum": ["final"]}, "text": text}, "The final answer."))
    reply = variants[0] if len(variants) == 1 else {"anyOf": variants}
    schema = _object({"reply": reply}, None)
    if defs:
        schema["$defs"] = defs
    return schema


def instructions(tools: list[ToolSpec], names: set[str], final: bool) -> str:
    lines = ["Always reply with one JSON object, as the response format requires:"]
    if names:
        lines.append(
            '- to call tools: {"reply": {"type": "tool_call", "calls": [{"name": "TOOL_NAME", "arguments": {...}}]}}'
            ' (several entries in "calls" are run in parallel);'
        )
    if final:
        lines.append('- to answer: {"reply": {"type": "final", "text": "YOUR ANSWER"}}.')
    if names:
        lines.append('Tool results come back in a user message starting with "Result of TOOL_NAME (CALL_ID):".')
        lines.append("\nTools:")
        for tool in tools:
            function = tool["function"]
            if function["name"] in names:
                lines.append(f"- {function['name']}: {function.get('description') or '(no description)'}")
    return "\n".join(lines)


def parse_structured(text: str, response_id: str = "") -> ParsedReply:
    """The reply text (the envelope) -> internal content and tool calls; ``StructuredReplyError`` when invalid."""
    notes: list[str] = []
    body = _unfenced(text, notes)
    try:
        envelope = json.loads(body)
    except ValueError as exc:
        raise StructuredReplyError(f"the reply is not JSON: {exc}") from None
    if not isinstance(envelope, dict):
        raise StructuredReplyError("the reply is not a JSON object")
    reply = envelope.get("reply", envelope)
    if not isinstance(reply, dict):
        raise StructuredReplyError('"reply" is not a JSON object')
    kind = reply.get("type")
    if kind == "final":
        if not isinstance(reply.get("text"), str):
            raise StructuredReplyError('a "final" reply needs "text" as a string')
        return ParsedReply(reply["text"] or None, [], notes)
    if kind == "tool_call":
        return ParsedReply(None, _calls(reply.get("calls"), response_id, notes), notes)
    raise StructuredReplyError(f'"type" must be "tool_call" or "final", not {json.dumps(kind)}')


def _calls(calls: Any, response_id: str, notes: list[str]) -> list[ToolCall]:
    if not isinstance(calls, list) or not calls:
        raise StructuredReplyError('a "tool_call" reply needs "calls" as a non-empty array')
    out: list[ToolCall] = []
    for index, call in enumerate(calls):
        if not isinstance(call, dict):
            raise StructuredReplyError(f"calls[{index}] is not an object")
        name = call.get("name")
        if not isinstance(name, str) or not name.strip():
            raise StructuredReplyError(f'calls[{index}] needs "name" as a non-empty string')
        arguments = _arguments(call, index, notes)
        name = name.strip()
        out.append(
            {
                "id": call_id(response_id, index, name),
                "type": "function",
                "function": {"name": name, "arguments": canonical(arguments)},
            }
        )
    return out


def _arguments(call: dict[str, Any], index: int, notes: list[str]) -> dict[str, Any]:
    if "arguments" not in call:
        raise StructuredReplyError(f'calls[{index}] needs "arguments"')
    arguments = call["arguments"]
    if isinstance(arguments, str):  # a JSON object given as a string: read it, as the stream does
        try:
            arguments = json.loads(arguments)
        except ValueError:
            raise StructuredReplyError(f"calls[{index}].arguments is a string that is not JSON") from None
        notes.append(f"call {index}: arguments given as a JSON string, decoded")
    if not isinstance(arguments, dict):
        raise StructuredReplyError(f"calls[{index}].arguments is not a JSON object")
    return arguments


def _unfenced(text: str, notes: list[str]) -> str:
    body = text.strip()
    if body.startswith("```") and body.endswith("```") and "\n" in body:
        notes.append("reply wrapped in a code fence; the fence was ignored")
        return body[body.index("\n") + 1 : -3]
    return body


def _choice(choice: Any, tools: list[ToolSpec], notes: list[str]) -> tuple[set[str], bool]:
    """The tool names the envelope offers, and whether a final answer is allowed."""
    names = {tool["function"]["name"] for tool in tools}
    if choice == "none":
        notes.append('tool_choice "none": the envelope only allows a final answer')
        return set(), True
    if choice == "required" and names:
        notes.append('tool_choice "required": the envelope only allows tool calls')
        return names, False
    if isinstance(choice, dict):
        named = (choice.get("function") or {}).get("name")
        if named in names:
            notes.append(f"tool_choice {named}: the envelope only allows calls to {named}")
            return {named}, False
        notes.append(f"tool_choice names an unknown tool ({named}); every tool offered")
    return names, True


def _tool_branch(tool: ToolSpec, defs: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    function = tool["function"]
    name = function["name"]
    translated = strict_schema(function.get("parameters") or {}, where=f"tools[{name}]")
    notes.extend(translated.notes)
    arguments = _rehome(translated.value, name, defs, notes)
    properties = {"name": {"type": "string", "enum": [name]}, "arguments": arguments}
    return _object(properties, function.get("description"))


def _rehome(schema: dict[str, Any], tool: str, defs: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """Move the tool's ``$defs`` into the envelope's, prefixed, and point its references there."""
    schema = copy.deepcopy(schema)
    own = {**schema.pop("definitions", {}), **schema.pop("$defs", {})}
    needs_root = _rewrite_refs([schema, own], tool)
    for key, value in own.items():
        defs[f"{tool}__{key}"] = value
    if own:
        notes.append(f"tools[{tool}]: $defs moved to the envelope's $defs as {tool}__NAME")
    if needs_root:  # "#" or "#/properties/..." meant the tool's own root
        defs[f"{tool}__root"] = schema
        return {"$ref": f"#/$defs/{tool}__root"}
    return schema


def _rewrite_refs(node: Any, tool: str) -> bool:
    needs_root = False
    if isinstance(node, list):
        return any([_rewrite_refs(item, tool) for item in node])
    if not isinstance(node, dict):
        return False
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#"):
        for prefix in ("#/$defs/", "#/definitions/"):
            if ref.startswith(prefix):
                node["$ref"] = f"#/$defs/{tool}__{ref[len(prefix) :]}"
                break
        else:
            node["$ref"], needs_root = f"#/$defs/{tool}__root{ref[1:]}", True
    for key, value in node.items():
        if key != "$ref" and isinstance(value, dict | list):
            needs_root = _rewrite_refs(value, tool) or needs_root
    return needs_root


def _object(properties: dict[str, Any], description: str | None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object"}
    if description:
        schema["description"] = description
    schema.update({"properties": properties, "required": list(properties), "additionalProperties": False})
    return schema


def _render_calls(message: Message, position: int, notes: list[str]) -> str:
    if text_of(message.get("content"), f"message {position}", notes).strip():
        notes.append(f"message {position}: assistant text beside tool calls dropped (the envelope has no room)")
    calls = [
        {
            "name": call["function"]["name"],
            "arguments": parse_arguments(call["function"].get("arguments"), f"message {position}", notes),
        }
        for call in message.get("tool_calls") or []
    ]
    return json.dumps({"reply": {"type": "tool_call", "calls": calls}}, ensure_ascii=False)
