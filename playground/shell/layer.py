"""A socket that outlives its channel layer: when Redis goes away and comes back, the socket stays open.

Channels ends a consumer, and so closes its browser's socket, when the layer's receive fails. Here the receive waits
and tries again instead, joins its groups again once the layer is back (a restarted Redis keeps no memberships),
and tells the consumer both times, so the page can say "reconnecting" and then catch up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

RETRY_S = 0.5
RETRY_MAX_S = 5.0

logger = logging.getLogger(__name__)


class ResilientLayer:
    """Mixin for a consumer: ``join_group`` instead of ``channel_layer.group_add``; ``layer_lost``/``layer_back``
    hooks. Channels assigns ``channel_receive`` when the consumer starts; the property hands it back wrapped."""

    channel_layer: Any
    channel_name: str
    _layer_receive: Callable[[], Awaitable[dict[str, Any]]]
    _groups: list[str]
    _layer_lost: bool = False

    @property
    def channel_receive(self) -> Callable[[], Awaitable[dict[str, Any]]]:
        return self._receive_from_layer

    @channel_receive.setter
    def channel_receive(self, receive: Callable[[], Awaitable[dict[str, Any]]]) -> None:
        self._layer_receive = receive

    async def join_group(self, name: str) -> None:
        self.__dict__.setdefault("_groups", [])
        await self.channel_layer.group_add(name, self.channel_name)
        self._groups.append(name)

    async def leave_groups(self) -> None:
        for name in self.__dict__.get("_groups", []):
            with contextlib.suppress(Exception):  # an unreachable layer forgets the membership by itself
                await self.channel_layer.group_discard(name, self.channel_name)
        self._groups = []

    async def _receive_from_layer(self) -> dict[str, Any]:
        backoff = RETRY_S
        while True:
            try:
                return await self._layer_receive()
            except asyncio.CancelledError:
                raise
            except Exception:
                if not self._layer_lost:
                    self._layer_lost = True
                    logger.warning("the channel layer is unreachable; this socket waits for it")
                    await self.layer_lost()
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, RETRY_MAX_S)
            if await self._rejoin():
                self._layer_lost = False
                backoff = RETRY_S
                await self.layer_back()

    async def _rejoin(self) -> bool:
        try:
            for name in self.__dict__.get("_groups", []):
                await self.channel_layer.group_add(name, self.channel_name)
        except Exception:
            return False
        return True

    async def layer_lost(self) -> None:
        """The layer went away: events from other processes stop until it is back."""

    async def layer_back(self) -> None:
        """The layer is back and the groups joined again: whatever was missed meanwhile must be caught up."""
