"""The small, safe set of built-in tools: no user code, no network, deterministic where it can be.

Each built-in is a JSON Schema plus a function from validated arguments to a result (a string, or content parts
when it returns an image, as ``bar_chart`` does), so a conversation that uses them replays identically (the clock and
the seeded random aside, which say so in their results).
"""

from __future__ import annotations

import ast
import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import simpleeval
from simpleeval import SimpleEval

from playground.tools import chart
from playground.tools.content import Content
from playground.tools.results import ToolFailure


@dataclass(frozen=True)
class Builtin:
    name: str
    description: str
    parameters: dict[str, Any]
    run: Callable[[dict[str, Any]], Content]


# Big integers are computed before anything can time out: 9**3999999 would hold the event loop for seconds.
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


def _calculator(args: dict[str, Any]) -> str:
    operators = {**simpleeval.DEFAULT_OPERATORS, ast.Mult: _mult, ast.Pow: _power}
    evaluator = SimpleEval(operators=operators, functions={"abs": abs, "round": round, "min": min, "max": max})
    try:
        value = evaluator.eval(str(args["expression"]))
        return json.dumps({"expression": args["expression"], "result": value})
    except ToolFailure:
        raise
    except Exception as exc:  # simpleeval, overflow and json raise many kinds; all mean "cannot evaluate"
        raise ToolFailure(f"Cannot evaluate {args['expression']!r}: {exc}") from None


def _current_time(args: dict[str, Any]) -> str:
    name = args.get("timezone") or "UTC"
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


def _convert_units(args: dict[str, Any]) -> str:
    ureg = _units()
    try:
        quantity = ureg.Quantity(float(args["value"]), str(args["from_unit"]))
        converted = quantity.to(str(args["to_unit"]))
    except Exception as exc:  # pint raises undefined-unit and dimensionality errors
        raise ToolFailure(f"Cannot convert {args['from_unit']} to {args['to_unit']}: {exc}") from None
    return json.dumps({"value": round(converted.magnitude, 6), "unit": args["to_unit"]})


def _random_number(args: dict[str, Any]) -> str:
    low, high = int(args.get("min", 1)), int(args.get("max", 100))
    if low > high:
        raise ToolFailure(f"min ({low}) is greater than max ({high}).")
    seed = int(args.get("seed", 0))
    return json.dumps({"value": random.Random(seed).randint(low, high), "seed": seed})


_CONDITIONS = ["sunny", "partly cloudy", "cloudy", "light rain", "showers", "windy", "snow", "fog"]


def _weather(args: dict[str, Any]) -> str:
    city = str(args["city"]).strip()
    unit = args.get("unit", "celsius")
    # A fake but stable forecast: the same city always gets the same weather, so replays repeat.
    digest = int(hashlib.sha256(city.lower().encode()).hexdigest(), 16)
    celsius = digest % 35 - 5
    temperature = celsius if unit == "celsius" else round(celsius * 9 / 5 + 32)
    condition = _CONDITIONS[digest % len(_CONDITIONS)]
    return json.dumps({"city": city, "temperature": temperature, "unit": unit, "condition": condition})


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


BUILTINS: dict[str, Builtin] = {
    b.name: b
    for b in [
        Builtin(
            "calculator",
            "Evaluate an arithmetic expression such as (2 + 3) * 4 / 7.",
            _object({"expression": {"type": "string", "description": "Arithmetic, e.g. 2 ** 10 / 3"}}, ["expression"]),
            _calculator,
        ),
        Builtin(
            "current_time",
            "The current date and time in a time zone.",
            _object({"timezone": {"type": "string", "description": "IANA name, e.g. Europe/Paris"}}, ["timezone"]),
            _current_time,
        ),
        Builtin(
            "convert_units",
            "Convert a quantity between units (length, mass, temperature, volume, speed...).",
            _object(
                {
                    "value": {"type": "number"},
                    "from_unit": {"type": "string", "description": "e.g. mile, kg, degF"},
                    "to_unit": {"type": "string", "description": "e.g. km, lb, degC"},
                },
                ["value", "from_unit", "to_unit"],
            ),
            _convert_units,
        ),
        Builtin(
            "random_number",
            "A random integer between min and max, reproducible with a seed.",
            _object(
                {"min": {"type": "integer"}, "max": {"type": "integer"}, "seed": {"type": "integer"}}, ["min", "max"]
            ),
            _random_number,
        ),
        Builtin(
            "get_weather",
            "Current weather for a city (a simulated weather service).",
            _object(
                {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                ["city"],
            ),
            _weather,
        ),
        Builtin(
            "bar_chart",
            "Draw a bar chart of labelled values; returns a PNG image and a short summary.",
            chart.PARAMETERS,
            chart.bar_chart,
        ),
    ]
}
