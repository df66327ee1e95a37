"""A message too big for one WebSocket message (daphne takes at most 1 MiB) comes from the page in parts: put back
together up to the text and image limits, refused once with a reason when the parts are out of order or too many,
and the socket goes on either way."""

from __future__ import annotations

import base64
import io
import json
import random
from typing import TYPE_CHECKING, Any

import pytest
from channels.db import database_sync_to_async
from PIL import Image

from playground.shell.consumers import split_message
from tests.chat.conftest import frames_until, open_chat, options
from tests.chat.image_fixtures import attached

if TYPE_CHECKING:
    from channels.testing import WebsocketCommunicator
    from pytest_django.fixtures import SettingsWrapper

    from playground.conversations.models import Conversation

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]
PART_BYTES = 64 * 1024


def noisy_png(side: int = 420) -> str:
    """A PNG that does not compress (about 3 bytes a pixel), as a data URL: over 600 KB of base64."""
    pixels = random.Random(7).randbytes(side * side * 3)
    out = io.BytesIO()
    Image.frombytes("RGB", (side, side), pixels).save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode("ascii")


async def send_in_parts(chat: WebsocketCommunicator, message: dict[str, Any]) -> list[dict[str, Any]]:
    parts = [json.loads(p) for p in split_message(json.dumps(message), PART_BYTES)]
    for part in parts:
        await chat.send_json_to(part)
    return parts


async def test_a_message_with_a_big_image_arrives_in_parts(
    conversation: Conversation, alice_ws_headers: list[tuple[bytes, bytes]]
) -> None:
    url = noisy_png()
    chat = await open_chat(conversation.pk, alice_ws_headers)
    await chat.receive_json_from()
    turn = await database_sync_to_async(options)(tools=[])
    message = {"type": "send", "text": "What is this noise?", "images": [attached(url, "noise.png")], "options": turn}
    await chat.send_json_to(message)  # whole: over the limit of one message
    refused = await chat.receive_json_from()
    assert refused["type"] == "error" and refused["error"].startswith("The frame was refused: The JSON is")
    parts = await send_in_parts(chat, message)
    assert len(parts) > 10
    frames = await frames_until(chat, "run.end")
    assert frames[0]["type"] == "turn.started" and frames[-1]["status"] == "done"
    saved = await conversation.messages.order_by("position").afirst()
    assert saved is not None and saved.data["content"][1] == {"type": "image_url", "image_url": {"url": url}}
    await chat.disconnect()


async def test_parts_out_of_order_are_refused_once_and_the_socket_goes_on(
    conversation: Conversation, alice_ws_headers: list[tuple[bytes, bytes]]
) -> None:
    chat = await open_chat(conversation.pk, alice_ws_headers)
    await chat.receive_json_from()
    parts = [json.loads(p) for p in split_message(json.dumps({"type": "ping", "pad": "x" * 200_000}), PART_BYTES)]
    for part in [parts[0], *parts[2:]]:  # the second part is lost
        await chat.send_json_to(part)
    refused = await chat.receive_json_from()
    assert refused == {"type": "error", "error": "The frame was refused: its parts did not arrive in order."}
    await chat.send_json_to({"type": "ping"})
    assert await chat.receive_json_from() == {"type": "pong"}, "one refusal, the rest of the message dropped"
    for part in parts:
        await chat.send_json_to(part)
    assert await chat.receive_json_from() == {"type": "pong"}, "whole again, the message is read"
    await chat.disconnect()


async def test_parts_past_the_limit_are_refused_and_nothing_is_saved(
    conversation: Conversation, alice_ws_headers: list[tuple[bytes, bytes]], settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_MAX_IMAGES, settings.CROSSWIRE_MAX_IMAGE_BYTES = 1, 100_000
    chat = await open_chat(conversation.pk, alice_ws_headers)
    await chat.receive_json_from()
    turn = await database_sync_to_async(options)(tools=[])
    images = [attached(noisy_png(), "a.png"), attached(noisy_png(), "b.png")]
    await send_in_parts(chat, {"type": "send", "text": "Two", "images": images, "options": turn})
    refused = await chat.receive_json_from()
    assert refused["type"] == "error" and "bytes, the limit." in refused["error"]
    await chat.send_json_to({"type": "ping"})
    assert await chat.receive_json_from() == {"type": "pong"}
    assert await conversation.messages.acount() == 0
    await chat.disconnect()


async def test_a_part_without_its_fields_is_refused(
    conversation: Conversation, alice_ws_headers: list[tuple[bytes, bytes]]
) -> None:
    chat = await open_chat(conversation.pk, alice_ws_headers)
    await chat.receive_json_from()
    await chat.send_json_to({"type": "part", "id": "a", "seq": "0", "last": True, "data": "{}"})
    refused = await chat.receive_json_from()
    assert refused["error"] == "The frame was refused: a part needs an id, a seq number, last and data."
    await chat.disconnect()
