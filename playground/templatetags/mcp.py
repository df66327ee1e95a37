"""Template helpers for MCP: the traffic pane beside a tool result, and how long ago a server was synced."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django import template
from django.utils import timezone
from django.utils.timesince import timesince

from playground.mcp.pane import Pane, pane

register = template.Library()


@register.filter
def mcp_pane(meta: Any) -> Pane | None:
    return pane(meta)


@register.filter
def since(moment: datetime | None) -> str:
    """ "just now" for the last minute (timesince would say "0 minutes"), else "3 hours ago"."""
    if moment is None:
        return ""
    if timezone.now() - moment < timedelta(minutes=1):
        return "just now"
    return f"{timesince(moment)} ago"
