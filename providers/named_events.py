"""The wire pane's label for formats whose every stream event has an SSE name (Anthropic, OpenAI Responses)."""

from __future__ import annotations


def event_label(event: str | None, data: str) -> str:
    """Nothing beyond the name: ``content_block_delta`` or ``response.output_text.delta`` says what the event is."""
    return ""
