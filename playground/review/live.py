"""Review events (a comment, a verdict or a label changed) sent to every open review page of a conversation.

They go through the channel layer, so with Redis they reach sockets held by any web process. A frame names only what
changed (an anchor, a call, a comment id); each page fetches the new HTML itself, rendered for its own user.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from playground.review.anchors import Anchor

# The handler name on ReviewConsumer ("review.event" -> review_event).
EVENT_TYPE = "review.event"
logger = logging.getLogger(__name__)
_sending: set[asyncio.Task[None]] = set()  # timeline events on their way: kept until sent


def review_group(conversation_id: int) -> str:
    return f"review.{conversation_id}"


def publish(conversation_id: int, payload: dict[str, Any]) -> None:
    """Best effort, from a sync view: the change is saved whatever happens here, and a page that missed the frame
    shows it on its next load (or when its socket reconnects)."""
    async_to_sync(_send)(conversation_id, payload)


async def _send(conversation_id: int, payload: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        await layer.group_send(review_group(conversation_id), {"type": EVENT_TYPE, "payload": payload})
    except Exception:  # the layer (Redis) is away: saving must not fail because live delivery did
        logger.warning("review event for conversation %s not delivered", conversation_id, exc_info=True)


def comments_changed(conversation_id: int, anchor: Anchor, comment_id: int | None = None) -> None:
    publish(
        conversation_id, {"type": "review.comments", "anchor": anchor.key, "dom": anchor.dom, "comment": comment_id}
    )


def verdicts_changed(conversation_id: int, call_id: str) -> None:
    anchor = Anchor(call_id=call_id)
    publish(conversation_id, {"type": "review.verdicts", "anchor": anchor.key, "dom": anchor.dom})


def labels_changed(conversation_id: int) -> None:
    publish(conversation_id, {"type": "review.labels"})


def timeline_changed(conversation_id: int) -> None:
    """From a run, when it saves where it stands (a question asked or answered, its end): open review pages read
    the timeline again. Sent after the run's own frames, in a task: a review page never holds a run up."""
    task = asyncio.get_running_loop().create_task(_send(conversation_id, {"type": "review.timeline"}))
    _sending.add(task)
    task.add_done_callback(_sending.discard)
