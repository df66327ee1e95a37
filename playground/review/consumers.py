"""The review socket of one conversation: relays review events to every open review page of it."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async

from playground.review.access import reviewer_or_none
from playground.review.live import review_group
from playground.shell.consumers import LiveConsumer


class ReviewConsumer(LiveConsumer):
    """Team members only, whatever their role (viewers comment too); it only listens, so there is nothing to act on
    but ping. Membership is checked again whenever access changes, like the chat socket does."""

    @property
    def conversation_id(self) -> int:
        return int(self.scope["url_route"]["kwargs"]["conversation_id"])

    def admits(self, user: Any) -> bool:
        return reviewer_or_none(user, self.conversation_id) is not None

    async def join(self) -> None:
        await self.join_group(review_group(self.conversation_id))

    async def still_allowed(self) -> bool:
        if not await super().still_allowed():
            return False
        return await database_sync_to_async(reviewer_or_none)(self.scope["user"], self.conversation_id) is not None

    async def review_event(self, event: dict[str, Any]) -> None:
        await self.send_json(event["payload"])

    async def layer_back(self) -> None:
        """Events sent while the layer was away are lost: the page fetches its comments and verdicts again."""
        await self.send_json({"type": "review.resync"})
