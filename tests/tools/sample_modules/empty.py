"""A module named as a tool module by mistake: it defines no tool."""

from __future__ import annotations


def helper() -> None:
    """Not a tool."""
