"""What answering a tool call produces, whatever the tool's mode."""

from __future__ import annotations

from dataclasses import dataclass


class ToolFailure(Exception):
    """A tool ran but failed; the message goes back to the model as an error result."""


@dataclass(frozen=True, slots=True)
class ToolResult:
    content: str
    is_error: bool = False
    source: str = ""  # "builtin:calculator", "canned:rule 2", "canned:default", "manual", "validation"
