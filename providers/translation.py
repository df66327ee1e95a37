"""A translated value plus the human-readable notes on what the translation changed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass
class Translation(Generic[T]):
    value: T
    notes: list[str] = field(default_factory=list)


class TranslationError(ValueError):
    """The input cannot be translated (an empty tool call id, a malformed message...). The message says why."""
