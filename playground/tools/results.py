"""What answering a tool call produces, whatever the tool's mode."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from playground.tools.content import Content, content_of


class ToolFailure(Exception):
    """A tool ran but failed; the message goes back to the model as an error result."""


@dataclass(frozen=True, slots=True)
class ToolResult:
    content: Content  # text, or content parts (text and image_url) when the result holds an image
    is_error: bool = False
    source: str = ""  # "builtin:calculator", "canned:rule 2", "canned:default", "manual", "validation"
    # Saved with the tool message, beside the result (an MCP call's JSON-RPC traffic); never sent to the model.
    meta: Mapping[str, Any] | None = None


def call_key(name: str, arguments: Any) -> tuple[str, str]:
    """A call as a replay matches it: the tool, and its arguments as canonical JSON (key order and spacing aside)."""
    return name, json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def recorded_results(rows: list[Mapping[str, Any]]) -> dict[tuple[str, str], ToolResult]:
    """Saved ``{name, arguments, content, is_error}`` rows (a replay's originals) by call key; the first one wins.

    An original result of content parts was saved as their JSON text: it is given again as those parts, image and
    all, not as a text holding base64.
    """
    results: dict[tuple[str, str], ToolResult] = {}
    for row in rows:
        key = (str(row.get("name", "")), str(row.get("arguments", "")))
        content = row.get("content", "")
        if not isinstance(content, list):
            content = content_of(str(content))
        results.setdefault(key, ToolResult(content, bool(row.get("is_error")), "replay"))
    return results
