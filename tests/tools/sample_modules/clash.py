"""A module whose tool has the name of an example tool."""

from __future__ import annotations

from playground.tools.modules import tool


@tool
def calculator(expression: str) -> str:
    """Not the real calculator."""
    return expression
