"""How the scripted model follows a request that offers tools without ``tools``: the prompted protocol in the
system prompt, or a JSON-schema response format (the structured envelope).

``read_mode`` tells which one a request uses; ``unwrap`` turns it back into the native request the scripted model
understands (the tools read from the prompt or the envelope schema, the calls and results of the history read back
from their text form); ``wrap`` writes the model's reply the way the request asked for it: fenced ``tool_call``
blocks in the text, or the envelope JSON as the whole text. The codec then sends that text like any other.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from providers.simulator.conversation import text_of
from providers.simulator.model import PlannedCall, Reply
from providers.strategies.prompted import extract_calls
from providers.strategies.structured import StructuredReplyError, parse_structured
from providers.strategies.wire import read_response_format
from providers.types import ChatRequest, Message, ToolCall, ToolSpec

NATIVE, PROMPTED, STRUCTURED = "native", "prompted", "structured"
# A line of the protocol text (providers.strategies.prompted.PROTOCOL) no ordinary prompt has.
_PROTOCOL_MARK = "reply with a fenced block tagged tool_call"
_TOOL_SECTION = re.compile(
    r"^### (?P<name>[^\n]+)\n(?P<description>.*?)\nParameters \(JSON Schema\):\n```json\n(?P<schema>.*?)\n```",
    re.S | re.M,
)
_NAMED_RULE = re.compile(r"You must call the tool (\S+) in this reply\.")
_RESULT = re.compile(r"^Result of (?P<name>\S+) \((?P<id>[^)\n]*)\)(?P<failed> \(the tool failed\))?:[ \n]", re.M)


@dataclass(frozen=True)
class Mode:
    kind: str  # native | prompted | structured
    schema: dict[str, Any] | None = None  # the response format's schema (structured)
    strict: bool = False  # the response format asks for strict adherence


def read_mode(body: dict[str, Any], request: ChatRequest) -> Mode:
    """The raw body says whether a response format is asked for; the imported system prompt holds the protocol."""
    response_format = read_response_format(body)
    if response_format is not None and isinstance(response_format.get("schema"), dict):
        return Mode(STRUCTURED, response_format["schema"], bool(response_format.get("strict")))
    if not request.get("tools") and _protocol(request.get("messages") or []):
        return Mode(PROMPTED)
    return Mode(NATIVE)


def _protocol(messages: list[Message]) -> str | None:
    for message in messages:
        if message.get("role") in ("system", "developer"):
            text = text_of(message.get("content"))
            if _PROTOCOL_MARK in text:
                return text
    return None


# --- the request, back to native -----------------------------------------------------------------------------


def unwrap(request: ChatRequest, mode: Mode) -> ChatRequest:
    if mode.kind == PROMPTED:
        tools, choice, parallel = _prompted_tools(_protocol(request.get("messages") or []) or "")
    elif mode.kind == STRUCTURED and mode.schema is not None:
        tools, choice, parallel = _envelope_tools(mode.schema)
    else:
        return request
    names = [t["function"]["name"] for t in tools]
    out: dict[str, Any] = {**request, "messages": _history(request.get("messages") or [], mode, names)}
    if tools:
        out.update({"tools": tools, "tool_choice": choice, "parallel_tool_calls": parallel})
    else:
        out["tool_choice"] = "none"
    return out  # type: ignore[return-value]


def _prompted_tools(text: str) -> tuple[list[ToolSpec], Any, bool]:
    tools: list[ToolSpec] = []
    for match in _TOOL_SECTION.finditer(text):
        try:
            schema = json.loads(match.group("schema"))
        except ValueError:
            schema = {"type": "object", "properties": {}}
        function = {"name": match.group("name").strip(), "description": match.group("description").strip()}
        tools.append({"type": "function", "function": {**function, "parameters": schema}})  # type: ignore[typeddict-item]
    choice: Any = "auto"
    named = _NAMED_RULE.search(text)
    if named:
        choice = {"type": "function", "function": {"name": named.group(1)}}
    elif "You must call at least one tool in this reply." in text:
        choice = "required"
    return tools, choice, "Call at most one tool per reply." not in text


def _envelope_tools(schema: dict[str, Any]) -> tuple[list[ToolSpec], Any, bool]:
    """The tools are the branches of ``reply.calls.items``; the variants say whether a final answer is allowed."""
    reply = ((schema.get("properties") or {}).get("reply")) or schema
    variants = reply.get("anyOf") if isinstance(reply.get("anyOf"), list) else [reply]
    defs = schema.get("$defs") or {}
    tools: list[ToolSpec] = []
    final, parallel = False, True
    for variant in variants:
        properties = variant.get("properties") or {}
        kind = ((properties.get("type") or {}).get("enum") or [None])[0]
        if kind == "final":
            final = True
        calls = properties.get("calls") or {}
        parallel = parallel and calls.get("maxItems") != 1
        for branch in (calls.get("items") or {}).get("anyOf") or []:
            tool = _branch_tool(branch, defs)
            if tool is not None:
                tools.append(tool)
    choice: Any = "auto" if final else "required"
    if not final and len(tools) == 1:
        choice = {"type": "function", "function": {"name": tools[0]["function"]["name"]}}
    return tools, choice, parallel


def _branch_tool(branch: dict[str, Any], defs: dict[str, Any]) -> ToolSpec | None:
    properties = branch.get("properties") or {}
    names = (properties.get("name") or {}).get("enum") or []
    if not names:
        return None
    arguments = loosen(properties.get("arguments") or {})
    if defs:
        arguments = {**arguments, "$defs": {key: loosen(value) for key, value in defs.items()}}
    function = {"name": str(names[0]), "description": branch.get("description") or "", "parameters": arguments}
    return {"type": "function", "function": function}  # type: ignore[typeddict-item]


def loosen(schema: Any) -> Any:
    """A strict schema with its optional properties back: a property that accepts ``null`` is not required, and
    its value is generated without the null (a model leaves such a property out, or fills it in)."""
    if isinstance(schema, list):
        return [loosen(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: loosen(value) for key, value in schema.items()}
    properties = out.get("properties")
    if isinstance(properties, dict) and isinstance(out.get("required"), list):
        optional = {key for key, sub in properties.items() if _nullable(sub)}
        out["required"] = [key for key in out["required"] if key not in optional]
        out["properties"] = {key: _without_null(sub) if key in optional else sub for key, sub in properties.items()}
    return out


def _nullable(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if isinstance(kind, list) and "null" in kind:
        return True
    return any(isinstance(o, dict) and o.get("type") == "null" for o in schema.get("anyOf") or [])


def _without_null(schema: dict[str, Any]) -> dict[str, Any]:
    out = dict(schema)
    kind = out.get("type")
    if isinstance(kind, list):
        rest = [k for k in kind if k != "null"]
        out["type"] = rest[0] if len(rest) == 1 else rest
        if isinstance(out.get("enum"), list):
            out["enum"] = [v for v in out["enum"] if v is not None]
    if isinstance(out.get("anyOf"), list):
        rest = [o for o in out["anyOf"] if not (isinstance(o, dict) and o.get("type") == "null")]
        if len(rest) == 1 and isinstance(rest[0], dict):
            del out["anyOf"]
            out.update(rest[0])
        else:
            out["anyOf"] = rest
    return out


def _history(messages: list[Message], mode: Mode, names: list[str]) -> list[Message]:
    """Assistant text holding calls -> assistant ``tool_calls``; a user message of results -> tool messages, the
    calls taking the ids the results name (the text form of a call carries no id)."""
    out: list[Message] = []
    for message in messages:
        role, text = message.get("role"), text_of(message.get("content"))
        if role == "assistant" and isinstance(message.get("content"), str):
            out.append(_assistant(text, mode, names))
        elif role == "user" and _RESULT.match(text):
            results = _results(text)
            _rename_calls(out, results)
            out.extend(results)
        else:
            out.append(message)
    return out


def _assistant(text: str, mode: Mode, names: list[str]) -> Message:
    if mode.kind == PROMPTED:
        found = extract_calls(text, tools=names)
        return found.message()
    try:
        return parse_structured(text).message()
    except StructuredReplyError:
        return {"role": "assistant", "content": text}


def _results(text: str) -> list[Message]:
    matches = list(_RESULT.finditer(text))
    out: list[Message] = []
    for position, match in enumerate(matches):
        end = matches[position + 1].start() if position + 1 < len(matches) else len(text)
        message: Message = {"role": "tool", "tool_call_id": match.group("id"), "name": match.group("name")}
        message["content"] = text[match.end() : end].strip()
        if match.group("failed"):
            message["is_error"] = True
        out.append(message)
    return out


def _rename_calls(out: list[Message], results: list[Message]) -> None:
    last = out[-1] if out else None
    if last is None or last.get("role") != "assistant" or not last.get("tool_calls"):
        return
    ids = [(r.get("name"), r.get("tool_call_id", "")) for r in results]
    calls: list[ToolCall] = []
    for call in last.get("tool_calls") or []:
        match = next((pair for pair in ids if pair[0] == call["function"]["name"]), None)
        if match is not None:
            ids.remove(match)
            call = {**call, "id": match[1]}
        calls.append(call)
    last["tool_calls"] = calls


# --- the reply, in the requested form ------------------------------------------------------------------------


def wrap(reply: Reply, mode: Mode, *, preamble: str | None = None) -> Reply:
    """The reply's calls written as text: fenced blocks (prompted) or the envelope (structured)."""
    if mode.kind == PROMPTED:
        blocks = [f"```tool_call\n{_call_object(call)}\n```" for call in reply.calls]
        lead = reply.text or (preamble if reply.calls else None)
        text = "\n\n".join([lead, *blocks] if lead else blocks)
        return replace(reply, text=text or None, calls=())
    if mode.kind == STRUCTURED:
        if reply.calls:
            calls = ", ".join(_call_object(call) for call in reply.calls)
            text = f'{{"reply": {{"type": "tool_call", "calls": [{calls}]}}}}'
        else:
            text = json.dumps({"reply": {"type": "final", "text": reply.text or ""}}, ensure_ascii=False)
        return replace(reply, text=text, calls=())
    return reply


def _call_object(call: PlannedCall) -> str:
    # The arguments go in verbatim: a scripted or deliberately broken call stays exactly as written.
    arguments = call.arguments.strip() or "{}"
    return f'{{"name": {json.dumps(call.name)}, "arguments": {arguments}}}'
