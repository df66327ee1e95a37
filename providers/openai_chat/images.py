"""Images in tool results, for OpenAI Chat, whose ``tool`` messages hold text only.

api.openai.com refuses an image in any message but a user one ("Image URLs are only allowed for messages with role
'user', but this message with role 'tool' contains an image URL"), and every tool message must directly follow the
assistant message that made the call (other tool messages aside). So the ``image_url`` parts of a tool message
leave it: the tool message keeps its other parts (``PLACEHOLDER`` when no text is left), and the images of a whole
run of consecutive tool messages go, in order, into ONE user message right after the run, with a note per tool
message. Only the counts are noted, never the image data.

Importing cannot tell such a user message from one the user wrote, so it comes back as a user message (lossy by
design).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from providers.types import Message

PLACEHOLDER = "[image attached in the next message]"


@dataclass
class ToolImages:
    """The images taken out of the current run of tool messages, waiting for the user message after the run."""

    notes: list[str]
    waiting: list[dict[str, Any]] = field(default_factory=list)

    def take(self, message: Message, position: int) -> Message:
        """The tool message without its images (they wait here); unchanged when it has none."""
        content = message.get("content")
        if not isinstance(content, list) or not any(is_image(part) for part in content):
            return message
        images = [part for part in content if is_image(part)]
        kept = [part for part in content if not is_image(part)]
        count = f"{len(images)} image{'s' if len(images) > 1 else ''}"
        note = (
            f"message {position} (tool): {count} moved to a user message right after the tool results "
            "(OpenAI Chat tool messages take text only)"
        )
        if not any(_has_text(part) for part in kept):
            kept = [*(part for part in kept if not _is_text(part)), {"type": "text", "text": PLACEHOLDER}]
            note += f"; the tool message says {PLACEHOLDER!r}"
        self.notes.append(note)
        self.waiting.extend(images)
        return {**message, "content": kept}

    def release(self) -> list[dict[str, Any]]:
        """The run is over: the user message carrying its images, or nothing when it had none."""
        carried, self.waiting = self.waiting, []
        return [{"role": "user", "content": carried}] if carried else []


def is_image(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "image_url"


def _is_text(part: Any) -> bool:
    return isinstance(part, str) or (isinstance(part, dict) and part.get("type") == "text")


def _has_text(part: Any) -> bool:
    text = part if isinstance(part, str) else part.get("text") if _is_text(part) else None
    return isinstance(text, str) and bool(text.strip())
