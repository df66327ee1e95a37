"""A chat reads a fast provider's stream once per frame or so, not once per chunk: while the page's next message is
held for its frame slot, the run's connection reads nothing (providers.client.holds), and nothing is lost."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import pytest
from channels.db import database_sync_to_async

from playground.conversations.models import Conversation
from providers.client.netbackend import AsyncioStream
from tests.chat.conftest import frames_until, of_type, open_chat, options

if TYPE_CHECKING:
    from pytest_django.fixtures import SettingsWrapper

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]

WORDS = " ".join(f"word{n}" for n in range(150))


def count_reads(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    counts = {"reads": 0, "holds": 0}
    real_read, real_hold = AsyncioStream.read, AsyncioStream._hold

    async def read(self: AsyncioStream, max_bytes: int, timeout: float | None = None) -> bytes:
        counts["reads"] += 1
        return await real_read(self, max_bytes, timeout)

    async def hold(self: AsyncioStream, seconds: float) -> None:
        counts["holds"] += 1
        await real_hold(self, seconds)

    monkeypatch.setattr(AsyncioStream, "read", read)
    monkeypatch.setattr(AsyncioStream, "_hold", hold)
    return counts


Streamed = Callable[[int], Awaitable[tuple[str, int, dict[str, int]]]]


@pytest.fixture
def fast_chat(
    conversation: Conversation,
    alice_ws_headers: list[tuple[bytes, bytes]],
    chat_settings: SettingsWrapper,
    monkeypatch: pytest.MonkeyPatch,
) -> Streamed:
    """A turn whose answer streams at about 500 chunks a second, with the given frame interval: its text, how many
    text deltas it came in, and how often the connection read and held."""
    chat_settings.CROSSWIRE_SIMULATOR_PACE_MS = 2

    async def streamed(interval_ms: int) -> tuple[str, int, dict[str, int]]:
        chat_settings.CROSSWIRE_FRAME_INTERVAL_MS = interval_ms
        counts = count_reads(monkeypatch)
        chat = await open_chat(conversation.pk, alice_ws_headers)
        await chat.receive_json_from()  # the snapshot
        chat_options = await database_sync_to_async(options)(tools=[])
        await chat.send_json_to({"type": "send", "text": f"/text {WORDS}", "options": chat_options})
        frames = await frames_until(chat, "run.end")
        await chat.disconnect()
        assert frames[-1]["status"] == "done"
        texts = [f["text"] for f in of_type(frames, "rt.delta") if f.get("kind") == "text"]
        return "".join(texts), len(texts), counts

    return streamed


async def test_a_fast_stream_is_read_in_few_reads_and_arrives_whole(fast_chat: Streamed) -> None:
    text, deltas, counts = await fast_chat(50)
    assert text == WORDS, "every delta, in order"
    assert counts["holds"] > 0, "reads were held while the page's next message waited"
    assert counts["reads"] < deltas / 2, counts | {"deltas": deltas}


async def test_without_a_frame_interval_reads_are_never_held(fast_chat: Streamed) -> None:
    text, _, counts = await fast_chat(0)
    assert text == WORDS
    assert counts["holds"] == 0
