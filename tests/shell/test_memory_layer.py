"""The in-memory channel layer cleans up once a second, not on every receive and send."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from channels.layers import InMemoryChannelLayer as ChannelsInMemoryLayer

from playground.shell import memory_layer
from playground.shell.memory_layer import InMemoryChannelLayer


async def test_many_receives_and_sends_within_a_second_walk_the_channels_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each walk visits every channel and membership of the process: on every call, that grew with the square of the
    # open sockets.
    walks: list[int] = []
    real = ChannelsInMemoryLayer._clean_expired

    def counted(self: ChannelsInMemoryLayer) -> None:
        walks.append(len(self.channels))
        real(self)

    monkeypatch.setattr(ChannelsInMemoryLayer, "_clean_expired", counted)
    layer = InMemoryChannelLayer(capacity=1000)
    names = [await layer.new_channel() for _ in range(300)]
    for name in names:
        await layer.group_add("everyone", name)
    waiting = [asyncio.create_task(layer.receive(name)) for name in names]
    for _ in range(50):
        await layer.group_send("everyone", {"type": "hello"})
    messages = await asyncio.gather(*waiting)
    assert messages == [{"type": "hello"}] * 300, "every socket still gets every message"
    assert len(walks) == 1, walks


async def test_an_expired_message_is_still_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_layer, "CLEAN_EVERY_S", 0.05)
    layer = InMemoryChannelLayer(expiry=0.1)
    name = await layer.new_channel()
    await layer.send(name, {"type": "old"})
    await asyncio.sleep(0.3)
    await layer.send(name, {"type": "new"})
    message: dict[str, Any] = await asyncio.wait_for(layer.receive(name), timeout=2)
    assert message == {"type": "new"}, "the message past its expiry is dropped, as channels' own layer does"
