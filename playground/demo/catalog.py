"""The endpoints and example tools a fresh install starts with, so the first chat works with no API key."""

from __future__ import annotations

from typing import Any

from playground.endpoints.models import Endpoint
from playground.teams.models import Team
from playground.tools import examples
from playground.tools.models import Tool
from playground.tools.modules import described
from providers.simulator import anthropic_server, gemini_server, openai_server, responses_server
from providers.simulator.app import BASE_PATHS

SIMULATED = (
    ("Simulated OpenAI", "openai-chat", BASE_PATHS["openai-chat"], openai_server.MODELS),
    ("Simulated OpenAI Responses", "openai-responses", BASE_PATHS["openai-responses"], responses_server.MODELS),
    ("Simulated Anthropic", "anthropic", BASE_PATHS["anthropic"], anthropic_server.MODELS),
    ("Simulated Gemini", "gemini", BASE_PATHS["gemini"], gemini_server.MODELS),
)


def load_simulated_endpoints() -> list[Endpoint]:
    """The built-in simulator endpoints, visible to every team (idempotent)."""
    endpoints = []
    for name, fmt, path, models in SIMULATED:
        endpoint, _ = Endpoint.objects.update_or_create(
            team=None,
            name=name,
            defaults={
                "kind": Endpoint.Kind.SIMULATED,
                "format": fmt,
                "base_url": path,
                "model_names": list(models),
                "default_model": "sim-1",
                "supports_reasoning": True,
            },
        )
        endpoints.append(endpoint)
    return endpoints


# Straight from the examples module, so the demo data does not depend on which tool modules are configured.
_WEATHER, _CALCULATOR, _CHART = (described(f) for f in (examples.get_weather, examples.calculator, examples.bar_chart))

EXAMPLE_TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": _WEATHER.parameters,
        "mode": Tool.Mode.BUILTIN,
        "builtin": "get_weather",
    },
    {
        "name": "calculator",
        "description": _CALCULATOR.description,
        "parameters": _CALCULATOR.parameters,
        "mode": Tool.Mode.BUILTIN,
        "builtin": "calculator",
    },
    {
        "name": "bar_chart",
        "description": _CHART.description,
        "parameters": _CHART.parameters,
        "mode": Tool.Mode.BUILTIN,
        "builtin": "bar_chart",
    },
    {
        "name": "lookup_order",
        "description": "Look up an order by its id and return its status.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string", "description": "e.g. A-1001"}},
            "required": ["order_id"],
            "additionalProperties": False,
        },
        "mode": Tool.Mode.CANNED,
        "canned_rules": [
            {"when": {"order_id": "A-1001"}, "response": '{"status": "shipped", "eta": "2 days"}'},
            {"when": {"order_id": "A-0000"}, "response": "Order not found", "is_error": True},
        ],
        "canned_default": '{"status": "processing"}',
    },
    {
        "name": "search_docs",
        "description": "Search the product documentation; you type the result.",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1, "maximum": 10}},
            "required": ["query"],
        },
        "mode": Tool.Mode.MANUAL,
    },
]


def load_example_tools(team: Team) -> None:
    for spec in EXAMPLE_TOOLS:
        Tool.objects.get_or_create(
            team=team, name=spec["name"], defaults={k: v for k, v in spec.items() if k != "name"}
        )
