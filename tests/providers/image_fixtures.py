"""Shared pieces for the image tests: a real 1x1 PNG, and a conversation whose user message and tool result hold
images, in the internal (OpenAI Chat) form every codec starts from."""

from __future__ import annotations

from typing import Any

from providers.types import Message

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP438DwHwAGgAJ/EEwb4QAAAABJRU5ErkJggg=="
PNG_BYTES = 70
PNG_URL = f"data:image/png;base64,{PNG}"
PHOTO_URL = "https://example.com/photos/cat.jpg"
CHART_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "make_chart",
        "description": "Draw a chart of the sales",
        "parameters": {"type": "object", "properties": {"year": {"type": "integer"}}},
    },
}


def image(url: str, detail: str | None = None) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": url, **({"detail": detail} if detail else {})}}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def call(call_id: str, name: str = "make_chart", arguments: str = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def turn(*calls: dict[str, Any]) -> Message:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}  # type: ignore[typeddict-item]


def result(call_id: str, *parts: dict[str, Any]) -> Message:
    return {"role": "tool", "tool_call_id": call_id, "content": list(parts)}


USER: Message = {"role": "user", "content": [text("Chart the sales like this one"), image(PNG_URL)]}
CONVERSATION: list[Message] = [
    USER,
    turn(call("call_chart")),
    result("call_chart", text("Sales chart"), image(PNG_URL)),
]


def request(*messages: Message, **fields: Any) -> dict[str, Any]:
    return {"model": "sim-1", "messages": list(messages or CONVERSATION), **fields}
