"""Small builders of internal requests for the Anthropic request tests: a two-call tool loop and its pieces."""

from __future__ import annotations

from typing import Any

from providers.types import ChatRequest, Message, ToolCall


def call(call_id: str, name: str = "add", arguments: Any = '{"a":2,"b":3}') -> ToolCall:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def request(*messages: Message, **extra: Any) -> ChatRequest:
    return {"model": "claude-sonnet-4-20250514", "max_tokens": 1024, "messages": list(messages), **extra}  # type: ignore[typeddict-item]


def loop(*results: Message, calls: list[ToolCall] | None = None) -> list[Message]:
    calls = calls if calls is not None else [call("toolu_A"), call("toolu_B", "multiply")]
    return [
        {"role": "user", "content": "Add and multiply 2 and 3"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *results,
    ]


def tool(call_id: str, content: Any = "5", **extra: Any) -> Message:
    return {"role": "tool", "tool_call_id": call_id, "content": content, **extra}  # type: ignore[typeddict-item]
