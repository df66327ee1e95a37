"""Coarse conversation events (a turn started, a message was saved) fanned out to every open browser tab.

Events go through the channel layer, so with Redis they reach sockets held by any web process. Token-level
streaming does not belong here: the layer is slow and the in-memory one drops messages when full.
"""

from __future__ import annotations

from typing import Any

from channels.layers import get_channel_layer

# The handler name on ConversationConsumer ("conversation.event" -> conversation_event).
EVENT_TYPE = "conversation.event"


def conversation_group(conversation_id: int) -> str:
    return f"conversation.{conversation_id}"


async def publish_conversation_event(conversation_id: int, payload: dict[str, Any]) -> None:
    """Send ``payload`` (JSON-serialisable, with a "type" key) to every socket watching the conversation."""
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("CHANNEL_LAYERS is not configured")
    await layer.group_send(conversation_group(conversation_id), {"type": EVENT_TYPE, "payload": payload})
