"""The status socket every signed-in page opens. Thin: authentication and relaying; the work happens in services."""

from __future__ import annotations

from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer

# Closing before accept() makes the server refuse the handshake (HTTP 403); the code is for logs only.
CLOSE_UNAUTHENTICATED = 4401


class LiveConsumer(AsyncJsonWebsocketConsumer):
    """Signed-in users only; answers {"type": "ping"} with {"type": "pong"} so pages can show a live connection."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        await self.join()
        await self.accept()

    async def join(self) -> None:
        """Subscribe to groups before accepting, so no event published after the handshake is missed."""

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        message_type = content.get("type") if isinstance(content, dict) else None
        if message_type == "ping":
            await self.send_json({"type": "pong"})
        else:
            await self.send_json({"type": "error", "error": f"unknown message type {message_type!r}"})
