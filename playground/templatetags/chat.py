"""Template helpers for the chat panes."""

from __future__ import annotations

import json
from typing import Any

from django import template

from providers.formats import get_format

register = template.Library()


@register.filter
def json_pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


@register.simple_tag
def event_label(format_name: str, event: dict[str, Any]) -> str:
    """What a raw event brings, for a format whose events have no name (see each codec's ``event_label``)."""
    try:
        codec = get_format(format_name)
    except ValueError:  # a round trip saved under a format this version no longer has
        return ""
    return codec.event_label(event.get("event"), str(event.get("data", "")))
