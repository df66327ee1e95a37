"""Small real images for the chat tests, built in memory, and the composer's ``images`` entries that carry them."""

from __future__ import annotations

import base64
import io
from typing import Any

from PIL import Image

# The same 1x1 PNG the provider tests use (tests/providers/image_fixtures.py): 70 bytes once decoded.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP438DwHwAGgAJ/EEwb4QAAAABJRU5ErkJggg=="
PNG_BYTES = 70
PNG_URL = f"data:image/png;base64,{PNG}"


def encoded(kind: str, size: tuple[int, int] = (4, 3)) -> str:
    """A real image of ``kind`` (PNG, JPEG, WEBP, GIF) as base64."""
    out = io.BytesIO()
    Image.new("RGB", size, (200, 40, 40)).save(out, kind)
    return base64.b64encode(out.getvalue()).decode("ascii")


def attached(url: str = PNG_URL, name: str = "dot.png") -> dict[str, Any]:
    return {"name": name, "url": url}
