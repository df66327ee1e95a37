"""The server's own send for a WebSocket, kept in the scope so the hottest message of all can skip the wrappers.

A streaming run sends its frames as one message per display frame to every socket that shows it. Through the
consumer, each message goes down Channels' send, the session middleware's send (which reads the lazy session on
every message, for HTTP responses only) and the consumer's own size check: about a tenth of the server's CPU per
delta at 50 chats. Frames keep the size check and skip the rest; the order of messages is the same, since every
wrapper hands a WebSocket message on without waiting.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

RAW_SEND = "crosswire.raw_send"

Send = Callable[[dict[str, Any]], Awaitable[None]]
Application = Callable[[MutableMapping[str, Any], Any, Send], Awaitable[None]]


class KeepRawSend:
    """Outermost WebSocket middleware: the scope carries the server's send for ``raw_send``."""

    def __init__(self, application: Application) -> None:
        self.application = application

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Send) -> None:
        await self.application({**scope, RAW_SEND: send}, receive, send)


def raw_send(scope: MutableMapping[str, Any]) -> Send | None:
    """The server's send when the application was wrapped in ``KeepRawSend`` (tests may build it without)."""
    return scope.get(RAW_SEND)
