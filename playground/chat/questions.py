"""The open questions of an interrupted run: calls it had asked a person to answer or approve when its process died.

They stay answerable: the page shows them on their cards as a live run's would, and an answer starts the run again
from there (``service.resume_turn`` with that answer given in advance).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count

from playground.chat.turn_request import split_pending
from playground.conversations.models import Conversation
from playground.prepared import PreparedQuery
from playground.tools.config import ToolConfig

# Read each time a socket opens or comes back: built once (playground.prepared).
_STATE = PreparedQuery(
    lambda pk: (
        Conversation.objects.filter(pk=pk)
        .values("status", "status_message")  # grouped by these two, not by every column of the row
        .annotate(message_count=Count("messages"))
        .values_list("status", "status_message", "message_count")
    ),
    int,
)
# The answer message each kind of question takes (as on a live run: registry.ActiveRun.control).
ANSWER_TYPES = {"manual": "tool_result", "approval": "approval"}


def open_questions(conversation: Conversation) -> list[dict[str, Any]]:
    """``tool.awaiting`` frames for the unanswered calls of an interrupted run that need a person."""
    if conversation.status != Conversation.Status.INTERRUPTED:
        return []
    saved = [(m.data, m.complete) for m in conversation.messages.order_by("position")]
    _, pending = split_pending(saved)
    tools = {t["name"]: ToolConfig.from_dict(t) for t in conversation.tools}
    approve = bool((conversation.settings or {}).get("approve"))
    frames = []
    for call in pending:
        tool = tools.get(call["function"]["name"])
        kind = "approval" if approve else "manual" if tool is not None and tool.mode == "manual" else None
        if kind is not None:
            frames.append(
                {
                    "type": "tool.awaiting",
                    "kind": kind,
                    "call_id": call["id"],
                    "name": call["function"]["name"],
                    "arguments": call["function"]["arguments"],
                }
            )
    return frames


def saved_state(conversation_id: int) -> dict[str, Any]:
    """What a socket's snapshot says of the saved conversation, in one statement: a socket opens per chat, beside
    the turns that start. The whole row (tools, settings, search text) only for an interrupted run, whose questions
    need it."""
    found = _STATE.rows(conversation_id)
    if not found:
        raise Conversation.DoesNotExist(f"no conversation {conversation_id}")
    status, message, count = found[0]
    interrupted = status == Conversation.Status.INTERRUPTED
    return {
        "status": status,
        "label": Conversation.Status(status).label,
        "message": message,
        "message_count": count,
        "questions": open_questions(Conversation.objects.get(pk=conversation_id)) if interrupted else [],
    }
