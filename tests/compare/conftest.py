"""Compare fixtures: the simulated endpoints and example tools of the chat tests, and a plan builder."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from playground.compare.service import ComparePlan, parse_plan

if TYPE_CHECKING:
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team


@pytest.fixture
def simulated(team: Team, settings: SettingsWrapper, simulator_url: str) -> dict[str, int]:
    """The simulated endpoints by name (their ids), the example tools in ``team``, the simulator unpaced."""
    from playground.demo.catalog import load_example_tools, load_simulated_endpoints

    settings.CROSSWIRE_SIMULATOR_URL = simulator_url
    settings.CROSSWIRE_SIMULATOR_PACE_MS = 0
    endpoints = load_simulated_endpoints()
    load_example_tools(team)
    return {e.name: e.pk for e in endpoints}


def plan(
    columns: list[tuple[int, str]], text: str = "What's the weather in Paris and Tokyo?", repeat: int = 1, **shared: Any
) -> ComparePlan:
    """A plan for (endpoint id, model) columns, with the weather and calculator tools offered to each."""
    base = {"text": text, "tools": ["get_weather", "calculator"], "tool_choice": "auto", "parallel_tool_calls": True}
    specs = [{"endpoint_id": endpoint_id, "model": model, "max_tokens": 512} for endpoint_id, model in columns]
    return parse_plan({**base, **shared}, specs, repeat)
