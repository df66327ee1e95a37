"""The bar_chart built-in draws a real PNG and returns it beside a short summary, as content parts; the same
arguments give the same bytes, so a replay gets the same image."""

from __future__ import annotations

import base64
import json
import struct
from typing import Any

import pytest

from playground.tools.builtins import BUILTINS
from playground.tools.chart import HEIGHT, MAX_BARS, WIDTH, axis
from playground.tools.config import ToolConfig, answer_automatically
from playground.tools.images import sniff
from playground.tools.schema import check_arguments

BARS = [{"label": "Q1", "value": 12}, {"label": "Q2", "value": 19.5}, {"label": "Q3", "value": -4}]


def chart(**args: Any) -> list[dict[str, Any]]:
    result = BUILTINS["bar_chart"].run({"title": "Sales by quarter", "bars": BARS, **args})
    assert isinstance(result, list)
    return result


def png_of(parts: list[dict[str, Any]]) -> bytes:
    url = parts[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    return base64.b64decode(url.removeprefix("data:image/png;base64,"), validate=True)


def test_the_result_is_a_summary_then_a_png() -> None:
    parts = chart()
    assert [p["type"] for p in parts] == ["text", "image_url"]
    png = png_of(parts)
    assert sniff(png[:16]) == "image/png"
    assert png[12:16] == b"IHDR" and struct.unpack(">II", png[16:24]) == (WIDTH, HEIGHT) == (640, 360)
    assert png.endswith(b"IEND\xaeB`\x82")
    assert parts[0]["text"] == (
        f"Bar chart “Sales by quarter”: 3 bars, highest Q2 (19.5), lowest Q3 (-4). PNG 640x360, {len(png)} bytes."
    )


def test_the_same_arguments_draw_the_same_bytes() -> None:
    assert png_of(chart()) == png_of(chart())
    assert png_of(chart()) != png_of(chart(title="Another title"))


def test_it_answers_as_a_builtin_tool_with_content_parts() -> None:
    tool = ToolConfig(
        name="bar_chart", parameters=BUILTINS["bar_chart"].parameters, mode="builtin", builtin="bar_chart"
    )
    result = answer_automatically(tool, {"title": "One", "bars": [{"label": "only", "value": 0}]})
    assert result is not None and not result.is_error and result.source == "builtin:bar_chart"
    assert isinstance(result.content, list) and result.content[0]["text"].startswith("Bar chart “One”: 1 bar,")


@pytest.mark.parametrize(
    "arguments",
    [
        {"title": "None", "bars": []},
        {"title": "Too many", "bars": [{"label": str(n), "value": n} for n in range(MAX_BARS + 1)]},
        {"title": "No value", "bars": [{"label": "a"}]},
        {"bars": [{"label": "a", "value": 1}]},
    ],
)
def test_its_schema_refuses_what_it_cannot_draw(arguments: dict[str, Any]) -> None:
    assert not check_arguments(BUILTINS["bar_chart"].parameters, json.dumps(arguments)).ok


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [(0, 30, (0, 30, 10)), (-4, 30, (-10, 30, 10)), (0, 0, (0, 0.5, 0.5)), (0, 7, (0, 8, 2)), (0, 0.37, (0, 0.4, 0.1))],
)
def test_the_value_axis_falls_on_round_ticks(low: float, high: float, expected: tuple[float, float, float]) -> None:
    assert axis(low, high) == pytest.approx(expected)


def test_long_labels_and_twelve_bars_still_draw() -> None:
    bars = [{"label": f"A rather long label number {n}", "value": n * 1.5} for n in range(MAX_BARS)]
    assert sniff(png_of(chart(title="T" * 300, bars=bars))[:16]) == "image/png"
