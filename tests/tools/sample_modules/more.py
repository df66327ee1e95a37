"""A second tool module, to load beside the first."""

from __future__ import annotations

from playground.tools.modules import tool
from tests.tools.sample_modules.shop import place_order  # noqa: F401  (imported, so not one of this module's tools)


@tool
def ping(message: str = "ping") -> str:
    """Answer pong."""
    return f"pong: {message}"
