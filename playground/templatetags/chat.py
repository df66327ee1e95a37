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


@register.filter
def labelled(events: list[dict[str, Any]], format_name: str) -> list[tuple[dict[str, Any], str]]:
    """Each raw event with what it brings when it has no name (see each codec's ``event_label``), labelled in one
    pass: a tag per event would cost the page about twice as much again as the label itself."""
    try:
        label = get_format(format_name).event_label
    except ValueError:  # a round trip saved under a format this version no longer has
        return [(event, "") for event in events]
    return [(event, "" if event.get("event") else label(None, str(event.get("data", "")))) for event in events]
