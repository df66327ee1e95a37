"""Small real images for the chat tests, built in memory, and the composer's ``images`` entries that carry them."""

from __future__ import annotations

import base64
import io
from typing import Any

from PIL import Image

# The same 1x1 PNG the provider tests use: 70 bytes once decoded.
from tests.providers.image_fixtures import PNG, PNG_BYTES, PNG_URL

__all__ = ["PNG", "PNG_BYTES", "PNG_URL", "attached", "encoded"]


def encoded(kind: str, size: tuple[int, int] = (4, 3)) -> str:
    """A real image of ``kind`` (PNG, JPEG, WEBP, GIF) as base64."""
    out = io.BytesIO()
    Image.new("RGB", size, (200, 40, 40)).save(out, kind)
    return base64.b64encode(out.getvalue()).decode("ascii")


def attached(url: str = PNG_URL, name: str = "dot.png") -> dict[str, Any]:
    return {"name": name, "url": url}
