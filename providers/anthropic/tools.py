"""Tool definitions on their own (a tool library's import and export), mapped exactly as requests map them."""

from __future__ import annotations

from typing import Any

from providers.anthropic.toplevel import tools_from_wire, tools_to_wire
from providers.types import ToolSpec


def encode_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Internal tool specs -> Anthropic ``tools`` entries; tools that are not named functions are left out."""
    return tools_to_wire(tools, None, [])


def import_tools(wire_tools: list[dict[str, Any]]) -> list[ToolSpec]:
    """Anthropic ``tools`` entries -> internal specs; server tools (web_search, bash...) have no equivalent."""
    return tools_from_wire(wire_tools)
