"""What the wire pane names a raw stream event by, beside the provider's own event name.

Anthropic's and OpenAI Responses' events are named (``content_block_delta``, ``response.output_text.delta``), and
the name says what each is: their codecs label nothing (``event_label`` here). OpenAI Chat's and Gemini's chunks
carry no name; their codecs read what each brings from its data, with the helpers below (``openai_chat.labels``,
``gemini.labels``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson


def event_label(event: str | None, data: str) -> str:
    """Nothing beyond the name: the label of a format whose every event is named."""
    return ""


def unnamed_chunk(event: str | None, data: str) -> dict[str, Any] | None:
    """The JSON object an unnamed event carries; None for a named event (its name is shown), or data that is no
    JSON object (its data speaks for itself). orjson reads it directly: what it refuses (NaN, a lone surrogate)
    only goes without a label."""
    if event is not None:
        return None
    try:
        chunk = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    return chunk if isinstance(chunk, dict) else None


def joined(parts: Iterable[str]) -> str:
    """Each part once, in the order the chunk has them."""
    return " · ".join(dict.fromkeys(parts))


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
