"""Reading an internal conversation the way the scripted model needs it: the current turn and the tool choice.

The turn starts at the last user message that is not an image carrier: a user message right after a tool message
that holds images and no text is how OpenAI Chat and Gemini carry a tool result's images (a tool message there
holds text only), so its images count as the results' and the turn goes on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from providers.simulator.images import Image, images_of
from providers.simulator.matching import tool_name
from providers.types import ChatRequest, Message, ToolSpec


@dataclass(frozen=True)
class ToolResult:
    name: str
    arguments: str
    content: str
    is_error: bool


@dataclass(frozen=True)
class Turn:
    """Everything since the last user message: what it said, the calls made since and their results."""

    user_text: str
    made: tuple[tuple[str, str], ...]  # (name, arguments) of the assistant calls after the user message
    results: tuple[ToolResult, ...]
    message_count: int
    user_images: tuple[Image, ...] = ()  # images of the user message
    result_images: tuple[Image, ...] = ()  # images of the tool results (and of the user messages carrying them)


@dataclass(frozen=True)
class Choice:
    mode: str  # "auto" | "none" | "required" | "named"
    name: str | None
    parallel: bool


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "\n".join(parts)
    return ""


def read_turn(messages: list[Message]) -> Turn:
    users = [i for i, m in enumerate(messages) if m.get("role") == "user" and not _carrier(messages, i)]
    start = users[-1] if users else -1
    user_content = messages[start].get("content") if start >= 0 else None
    calls: dict[str, tuple[str, str]] = {}
    made: list[tuple[str, str]] = []
    results: list[ToolResult] = []
    result_images: list[Image] = []
    for message in messages[start + 1 :]:
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            entry = (str(function.get("name", "")), str(function.get("arguments", "")))
            calls[call.get("id", "")] = entry
            made.append(entry)
        if message.get("role") in ("tool", "user"):
            result_images.extend(images_of(message.get("content")))  # a user message here is a carrier
        if message.get("role") == "tool":
            name, arguments = calls.get(message.get("tool_call_id", ""), ("a tool", ""))
            content = text_of(message.get("content"))
            results.append(ToolResult(name, arguments, content, bool(message.get("is_error"))))
    return Turn(
        text_of(user_content),
        tuple(made),
        tuple(results),
        len(messages),
        user_images=images_of(user_content),
        result_images=tuple(result_images),
    )


def _carrier(messages: list[Message], position: int) -> bool:
    """A user message of images only, right after a tool message: it carries that run's images."""
    content = messages[position].get("content")
    if position == 0 or messages[position - 1].get("role") != "tool" or not images_of(content):
        return False
    return not text_of(content).strip()


def read_choice(request: ChatRequest, tools: list[ToolSpec]) -> Choice:
    parallel = request.get("parallel_tool_calls", True) is not False
    raw = request.get("tool_choice", "auto")
    if isinstance(raw, dict):
        function = raw.get("function") if isinstance(raw.get("function"), dict) else raw
        name = function.get("name") if isinstance(function, dict) else None
        if isinstance(name, str) and name:
            return Choice("named", name, parallel)
        raw = "required" if raw.get("type") in ("any", "required") else "auto"
    if raw == "none" or not tools:
        return Choice("none" if raw == "none" else "auto", None, parallel)
    if raw in ("required", "any"):
        return Choice("required", None, parallel)
    return Choice("auto", None, parallel)


def tool_names(tools: list[ToolSpec]) -> list[str]:
    return [tool_name(t) for t in tools if tool_name(t)]
