"""No message leaves the server over the frame limit, and no message too big for the socket is taken in silence."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from channels.db import database_sync_to_async

from playground.conversations.models import Conversation, Message
from playground.shell.consumers import split_message
from tests.chat.conftest import open_chat, options

if TYPE_CHECKING:
    from pytest_django.fixtures import SettingsWrapper

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]
BIG = "The quarterly report, paragraph after paragraph. " * 12_000  # about 590 KB


async def raw_messages_until_end(chat: Any) -> tuple[list[str], list[dict[str, Any]]]:
    """Every text message as sent, and the frames they carry once parts are put back together."""
    raw: list[str] = []
    frames: list[dict[str, Any]] = []
    parts: dict[str, list[str]] = {}
    while not frames or frames[-1].get("type") != "run.end":
        output = await chat.receive_output(timeout=20)
        text = output["text"]
        raw.append(text)
        message = json.loads(text)
        if isinstance(message, dict) and message.get("type") == "part":
            parts.setdefault(message["id"], []).append(message["data"])
            if not message["last"]:
                continue
            message = json.loads("".join(parts.pop(message["id"])))
        frames.extend(message if isinstance(message, list) else [message])
    return raw, frames


async def test_a_history_past_the_frame_limit_streams_in_parts(
    conversation: Conversation, alice_ws_headers: list[tuple[bytes, bytes]], settings: SettingsWrapper
) -> None:
    await Message.objects.acreate(
        conversation=conversation, position=0, role="user", data={"role": "user", "content": BIG}
    )
    await Message.objects.acreate(
        conversation=conversation, position=1, role="assistant", data={"role": "assistant", "content": "Noted."}
    )
    chat = await open_chat(conversation.pk, alice_ws_headers)
    await chat.receive_json_from()
    turn = await database_sync_to_async(options)(tools=[])
    await chat.send_json_to({"type": "send", "text": "Summarise it", "options": turn})
    raw, frames = await raw_messages_until_end(chat)
    assert max(len(text.encode()) for text in raw) <= settings.CROSSWIRE_MAX_FRAME_BYTES
    [start] = [f for f in frames if f["type"] == "rt.start"]
    assert start["request"]["messages"][0]["content"] == BIG, "the frame arrives whole once put together"
    assert frames[-1]["status"] == "done"
    await chat.disconnect()


async def test_a_message_over_the_limit_is_refused_with_a_reason(
    conversation: Conversation, alice_ws_headers: list[tuple[bytes, bytes]], settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_MAX_MESSAGE_BYTES = 100 * 1024
    chat = await open_chat(conversation.pk, alice_ws_headers)
    await chat.receive_json_from()
    turn = await database_sync_to_async(options)(tools=[])
    await chat.send_json_to({"type": "send", "text": "x" * (150 * 1024), "options": turn})
    reply = await chat.receive_json_from()
    assert reply["error"] == "This message is 150 KiB; the limit is 100 KiB."
    assert await conversation.messages.acount() == 0
    await chat.disconnect()


@pytest.mark.parametrize("text", ["a" * 10_000, '"\\' * 5_000, "é€😀" * 4_000])
def test_parts_fit_the_limit_and_rebuild_the_text(text: str) -> None:
    parts = [json.loads(p) for p in split_message(text, 4096)]
    assert all(len(json.dumps(p, ensure_ascii=False, separators=(",", ":")).encode()) <= 4096 for p in parts)
    assert "".join(p["data"] for p in parts) == text
    assert [p["seq"] for p in parts] == list(range(len(parts))) and [p["last"] for p in parts][-1] is True
    assert len({p["id"] for p in parts}) == 1
