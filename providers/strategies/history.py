"""A conversation's tool turns rewritten as plain text, for strategies that send no ``tools`` to the model.

Without tools on the request, a provider refuses (or the model cannot read) assistant ``tool_calls`` and ``role:
"tool"`` messages. So each assistant turn with calls becomes text in the strategy's own reply form (the structured
envelope, or fenced ``tool_call`` blocks), and each run of tool results becomes ONE user message (alternating roles
keep Anthropic and Gemini happy), every result introduced as ``Result of NAME (CALL_ID):``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from providers.translation import Translation
from providers.types import Message

# An assistant message with calls -> its text form; ``notes`` gets what the rendering could not keep.
CallRenderer = Callable[[Message, int, list[str]], str]


def convert_history(messages: list[Message], render: CallRenderer, label: str) -> Translation[list[Message]]:
    notes: list[str] = []
    names: dict[str, str] = {}
    out: list[Message] = []
    position = 0
    while position < len(messages):
        message = messages[position]
        if message.get("role") == "tool":
            end = _run_end(messages, position)
            out.append(_results(messages[position:end], position, names, notes))
            position = end
            continue
        if message.get("role") == "assistant" and message.get("tool_calls"):
            calls = message.get("tool_calls") or []
            names.update({call.get("id", ""): call.get("function", {}).get("name", "?") for call in calls})
            out.append({"role": "assistant", "content": render(message, position, notes)})
            notes.append(f"message {position}: {len(calls)} tool call(s) sent as assistant text ({label} form)")
            if message.get("provider_data"):
                notes.append(f"message {position}: provider data dropped (the turn was rewritten as text)")
        else:
            out.append(message)
        position += 1
    return Translation(out, notes)


def add_instructions(messages: list[Message], text: str) -> list[Message]:
    """``text`` appended to the leading system (or developer) message, or sent as a new first system message."""
    first = messages[0] if messages else None
    if first is not None and first.get("role") in ("system", "developer"):
        content = first.get("content")
        if isinstance(content, str):
            return [{**first, "content": f"{content}\n\n{text}" if content.strip() else text}, *messages[1:]]
        if isinstance(content, list):
            return [{**first, "content": [*content, {"type": "text", "text": text}]}, *messages[1:]]
    return [{"role": "system", "content": text}, *messages]


def parse_arguments(arguments: Any, where: str, notes: list[str]) -> Any:
    """A call's argument text as a value; text that is not JSON stays a string (and is noted)."""
    if not isinstance(arguments, str) or not arguments.strip():
        return {}
    try:
        return json.loads(arguments)
    except ValueError:
        notes.append(f"{where}: arguments are not JSON; sent as a string")
        return arguments


def text_of(content: Any, where: str, notes: list[str]) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = [part for part in content if isinstance(part, dict)]
    texts = [str(part.get("text", "")) for part in parts if part.get("type") == "text"]
    if len(texts) < len(parts):
        notes.append(f"{where}: non-text content parts dropped")
    return "\n".join(texts)


def _run_end(messages: list[Message], start: int) -> int:
    end = start
    while end < len(messages) and messages[end].get("role") == "tool":
        end += 1
    return end


def _results(run: list[Message], start: int, names: dict[str, str], notes: list[str]) -> Message:
    blocks = []
    for offset, message in enumerate(run):
        call_id = message.get("tool_call_id", "")
        name = names.get(call_id, "an unknown tool")
        text = text_of(message.get("content"), f"message {start + offset}", notes)
        status = " (the tool failed)" if message.get("is_error") else ""
        separator = "\n" if "\n" in text else " "
        blocks.append(f"Result of {name} ({call_id}){status}:{separator}{text}")
    span = f"message {start}" if len(run) == 1 else f"messages {start}-{start + len(run) - 1}"
    notes.append(f'{span}: tool result(s) sent as one user message ("Result of NAME (CALL_ID): ...")')
    return {"role": "user", "content": "\n\n".join(blocks)}
