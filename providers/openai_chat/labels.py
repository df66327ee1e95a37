"""What each raw stream event adds, in a few words, for the wire pane.

OpenAI Chat's chunks carry no SSE event name, and each begins with the same id, object, creation time and model:
two lines of a chunk show nothing of what it brings. The pane shows this label in the name's place instead:
``content``, ``tool_calls[1].arguments``, ``finish_reason: tool_calls``, ``usage``... A chunk that is not JSON, or
brings none of these, gets no label, and its data speaks for itself.
"""

from __future__ import annotations

from typing import Any

from providers.event_labels import as_list, joined, unnamed_chunk
from providers.openai_chat.wire import DONE, REASONING_KEYS


def event_label(event: str | None, data: str) -> str:
    if event is None and data.strip() == DONE:
        return DONE
    chunk = unnamed_chunk(event, data)
    if chunk is None:
        return ""  # a named event (an error sent with an event line) names itself
    if chunk.get("error"):
        return "error"
    parts = [part for choice in as_list(chunk.get("choices")) for part in _choice_parts(choice)]
    if chunk.get("usage"):
        parts.append("usage")
    return joined(parts)


def _choice_parts(choice: Any) -> list[str]:
    if not isinstance(choice, dict):
        return []
    delta = choice.get("delta") if isinstance(choice.get("delta"), dict) else {}
    parts = [_call_part(call) for call in as_list(delta.get("tool_calls")) if isinstance(call, dict)]
    if any(delta.get(key) for key in REASONING_KEYS):
        parts.append("reasoning")
    parts += [key for key in ("content", "refusal") if delta.get(key)]
    if not parts and delta.get("role"):
        parts.append("role")
    if choice.get("finish_reason"):
        parts.append(f"finish_reason: {choice['finish_reason']}")
    return parts


def _call_part(call: dict[str, Any]) -> str:
    """Its name starts a call, then fragments of its arguments follow; some servers (Ollama, Mistral) send a call
    whole in one chunk."""
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    field = ("name + arguments" if function.get("arguments") else "name") if function.get("name") else "arguments"
    return f"tool_calls[{call.get('index') or 0}].{field}"
