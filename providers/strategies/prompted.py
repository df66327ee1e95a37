"""The prompted strategy: tools described in the system prompt, calls written by the model as fenced JSON blocks.

For models without tool calling. One fixed protocol (``PROTOCOL``, documented in docs/strategies.md): the model calls
a tool with a fenced block tagged ``tool_call`` holding ``{"name": ..., "arguments": {...}}``, several blocks for
parallel calls, or answers in plain text. ``tools`` and ``tool_choice`` are not sent; the history's calls and results
are rewritten in the same text form (``history``).

Reading the reply is tolerant (``prompted_stream``): other fences, bare objects, ``<tool_call>`` tags, single quotes,
Python literals, trailing commas, a missing closing brace at the end; every repair is reported. Arguments are not
checked against the tool's schema here (the tool loop does that), but unknown tool names are reported.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from providers.strategies.history import add_instructions, convert_history, parse_arguments, text_of
from providers.strategies.prompted_stream import PromptedStream
from providers.streaming import MessageAccumulator
from providers.translation import Translation
from providers.types import ChatRequest, Message, ToolCall, ToolSpec

PROTOCOL = """\
# Tools

You can call the tools listed below. To call a tool, reply with a fenced block tagged tool_call that holds one JSON \
object: the tool's name and its arguments.

```tool_call
{"name": "TOOL_NAME", "arguments": {"ARGUMENT": "VALUE"}}
```

Rules:
- "arguments" is a JSON object that follows the tool's parameters schema. Use double quotes, true/false/null.
- To call several tools at once, write one tool_call block per call, one after the other.
- After your tool_call blocks, stop: the results come back in a user message where each result starts with \
"Result of TOOL_NAME (CALL_ID):".
- When you do not need a tool, answer in plain text, without any tool_call block."""

_DROPPED = ("tools", "tool_choice", "parallel_tool_calls")


@dataclass
class Extraction:
    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # each repaired mistake, and what could not be read
    unknown: list[str] = field(default_factory=list)  # called names that are not among the tools

    def message(self) -> Message:
        message: Message = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = self.tool_calls
        return message


def prompted_request(request: ChatRequest) -> Translation[ChatRequest]:
    tools = [tool for tool in request.get("tools") or [] if (tool.get("function") or {}).get("name")]
    history = convert_history(list(request.get("messages") or []), render_calls, "prompted tool_call")
    notes = [*history.notes]
    out: dict[str, Any] = {key: value for key, value in request.items() if key not in _DROPPED}
    choice = request.get("tool_choice")
    if choice == "none" or not tools:
        notes.append("no tools described in the prompt (tool_choice none, or no tools)")
        out["messages"] = history.value
    else:
        text = protocol_text(tools, choice, request.get("parallel_tool_calls") is not False)
        out["messages"] = add_instructions(history.value, text)
        notes.append(f"{len(tools)} tool(s) described in the system prompt (prompted strategy); tools not sent")
    return Translation(out, notes)  # type: ignore[arg-type]


def protocol_text(tools: list[ToolSpec], choice: Any = None, parallel: bool = True) -> str:
    """The instruction text: the protocol, the choice rules, then each tool's name, description and schema."""
    rules = []
    if choice == "required":
        rules.append("You must call at least one tool in this reply.")
    elif isinstance(choice, dict) and (named := (choice.get("function") or {}).get("name")):
        rules.append(f"You must call the tool {named} in this reply.")
    if not parallel:
        rules.append("Call at most one tool per reply.")
    sections = [PROTOCOL, *rules, "## Available tools"]
    for tool in tools:
        function = tool["function"]
        schema = json.dumps(function.get("parameters") or {"type": "object", "properties": {}}, ensure_ascii=False)
        description = function.get("description") or "(no description)"
        sections.append(f"### {function['name']}\n{description}\nParameters (JSON Schema):\n```json\n{schema}\n```")
    return "\n\n".join(sections)


def extract_calls(text: str, tools: Collection[str] | None = None, response_id: str = "") -> Extraction:
    """The calls in a whole reply and the text around them; ``tools`` (names) to report unknown ones."""
    stream = PromptedStream(tools=tools, response_id=response_id)
    accumulator = MessageAccumulator()
    accumulator.extend(stream.feed(text))
    accumulator.extend(stream.close())
    message = accumulator.message()
    return Extraction(message.get("content"), message.get("tool_calls") or [], stream.notes, stream.unknown)  # type: ignore[arg-type]


def render_calls(message: Message, position: int, notes: list[str]) -> str:
    """An assistant turn with calls, as the model would have written it under the protocol."""
    blocks = []
    for call in message.get("tool_calls") or []:
        function = call["function"]
        arguments = parse_arguments(function.get("arguments"), f"message {position}", notes)
        body = json.dumps({"name": function["name"], "arguments": arguments}, ensure_ascii=False)
        blocks.append(f"```tool_call\n{body}\n```")
    text = text_of(message.get("content"), f"message {position}", notes).strip()
    return "\n\n".join([text, *blocks] if text else blocks)
