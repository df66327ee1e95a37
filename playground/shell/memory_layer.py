"""The in-memory channel layer (one process, no Redis: ``./scripts/run``), with its clean-up run once a second.

channels' ``InMemoryChannelLayer`` looks for expired messages and group memberships on every ``receive`` and
``group_send``: it walks every channel and every membership of the process each time. Every open socket has a
channel and two or three memberships, and every socket opening, turn start and turn end receives or sends, so the
walks grow with the square of the sockets: with 100 chats open, 250 µs of the event loop for each call; with a
thousand, milliseconds. Messages expire after a minute and memberships after a day, so cleaning once a second
drops the same ones, at most a second later.
"""

from __future__ import annotations

import time

from channels.layers import InMemoryChannelLayer as ChannelsInMemoryLayer

CLEAN_EVERY_S = 1.0


class InMemoryChannelLayer(ChannelsInMemoryLayer):
    _next_clean = 0.0

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now < self._next_clean:
            return
        self._next_clean = now + CLEAN_EVERY_S
        super()._clean_expired()
