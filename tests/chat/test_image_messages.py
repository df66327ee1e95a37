"""A message with an image over the chat socket, through the service and the tool loop to the simulator: saved as
content parts, sent in each wire format's own image shape, and acknowledged by the model; a refused image saves
nothing and says why."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from channels.db import database_sync_to_async

from playground.conversations.models import Conversation, Message, RoundTrip
from tests.chat.conftest import frames_until, of_type, open_chat, options
from tests.chat.image_fixtures import PNG, PNG_URL, attached
from tests.chat.saved import saved_round_trips

if TYPE_CHECKING:
    from django.contrib.auth.models import User

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]
Headers = Callable[["User"], list[tuple[bytes, bytes]]]

ENDPOINTS = ["Simulated OpenAI", "Simulated OpenAI Responses", "Simulated Anthropic", "Simulated Gemini"]


def wire_image(endpoint: str, data: str) -> dict[str, Any]:
    """How each wire format carries the internal ``{"type": "image_url", "image_url": {"url": <PNG data URL>}}``,
    in a user message and in a tool result alike (OpenAI Chat moves a result's images to a user message)."""
    url = f"data:image/png;base64,{data}"
    return {
        "Simulated OpenAI": {"type": "image_url", "image_url": {"url": url}},
        "Simulated OpenAI Responses": {"type": "input_image", "image_url": url, "detail": "auto"},
        "Simulated Anthropic": {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
        "Simulated Gemini": {"inlineData": {"mimeType": "image/png", "data": data}},
    }[endpoint]


def holds(value: Any, wanted: dict[str, Any]) -> bool:
    """Whether ``wanted`` is one of the objects anywhere inside ``value``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if item == wanted:
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


@database_sync_to_async
def saved(conversation: Conversation) -> tuple[list[Message], list[RoundTrip]]:
    return list(conversation.messages.order_by("position")), saved_round_trips(conversation)


async def send(
    conversation: Conversation, headers: list[tuple[bytes, bytes]], message: dict[str, Any], until: str = "run.end"
) -> list[dict[str, Any]]:
    chat = await open_chat(conversation.pk, headers)
    await chat.receive_json_from()  # the snapshot
    await chat.send_json_to({"type": "send", **message})
    frames = await frames_until(chat, until)
    await chat.disconnect()
    return frames


@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_an_attached_image_reaches_the_model_in_its_format(
    conversation: Conversation, alice: User, headers_for: Headers, endpoint: str
) -> None:
    turn = await database_sync_to_async(options)(endpoint, tools=["get_weather"])
    message = {"text": "Describe what I attached.", "images": [attached()], "options": turn}
    frames = await send(conversation, await database_sync_to_async(headers_for)(alice), message)
    assert frames[-1]["status"] == "done", frames[-1]
    messages, round_trips = await saved(conversation)
    assert messages[0].data["content"] == [
        {"type": "text", "text": "Describe what I attached."},
        {"type": "image_url", "image_url": {"url": PNG_URL}},
    ]
    assert holds(round_trips[0].wire_request["body"], wire_image(endpoint, PNG))
    assert "I see 1 image (image/png, 70 bytes)." in messages[-1].data["content"]
    fresh = await Conversation.objects.aget(pk=conversation.pk)
    assert fresh.title == "Describe what I attached."


@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_the_chart_builtin_result_travels_as_an_image(
    conversation: Conversation, alice: User, headers_for: Headers, endpoint: str
) -> None:
    turn = await database_sync_to_async(options)(endpoint, tools=["bar_chart"])
    bars = [{"label": "Q1", "value": 3}, {"label": "Q2", "value": 5}]
    text = f"/call bar_chart {json.dumps({'title': 'Sales', 'bars': bars})}"
    frames = await send(conversation, await database_sync_to_async(headers_for)(alice), {"text": text, "options": turn})
    [result] = of_type(frames, "tool.result")
    summary, image = result["content"]
    assert summary["type"] == "text" and summary["text"].startswith("Bar chart “Sales”: 2 bars")
    url = image["image_url"]["url"]
    assert url.startswith("data:image/png;base64,") and result["source"] == "builtin:bar_chart"
    messages, round_trips = await saved(conversation)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[2].data["content"] == result["content"], "saved as content parts, not as text"
    data = url.split(",", 1)[1]
    size = len(base64.b64decode(data))
    assert holds(round_trips[1].wire_request["body"], wire_image(endpoint, data))
    assert f"I see 1 image (image/png, {size} bytes)." in messages[-1].data["content"]


async def test_a_refused_image_saves_nothing_and_says_why(
    conversation: Conversation, alice: User, headers_for: Headers
) -> None:
    fake = base64.b64encode(b"GIF90a not really").decode()
    turn = await database_sync_to_async(options)(tools=[])
    message = {
        "text": "Look",
        "images": [attached(), attached(f"data:image/gif;base64,{fake}", "b.gif")],
        "options": turn,
    }
    [error] = await send(conversation, await database_sync_to_async(headers_for)(alice), message, until="error")
    assert error["error"] == (
        "Image 2 (b.gif) is not a PNG, JPEG, WebP or GIF image (its bytes say so, whatever its name)."
    )
    assert await conversation.messages.acount() == 0
    fresh = await Conversation.objects.aget(pk=conversation.pk)
    assert fresh.status == Conversation.Status.IDLE and fresh.title == ""


async def test_an_image_alone_is_a_message(conversation: Conversation, alice: User, headers_for: Headers) -> None:
    turn = await database_sync_to_async(options)(tools=[])
    frames = await send(
        conversation,
        await database_sync_to_async(headers_for)(alice),
        {"text": "", "images": [attached()], "options": turn},
    )
    assert frames[-1]["status"] == "done"
    messages, _ = await saved(conversation)
    assert messages[0].data["content"] == [{"type": "image_url", "image_url": {"url": PNG_URL}}]
    assert (await Conversation.objects.aget(pk=conversation.pk)).title == "1 image"


async def test_no_text_and_no_image_is_refused(conversation: Conversation, alice: User, headers_for: Headers) -> None:
    turn = await database_sync_to_async(options)(tools=[])
    message = {"text": " ", "images": [], "options": turn}
    [error] = await send(conversation, await database_sync_to_async(headers_for)(alice), message, until="error")
    assert error["error"] == "Type a message or attach an image first."
