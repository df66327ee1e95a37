"""How tool calls are answered and checked: pure Python, no Django, so the tool loop can be tested alone."""

from __future__ import annotations
