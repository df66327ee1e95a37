"""Messages from the page that arrive in parts, put back together within a limit.

daphne closes a socket whose incoming message passes 1 MiB, so the page sends a bigger one (a chat message with
images) as ``{"type": "part", "id", "seq", "last", "data"}`` messages, the same envelope the server uses the other
way (docs/websocket.md). Parts of one message come in order on one socket; anything else is refused once, and the
rest of that message is dropped in silence rather than answered part by part.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from providers.jsonsafe import JSONInputError


def is_part(content: Any) -> bool:
    return isinstance(content, dict) and content.get("type") == "part"


@dataclass
class _Message:
    id: str
    next_seq: int = 0
    size: int = 0
    pieces: list[str] = field(default_factory=list)
    refused: bool = False  # its remaining parts are dropped


@dataclass
class PartCollector:
    """One per socket: at most one message is being put together at a time."""

    current: _Message | None = None

    def add(self, part: dict[str, Any], *, limit: int) -> str | None:
        """The whole message once its last part is in, else None; JSONInputError when it cannot be taken."""
        message_id, seq, last, data = part.get("id"), part.get("seq"), part.get("last"), part.get("data")
        if not isinstance(message_id, str) or type(seq) is not int or not isinstance(last, bool):
            raise JSONInputError("a part needs an id, a seq number, last and data.")
        if seq == 0:
            self.current = _Message(message_id)
        message = self.current
        if message is None or message.id != message_id or seq != message.next_seq:
            # A stray part (its start was refused or lost): refuse its message once, then drop the rest of it.
            self.current = None if last else _Message(message_id, seq + 1, refused=True)
            if message is not None and message.id == message_id and message.refused:
                return None
            raise JSONInputError("its parts did not arrive in order.")
        message.next_seq += 1
        if last:
            self.current = None
        if message.refused:
            return None
        return self._append(message, data, last=last, limit=limit)

    def _append(self, message: _Message, data: Any, *, last: bool, limit: int) -> str | None:
        if not isinstance(data, str):
            message.refused, message.pieces = True, []
            raise JSONInputError("a part needs an id, a seq number, last and data.")
        message.size += len(data.encode("utf-8", "surrogatepass"))
        if message.size > limit:
            message.refused, message.pieces = True, []
            raise JSONInputError(f"the message is over {limit:,} bytes, the limit.")
        message.pieces.append(data)
        return "".join(message.pieces) if last else None
