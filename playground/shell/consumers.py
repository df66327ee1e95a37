"""The status socket every signed-in page opens. Thin: authentication and relaying; the work happens in services."""

from __future__ import annotations

import json
import secrets
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer, AsyncWebsocketConsumer
from django.conf import settings

from playground.shell.auth import signed_in
from playground.shell.layer import ResilientLayer
from playground.shell.parts import PartCollector, is_part
from playground.teams.revocation import session_alive, user_group
from providers import jsonsafe

# Closing before accept() makes the server refuse the handshake (HTTP 403); the code is for logs only.
CLOSE_UNAUTHENTICATED = 4401
# Access lost while the socket was open (removed from the team, signed out): the page must not reconnect.
CLOSE_REVOKED = 4403
# Room in a frame for what travels with the largest message (type, options, tool names).
FRAME_OVERHEAD_BYTES = 64 * 1024
# The socket's own messages, handled without Channels' check of the ORM thread's connection first (and, for the
# disconnect, after): that check is a trip of its own to the thread, four a chat turn (its socket's opening, the
# send, the closing twice), about 0.1 ms of CPU each beside every stream of the process. Their handlers reach the
# database first through Channels' wrapper (database_sync_to_async: the user with the access check on opening, the
# access check before every action), which makes the same check in the same trip, or not at all (a ping).
# A connection left open by the plain async ORM or the ORM thread's other trips (a run's writes) is checked at the
# next of those, or at the process's heartbeat (playground.chat.processes, every few seconds), not at a socket's.
SELF_CHECKED_TYPES = frozenset({"websocket.connect", "websocket.receive", "websocket.disconnect"})


class LiveConsumer(ResilientLayer, AsyncJsonWebsocketConsumer):
    """Signed-in users only; answers {"type": "ping"} with {"type": "pong"} so pages can show a live connection.

    Every socket joins its user's group, where changes of access are announced (playground.teams.revocation).
    """

    parts: PartCollector  # a message from the page arriving in parts
    # Layer messages that come many times a second and never touch the database. Channels closes the ORM thread's
    # connection before every handler (a thread hop; on SQLite a checkpoint of the whole WAL), which a streaming run
    # seen from another process would pay on every batch.
    hot_types: frozenset[str] = frozenset()

    async def dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind in SELF_CHECKED_TYPES or kind in self.hot_types:
            await getattr(self, get_handler_name(message))(message)
            return
        await super().dispatch(message)

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        """Channels' own, without its check of the connection after the handler (see SELF_CHECKED_TYPES). Nor its
        leaving of ``groups``: these sockets join theirs through ResilientLayer, and ``disconnect`` leaves them."""
        await self.disconnect(message["code"])
        raise StopConsumer

    async def connect(self) -> None:
        self.parts = PartCollector()
        # Who signs in and whether they may open this socket: one trip to the ORM's thread (playground.shell.auth).
        user = await database_sync_to_async(self._admitted_user)()
        if user is None:
            await self.close(code=CLOSE_UNAUTHENTICATED)  # not found and not allowed look the same from outside
            return
        await self.join_group(user_group(user.pk))
        await self.join()
        await self.accept()
        await self.opened()

    def _admitted_user(self) -> Any:
        """The signed-in user, if they may open this socket; else None. On the ORM's thread."""
        user = signed_in(self.scope)
        return user if user.is_authenticated and self.admits(user) else None

    def admits(self, user: Any) -> bool:
        """Whether this signed-in user may open this socket; subclasses load what the socket is about. On the ORM's
        thread, in the trip that reads the user."""
        return True

    async def join(self) -> None:
        """Subscribe to groups before accepting, so no event published after the handshake is missed."""

    async def opened(self) -> None:
        """The socket is accepted: send what it starts with."""

    async def disconnect(self, code: int) -> None:
        await self.leave_groups()

    async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
        """Every message leaves under the frame limit: a bigger one goes as parts the page puts back together
        (daphne refuses to send a message over 1 MiB, and the socket would stop streaming; docs/websocket.md)."""
        if text_data is not None:
            limit = settings.CROSSWIRE_MAX_FRAME_BYTES
            if len(text_data) * 4 > limit and len(text_data.encode()) > limit:
                for part in split_message(text_data, limit):
                    await super().send(text_data=part)
                return
        await super().send(text_data=text_data, bytes_data=bytes_data, close=close)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        """Frames are JSON text within the limits; anything else is answered with an error and the socket lives on.

        A message too big for one WebSocket message comes in parts (playground.shell.parts) and is read once whole.
        """
        if text_data is None:
            await self.send_json({"type": "error", "error": "Frames must be JSON text, not binary."})
            return
        limit = settings.CROSSWIRE_MAX_MESSAGE_BYTES + FRAME_OVERHEAD_BYTES
        depth = settings.CROSSWIRE_MAX_JSON_DEPTH
        try:
            content = jsonsafe.loads(text_data, max_depth=depth, max_bytes=limit)
            if is_part(content):
                whole = self.parts.add(content, limit=self.max_incoming_bytes())
                if whole is None:
                    return
                content = jsonsafe.loads(whole, max_depth=depth, max_bytes=self.max_incoming_bytes())
        except jsonsafe.JSONInputError as exc:
            await self.send_json({"type": "error", "error": f"The frame was refused: {exc}"})
            return
        await self.receive_json(content, **kwargs)

    def max_incoming_bytes(self) -> int:
        """The largest message this socket takes once its parts are put together; subclasses that take more say so."""
        return int(settings.CROSSWIRE_MAX_MESSAGE_BYTES) + FRAME_OVERHEAD_BYTES

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        message_type = content.get("type") if isinstance(content, dict) else None
        if message_type == "ping":
            await self.send_json({"type": "pong"})
        else:
            await self.send_json({"type": "error", "error": f"unknown message type {message_type!r}"})

    async def access_changed(self, event: dict[str, Any]) -> None:
        session_key = event.get("session_key")
        if session_key is not None:
            if session_key == self.session_key():
                await self.close(code=CLOSE_REVOKED)  # this very session signed out
            return
        if not await self.still_allowed():
            await self.close(code=CLOSE_REVOKED)

    async def still_allowed(self) -> bool:
        """Checked when access changes and before every action: the session still signs this user in."""
        return await database_sync_to_async(session_alive)(self.session_key(), self.scope["user"].pk)

    def session_key(self) -> str | None:
        session = self.scope.get("session")
        return getattr(session, "session_key", None)


class RefusedConsumer(AsyncWebsocketConsumer):
    """Any socket path no route matches (``/ws/conversations/abc/``): refused like a forbidden one, not a 500."""

    async def connect(self) -> None:
        await self.close(code=CLOSE_UNAUTHENTICATED)


def split_message(text: str, limit: int) -> list[str]:
    """``text`` as ``part`` messages of at most ``limit`` bytes each, in order, under one id."""
    # A character is at most 4 bytes in UTF-8, and escaping inside a JSON string at most doubles an ASCII one:
    # this many characters always fit with the envelope.
    size = max(1, (limit - 200) // 8)
    chunks = [text[i : i + size] for i in range(0, len(text), size)]
    message_id = secrets.token_hex(6)
    return [
        json.dumps(
            {"type": "part", "id": message_id, "seq": n, "last": n == len(chunks) - 1, "data": chunk},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        for n, chunk in enumerate(chunks)
    ]
