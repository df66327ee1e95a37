"""A turn's first messages to the page fit in the pacing's slack, so the answer's first delta goes the moment it is
read, not a frame later: the run's status and its request leave together, then the provider's opening chunk, then
the first delta (playground/chat/pacing.py; docs/performance.md). A process's first round trip of each SDK asks the
OS in a thread before its request (tests/providers/test_sdk_platform.py), which parts the first two: each test
measures a second turn."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import pytest
from channels.db import database_sync_to_async
from django.conf import settings

from playground.chat.registry import REGISTRY
from tests.chat.conftest import FRAME_TIMEOUT_S, open_chat, options

if TYPE_CHECKING:
    from pytest_django.fixtures import SettingsWrapper

    from playground.conversations.models import Conversation

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]
ENDPOINTS = ["Simulated OpenAI", "Simulated OpenAI Responses", "Simulated Anthropic", "Simulated Gemini"]


async def turn_messages(
    conversation: Conversation, headers: list[tuple[bytes, bytes]], endpoint: str
) -> list[list[dict[str, Any]]]:
    """The run's messages of one turn (arrays: the messages the pacing counts; replies go alone and unpaced)."""
    chat = await open_chat(conversation.pk, headers)
    await chat.receive_json_from()  # the snapshot
    chat_options = await database_sync_to_async(options)(endpoint, tools=[])
    await chat.send_json_to({"type": "send", "text": "/text the first words of an answer", "options": chat_options})
    messages: list[list[dict[str, Any]]] = []
    run = None
    while not messages or messages[-1][-1]["type"] != "run.end":
        message = await chat.receive_json_from(timeout=FRAME_TIMEOUT_S)
        assert not isinstance(message, dict) or message["type"] != "error", message
        if isinstance(message, list):
            messages.append(message)
        run = run or REGISTRY.get(conversation.pk)
    await chat.disconnect()
    # run.end goes out before the run has let go of the conversation (the next turn would be refused until then)
    # and before it has sent its last frames to the layer: a socket opened meanwhile would get them as a batch.
    assert run is not None and run.task is not None
    await asyncio.wait_for(asyncio.shield(run.task), FRAME_TIMEOUT_S)
    return messages


def until_the_first_delta(messages: list[list[dict[str, Any]]]) -> list[list[str]]:
    types = [[frame["type"] for frame in message] for message in messages]
    return types[: next(i for i, message in enumerate(types) if "rt.delta" in message) + 1]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_a_turns_status_and_request_leave_in_one_message(
    conversation: Conversation,
    alice_ws_headers: list[tuple[bytes, bytes]],
    chat_settings: SettingsWrapper,
    endpoint: str,
) -> None:
    chat_settings.CROSSWIRE_SIMULATOR_PACE_MS = 5  # each event on its own, as from a real API
    await turn_messages(conversation, alice_ws_headers, endpoint)  # the process's first client of its SDK: see above
    opening = until_the_first_delta(await turn_messages(conversation, alice_ws_headers, endpoint))
    assert opening[0][:2] == ["status", "rt.start"], opening


# Answers that open with one event before the first delta. The Responses simulator opens with four, each paced on
# its own (created, in progress, the output item, the content part), so its first delta waits for a frame slot.
@pytest.mark.parametrize("endpoint", ["Simulated OpenAI", "Simulated Anthropic", "Simulated Gemini"])
async def test_the_first_delta_goes_within_the_slack(
    conversation: Conversation,
    alice_ws_headers: list[tuple[bytes, bytes]],
    chat_settings: SettingsWrapper,
    endpoint: str,
) -> None:
    chat_settings.CROSSWIRE_SIMULATOR_PACE_MS = 5
    await turn_messages(conversation, alice_ws_headers, endpoint)
    opening = until_the_first_delta(await turn_messages(conversation, alice_ws_headers, endpoint))
    # A message goes at once while fewer than slack + 1 went in the last frames: more before the first delta would
    # hold it until a frame after the first one, every turn.
    assert len(opening) - 1 <= settings.CROSSWIRE_FRAME_SLACK, opening
