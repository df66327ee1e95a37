"""Template helpers for the chat panes."""

from __future__ import annotations

import json
from typing import Any

from django import template

register = template.Library()


@register.filter
def json_pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)
