"""The Compare form's fields: what every column shares, and ``col-N-<field>`` for each column's own settings."""

from __future__ import annotations

import re
from typing import Any

from django.http import QueryDict

from playground.compare.service import COLUMN_FIELDS, MAX_COLUMNS

COLUMN_KEY = re.compile(r"^col-(\d{1,2})-(\w+)$")
CHECKBOXES = ("reasoning",)


def posted_columns(data: QueryDict) -> list[dict[str, Any]]:
    """The columns in the order of their index, each a dict of the chat option names it set."""
    columns: dict[int, dict[str, Any]] = {}
    for key in data:
        match = COLUMN_KEY.match(key)
        if match and match.group(2) in COLUMN_FIELDS:
            columns.setdefault(int(match.group(1)), {})[match.group(2)] = data.get(key)
    ordered = [columns[i] for i in sorted(columns)][: MAX_COLUMNS + 1]  # one too many still reads as "too many"
    for column in ordered:
        for name in CHECKBOXES:
            column[name] = column.get(name) == "on"
        if column.get("temperature") == "":
            column["temperature"] = None
    return ordered


def posted_shared(data: QueryDict) -> dict[str, Any]:
    return {
        "text": data.get("text", ""),
        "system": data.get("system", ""),
        "tools": data.getlist("tools"),
        "tool_choice": data.get("tool_choice") or "auto",
        "parallel_tool_calls": data.get("parallel_tool_calls") == "on",
        "max_round_trips": data.get("max_round_trips") or None,
    }


def initial_columns(endpoints: list[Any]) -> list[dict[str, Any]]:
    """A new comparison starts with the simulator in three dialects: OpenAI, Anthropic and an OpenAI-compatible
    profile, so the first Run all shows provider differences with no key."""
    simulated = {e.format: e for e in endpoints if e.is_simulated}
    picks = [
        (simulated.get("openai-chat"), None),
        (simulated.get("anthropic"), None),
        (simulated.get("openai-chat"), "sim-openrouter"),
    ]
    columns = [
        {
            "endpoint_id": e.pk,
            "model": model or e.default_model,
            "reasoning": False,
            "temperature": None,
            "max_tokens": 1024,
            "strategy": "auto",
        }
        for e, model in picks
        if e is not None
    ]
    if not columns and endpoints:
        columns = [{"endpoint_id": endpoints[0].pk, "model": endpoints[0].default_model, "max_tokens": 1024}]
    return columns
