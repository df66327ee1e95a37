"""The base socket of one conversation: relays the events published for it to every open page."""

from __future__ import annotations

from typing import Any

from playground.conversations.broadcast import conversation_group
from playground.shell.consumers import LiveConsumer


class ConversationConsumer(LiveConsumer):
    """Relays events published with ``publish_conversation_event`` for one conversation; subclasses decide who may
    open it (``ChatConsumer`` checks team membership)."""

    group_name: str = ""

    @property
    def conversation_id(self) -> int:
        return int(self.scope["url_route"]["kwargs"]["conversation_id"])

    async def join(self) -> None:
        self.group_name = conversation_group(self.conversation_id)
        await self.join_group(self.group_name)

    async def conversation_event(self, event: dict[str, Any]) -> None:
        await self.send_json(event["payload"])
