"""Template helpers for MCP: the traffic pane beside a tool result."""

from __future__ import annotations

from typing import Any

from django import template

from playground.mcp.pane import Pane, pane

register = template.Library()


@register.filter
def mcp_pane(meta: Any) -> Pane | None:
    return pane(meta)
