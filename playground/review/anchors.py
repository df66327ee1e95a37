"""Where a comment is pinned: the whole conversation, one message (by position) or one tool call (by its id)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playground.conversations.models import Conversation
    from playground.review.models import Comment

CONVERSATION_KEY = "conversation"
MESSAGE_PREFIX = "message:"
CALL_PREFIX = "call:"


@dataclass(frozen=True)
class Anchor:
    message_position: int | None = None
    call_id: str = ""

    @property
    def key(self) -> str:
        """How the anchor travels in forms, URLs and live frames."""
        if self.call_id:
            return CALL_PREFIX + self.call_id
        if self.message_position is not None:
            return f"{MESSAGE_PREFIX}{self.message_position}"
        return CONVERSATION_KEY

    @property
    def dom(self) -> str:
        """A short id safe in HTML ids and CSS selectors; call ids may hold any character a provider chose."""
        if self.call_id:
            return "c" + hashlib.sha256(self.call_id.encode()).hexdigest()[:16]
        if self.message_position is not None:
            return f"m{self.message_position}"
        return "conversation"

    @classmethod
    def parse(cls, key: str) -> Anchor | None:
        if key == CONVERSATION_KEY:
            return cls()
        if key.startswith(CALL_PREFIX) and 0 < len(key) - len(CALL_PREFIX) <= 200:
            return cls(call_id=key.removeprefix(CALL_PREFIX))
        digits = key.removeprefix(MESSAGE_PREFIX)
        if key.startswith(MESSAGE_PREFIX) and digits.isascii() and digits.isdigit() and len(digits) <= 9:
            return cls(message_position=int(digits))
        return None

    @classmethod
    def of(cls, comment: Comment) -> Anchor:
        return cls(message_position=comment.message_position, call_id=comment.call_id)


def call_ids(conversation: Conversation) -> set[str]:
    """Every tool call id the conversation's assistant messages hold."""
    ids: set[str] = set()
    for data in conversation.messages.filter(role="assistant").values_list("data", flat=True):
        for call in (data or {}).get("tool_calls") or []:
            if isinstance(call, dict) and call.get("id"):
                ids.add(str(call["id"]))
    return ids


def exists_in(conversation: Conversation, anchor: Anchor) -> bool:
    """Whether the message or call is there: a comment or verdict on nothing would never be seen."""
    if anchor.call_id:
        return anchor.call_id in call_ids(conversation)
    if anchor.message_position is not None:
        return conversation.messages.filter(position=anchor.message_position).exists()
    return True
