"""The example built-in tools, a tool module like any other (``CROSSWIRE_TOOL_MODULES`` loads it by default).

Safe by design: no user code, no network, deterministic where they can be, so a conversation that uses them
replays identically (the clock and the seeded random aside, which say so in their results). ``bar_chart`` answers
with content parts: a summary and a PNG.
"""

from __future__ import annotations

import ast
import hashlib
import json
import random
from datetime import UTC, datetime
from functools import lru_cache
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import simpleeval
from pydantic import BaseModel, ConfigDict, Field
from simpleeval import SimpleEval

from playground.tools import chart
from playground.tools.content import Content
from playground.tools.modules import tool
from playground.tools.results import ToolFailure

# Big integers are computed before anything can time out: 9**3999999 would hold a worker for seconds.
MAX_BITS = 4096  # about 1,200 decimal digits


def _too_large() -> ToolFailure:
    return ToolFailure(f"The result would be too large (over {MAX_BITS} bits).")


def _mult(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int) and a.bit_length() + b.bit_length() > MAX_BITS:
        raise _too_large()
    return simpleeval.safe_mult(a, b)


def _power(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1 and a.bit_length() * b > MAX_BITS:
        raise _too_large()
    return simpleeval.safe_power(a, b)


@tool
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression such as (2 + 3) * 4 / 7.

    Args:
        expression: Arithmetic, e.g. 2 ** 10 / 3
    """
    operators = {**simpleeval.DEFAULT_OPERATORS, ast.Mult: _mult, ast.Pow: _power}
    evaluator = SimpleEval(operators=operators, functions={"abs": abs, "round": round, "min": min, "max": max})
    try:
        value = evaluator.eval(expression)
        return json.dumps({"expression": expression, "result": value})
    except ToolFailure:
        raise
    except Exception as exc:  # simpleeval, overflow and json raise many kinds; all mean "cannot evaluate"
        raise ToolFailure(f"Cannot evaluate {expression!r}: {exc}") from None


@tool
def current_time(timezone: str) -> str:
    """The current date and time in a time zone.

    Args:
        timezone: IANA name, e.g. Europe/Paris
    """
    name = timezone or "UTC"
    try:
        zone = ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ToolFailure(f"Unknown time zone {name!r}; use an IANA name such as Europe/Paris.") from None
    now = datetime.now(UTC).astimezone(zone)
    return json.dumps({"timezone": name, "iso": now.isoformat(timespec="seconds"), "weekday": now.strftime("%A")})


@lru_cache(maxsize=1)
def _units() -> Any:
    import pint  # loaded on first use: its unit registry takes a moment to build

    return pint.UnitRegistry()


@tool
def convert_units(value: float, from_unit: str, to_unit: str) -> str:
    """Convert a quantity between units (length, mass, temperature, volume, speed...).

    Args:
        value: The quantity to convert.
        from_unit: e.g. mile, kg, degF
        to_unit: e.g. km, lb, degC
    """
    ureg = _units()
    try:
        converted = ureg.Quantity(value, from_unit).to(to_unit)
    except Exception as exc:  # pint raises undefined-unit and dimensionality errors
        raise ToolFailure(f"Cannot convert {from_unit} to {to_unit}: {exc}") from None
    return json.dumps({"value": round(converted.magnitude, 6), "unit": to_unit})


@tool
def random_number(min: int, max: int, seed: int = 0) -> str:
    """A random integer between min and max, reproducible with a seed.

    Args:
        min: The smallest value.
        max: The largest value.
        seed: The same seed gives the same number.
    """
    if min > max:
        raise ToolFailure(f"min ({min}) is greater than max ({max}).")
    return json.dumps({"value": random.Random(seed).randint(min, max), "seed": seed})


_CONDITIONS = ["sunny", "partly cloudy", "cloudy", "light rain", "showers", "windy", "snow", "fog"]


@tool
def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Current weather for a city (a simulated weather service).

    Args:
        city: The city, e.g. Paris.
        unit: Temperature unit.
    """
    city = city.strip()
    # A fake but stable forecast: the same city always gets the same weather, so replays repeat.
    digest = int(hashlib.sha256(city.lower().encode()).hexdigest(), 16)
    celsius = digest % 35 - 5
    temperature = celsius if unit == "celsius" else round(celsius * 9 / 5 + 32)
    condition = _CONDITIONS[digest % len(_CONDITIONS)]
    return json.dumps({"city": city, "temperature": temperature, "unit": unit, "condition": condition})


class Bar(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: Annotated[str, Field(description="e.g. Q1")]
    value: float


@tool
def bar_chart(
    title: str,
    bars: Annotated[list[Bar], Field(min_length=1, max_length=chart.MAX_BARS)],
) -> Content:
    """Draw a bar chart of labelled values; returns a PNG image and a short summary.

    Args:
        title: Shown above the chart, e.g. Sales by quarter
        bars: One bar per item, in order (at most 12)
    """
    return chart.bar_chart(title, [(bar.label, bar.value) for bar in bars])
