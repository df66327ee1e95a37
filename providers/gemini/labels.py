"""What each raw stream event adds, in a few words, for the wire pane.

Gemini's chunks carry no SSE event name; each is a whole ``GenerateContentResponse`` whose parts say what it brings.
The pane shows this label in the name's place: ``text``, ``thought``, ``functionCall get_weather``,
``finishReason: STOP``. ``usageMetadata`` comes with every chunk, so it is named only on a chunk that brings nothing
else. A chunk that is not JSON gets no label, and its data speaks for itself.
"""

from __future__ import annotations

from typing import Any

from providers.event_labels import as_list, joined, unnamed_chunk


def event_label(event: str | None, data: str) -> str:
    chunk = unnamed_chunk(event, data)
    if chunk is None:
        return ""
    if chunk.get("error"):
        return "error"
    parts = [part for candidate in as_list(chunk.get("candidates")) for part in _candidate_parts(candidate)]
    feedback = chunk.get("promptFeedback")
    if isinstance(feedback, dict) and feedback.get("blockReason"):
        parts.append(f"blockReason: {feedback['blockReason']}")
    if not parts and chunk.get("usageMetadata"):
        parts.append("usageMetadata")
    return joined(parts)


def _candidate_parts(candidate: Any) -> list[str]:
    if not isinstance(candidate, dict):
        return []
    content = candidate.get("content") if isinstance(candidate.get("content"), dict) else {}
    found = [_part(part) for part in as_list(content.get("parts")) if isinstance(part, dict)]
    parts = [part for part in found if part]
    if candidate.get("finishReason"):
        parts.append(f"finishReason: {candidate['finishReason']}")
    return parts


def _part(part: dict[str, Any]) -> str:
    call = part.get("functionCall")
    if isinstance(call, dict):
        return f"functionCall {call.get('name') or ''}".rstrip()
    if part.get("thought"):
        return "thought"
    return "text" if part.get("text") else ""
