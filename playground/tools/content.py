"""Tool results as content parts: text, or a list of ``text`` and ``image_url`` parts (the internal format).

A canned answer is typed as text. Text that is a JSON array of objects each with a ``"type"`` is read as content
parts, so an answer may hold an image: ``[{"type": "text", "text": "Sales"}, {"type": "image_url", "image_url":
{"url": "data:image/png;base64,…"}}]``. Any other text (``{"status": "shipped"}``, ``[1, 2]``, prose) is sent as
the text it is, as it always was. The same reading brings back a replay's original results, which were saved as
text.
"""

from __future__ import annotations

import json
from typing import Any

from playground.tools.images import ImageRefused, check_data_url

Content = str | list[dict[str, Any]]
PART_TYPES = ("text", "image_url")


def _meant_as_parts(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(item, dict) and "type" in item for item in value)


def _parse(text: str) -> Any:
    if not text.lstrip().startswith("["):
        return None  # the common case: no JSON array, nothing to parse
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def parts_in(text: str) -> list[dict[str, Any]] | None:
    """The content parts a text holds (well-formed ones only), or None when it is to be sent as text."""
    value = _parse(text)
    if not _meant_as_parts(value) or any(_shape_problem(part) for part in value):
        return None
    return list(value)


def content_of(text: str) -> Content:
    """What a canned or recorded answer sends to the model: its content parts, else the text itself."""
    parts = parts_in(text)
    return parts if parts is not None else text


def parts_refusal(text: str, *, max_image_bytes: int, what: str = "The answer") -> str:
    """Empty unless the text is meant as content parts and one of them is wrong; then which one and why."""
    value = _parse(text)
    if not _meant_as_parts(value):
        return ""
    for number, part in enumerate(value, start=1):
        problem = _shape_problem(part) or _image_problem(part, max_image_bytes)
        if problem:
            return f"{what}, content part {number}: {problem}"
    return ""


def _shape_problem(part: dict[str, Any]) -> str:
    kind = part.get("type")
    if kind not in PART_TYPES:
        return f"the type {kind!r} is not one of {', '.join(PART_TYPES)}."
    if kind == "text" and not isinstance(part.get("text"), str):
        return 'a text part needs "text": a string.'
    if kind == "image_url" and not isinstance(_image_url(part), str):
        return 'an image part needs "image_url": {"url": "data:image/png;base64,…"}.'
    return ""


def _image_url(part: dict[str, Any]) -> Any:
    value = part.get("image_url")
    return value.get("url") if isinstance(value, dict) else None


def _image_problem(part: dict[str, Any], max_image_bytes: int) -> str:
    if part.get("type") != "image_url":
        return ""
    try:
        image = check_data_url(_image_url(part), max_bytes=max_image_bytes, label="the image")
    except ImageRefused as exc:
        return str(exc)
    if image.declared != image.media_type:
        # Not corrected here, as the composer does: this text is sent as typed, and providers refuse a wrong label.
        return f"the data URL says {image.declared or 'nothing'} but the bytes are {image.media_type}."
    return ""


def as_content(value: Any) -> Content:
    """What a tool function returned, as a result: text as it is, well-formed content parts as parts, and anything
    else (numbers, dicts, lists, pydantic models, None) as its JSON text."""
    if isinstance(value, str):
        return value
    if _meant_as_parts(value) and not any(_shape_problem(part) for part in value):
        return list(value)
    if hasattr(value, "model_dump"):  # a pydantic model: its JSON form (enums as values, dates as ISO text)
        value = value.model_dump(mode="json")
    return json.dumps(value, ensure_ascii=False, default=str)
