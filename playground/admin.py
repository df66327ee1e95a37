"""Django's admin imports this module; each domain registers its own models in its ``admin`` module."""

from __future__ import annotations

from playground.teams import admin as teams_admin

__all__ = ["teams_admin"]
