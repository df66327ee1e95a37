"""The ``bar_chart`` built-in's drawing (the tool itself is in ``examples``): a small PNG bar chart, returned as a
text summary and the image (content parts).

Drawn with Pillow and its bundled font, so the same arguments give the same bytes on any machine and a replayed
conversation gets the very same image. The model reads the summary; a vision model can read the chart too.
"""

from __future__ import annotations

import base64
import io
import math
from typing import TYPE_CHECKING, Any

from playground.tools.content import Content
from playground.tools.results import ToolFailure

if TYPE_CHECKING:
    from PIL.ImageDraw import ImageDraw
    from PIL.ImageFont import FreeTypeFont

WIDTH, HEIGHT = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 64, 20, 48, 52  # the plot's margins: value ticks left, labels below, title above
MAX_BARS = 12
TICKS = 4
BAR = "#4f6bed"
INK, GRID, MUTED = "#1f2430", "#e3e6ee", "#5b6275"


def bar_chart(title: str, bars: list[tuple[str, float]]) -> Content:
    title = title.strip() or "Untitled"
    if not bars or len(bars) > MAX_BARS:
        raise ToolFailure(f"Give between 1 and {MAX_BARS} bars; got {len(bars)}.")
    png = render_png(title, bars)
    url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    return [{"type": "text", "text": summary(title, bars, len(png))}, {"type": "image_url", "image_url": {"url": url}}]


def summary(title: str, bars: list[tuple[str, float]], size: int) -> str:
    high = max(bars, key=lambda bar: bar[1])
    low = min(bars, key=lambda bar: bar[1])
    count = f"{len(bars)} bar{'s' if len(bars) != 1 else ''}"
    extremes = f"highest {high[0]} ({number(high[1])}), lowest {low[0]} ({number(low[1])})"
    return f"Bar chart “{title}”: {count}, {extremes}. PNG {WIDTH}x{HEIGHT}, {size} bytes."


def number(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.4g}"


def render_png(title: str, bars: list[tuple[str, float]]) -> bytes:
    from PIL import Image, ImageDraw, ImageFont  # loaded on first use, like the other built-ins' heavy helpers

    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    small, large = ImageFont.load_default(size=12), ImageFont.load_default(size=16)
    draw.text((WIDTH / 2, 16), _fit(title, large, WIDTH - 40), font=large, fill=INK, anchor="mt")
    low, high, step = axis(min(0.0, *(v for _, v in bars)), max(0.0, *(v for _, v in bars)))

    def y(value: float) -> float:
        return HEIGHT - BOTTOM - (value - low) / (high - low) * (HEIGHT - BOTTOM - TOP)

    _grid(draw, small, low, high, step, y)
    slot = (WIDTH - LEFT - RIGHT) / len(bars)
    for index, (label, value) in enumerate(bars):
        left = LEFT + index * slot + slot * 0.15
        right = left + slot * 0.7
        top, bottom = sorted((y(value), y(0.0)))
        draw.rectangle((left, top, right, max(bottom, top + 1)), fill=BAR)
        middle = (left + right) / 2
        above = top - 4 if value >= 0 else y(0.0) - 4  # a negative bar's value sits above the zero line
        draw.text((middle, above), _fit(number(value), small, slot), font=small, fill=INK, anchor="ms")
        draw.text((middle, HEIGHT - BOTTOM + 8), _fit(label, small, slot - 4), font=small, fill=MUTED, anchor="mt")
    draw.line((LEFT, y(0.0), WIDTH - RIGHT, y(0.0)), fill=INK, width=1)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


def axis(low: float, high: float) -> tuple[float, float, float]:
    """The value axis: bounds on round ticks (1, 2 or 5 times a power of ten) about TICKS apart, and the step."""
    span = high - low or 1.0  # all zero: an axis of 0..1
    rough = span / TICKS
    power = 10 ** math.floor(math.log10(rough))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= rough)
    return float(math.floor(low / step) * step), float(math.ceil(high / step) * step or step), float(step)


def _grid(draw: ImageDraw, font: FreeTypeFont, low: float, high: float, step: float, y: Any) -> None:
    for index in range(round((high - low) / step) + 1):
        value = low + index * step
        draw.line((LEFT, y(value), WIDTH - RIGHT, y(value)), fill=GRID, width=1)
        draw.text((LEFT - 6, y(value)), _fit(number(value), font, LEFT - 8), font=font, fill=MUTED, anchor="rm")


def _fit(text: str, font: FreeTypeFont, width: float) -> str:
    """``text`` cut with an ellipsis until it is at most ``width`` pixels wide."""
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text + "…" if text else ""
