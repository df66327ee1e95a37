"""A module with a tool that cannot be described: a parameter without a type hint."""

from __future__ import annotations

from playground.tools.modules import tool


@tool
def lookup(query) -> str:  # type: ignore[no-untyped-def]
    """Look something up."""
    return str(query)
