"""Internal result -> the ``data:`` chunks ``:streamGenerateContent?alt=sse`` sends for it (the simulator serves these).

Each chunk is a whole ``GenerateContentResponse`` (``candidates[0].content.parts``, ``modelVersion``,
``responseId``) with no ``event:`` line. Plain text and plain thought parts are cut into ``fragment_size``-character
pieces, one chunk each; every other part (a ``functionCall``, a part carrying a ``thoughtSignature``...) is sent
whole in a chunk of its own, as Gemini does: a call never arrives in fragments. Running usage: every chunk but the
last carries the prompt count alone, the last the whole ``usageMetadata``, with the ``finishReason`` and the kept
candidate fields (``finishMessage``, ``safetyRatings``...). A failed result ends with Google's error object as a
chunk; an incomplete one (no error) stops without a ``finishReason``, like a cut connection.
"""

from __future__ import annotations

import json
from typing import Any

from providers.gemini.assistant import is_text
from providers.gemini.errors import encode_error
from providers.gemini.response import blocked_prompt, candidate, output_parts
from providers.gemini.wire import kept_fields, usage_to_wire
from providers.sse import SSEEvent
from providers.streaming import StreamResult
from providers.types import Usage


def encode_stream(result: StreamResult, *, model: str, response_id: str, fragment_size: int = 8) -> list[SSEEvent]:
    if fragment_size < 1:
        raise ValueError("fragment_size must be at least 1")
    fields = kept_fields(result.message)
    pieces = [piece for part in output_parts(result.message) for piece in _pieces(part, fragment_size)]
    head = {"modelVersion": model, "responseId": response_id}
    early = _early_usage(result.usage)
    chunks: list[dict[str, Any]] = []
    for piece in pieces[:-1] if result.complete else pieces:
        chunk: dict[str, Any] = {"candidates": [{"content": {"parts": [piece], "role": "model"}, "index": 0}]}
        chunks.append({**chunk, **({"usageMetadata": early} if early else {}), **head})
    if result.complete and result.error is None:
        chunks.append(_last(result, pieces[-1:], fields, head))
    if result.error is not None:
        chunks.append(encode_error(result.error))
    return [SSEEvent(json.dumps(chunk, ensure_ascii=False, separators=(",", ":"))) for chunk in chunks]


def _pieces(part: dict[str, Any], size: int) -> list[dict[str, Any]]:
    """A plain text (or thought) part cut into pieces; anything else whole."""
    if not is_text(part) or not set(part) <= {"text", "thought"} or len(part["text"]) <= size:
        return [part]
    text = part["text"]
    return [{**part, "text": text[start : start + size]} for start in range(0, len(text), size)]


def _last(result: StreamResult, parts: list[dict[str, Any]], fields: dict[str, Any], head: dict[str, Any]) -> Any:
    """The final chunk: the last piece, the finish, the candidate fields and the whole usage."""
    chunk: dict[str, Any] = {}
    response = fields.get("response") or {}
    if not blocked_prompt(result.message, fields):
        chunk["candidates"] = [candidate(result, parts, fields)]
    if result.usage:
        chunk["usageMetadata"] = usage_to_wire(result.usage)
    return {**chunk, **head, **response}


def _early_usage(usage: Usage | None) -> dict[str, int] | None:
    """What a chunk before the last says: the prompt is counted, the answer not yet."""
    if not usage or "prompt_tokens" not in usage or "total_tokens" not in usage:
        return None
    return {"promptTokenCount": usage["prompt_tokens"], "totalTokenCount": usage["prompt_tokens"]}
