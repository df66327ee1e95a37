"""A Stop that lands in a run's very first step, while the conversation is still being read, is saved as stopped."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import pytest

from playground.chat.registry import ActiveRun
from playground.chat.service import STOPPED_MESSAGE, run_conversation

if TYPE_CHECKING:
    from playground.conversations.models import Conversation

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


async def test_a_stop_during_the_first_read_is_saved_and_announced(conversation: Conversation) -> None:
    conversation.status = "running"
    await conversation.asave(update_fields=["status"])
    run = ActiveRun(conversation.pk)
    sent: list[dict[str, Any]] = []
    run.emit = lambda frame, live=True: sent.append(frame)  # type: ignore[method-assign]
    task = asyncio.create_task(run_conversation(conversation.pk, run))
    await asyncio.sleep(0)  # the run is now waiting on its first database read
    assert not task.done()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await conversation.arefresh_from_db()
    assert (conversation.status, conversation.status_message) == ("stopped", STOPPED_MESSAGE)
    assert [(f["type"], f["status"]) for f in sent] == [("status", "stopped"), ("run.end", "stopped")]
