"""Chat fixtures: a team conversation on the simulated endpoints, with tools of every answer mode."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from channels.testing import WebsocketCommunicator

from playground.asgi import application
from tests.conftest import ALLOWED_HOST, ALLOWED_ORIGIN

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client
    from pytest_django.fixtures import SettingsWrapper

    from playground.conversations.models import Conversation
    from playground.teams.models import Team

FRAME_TIMEOUT_S = 10


@pytest.fixture
def chat_settings(settings: SettingsWrapper, simulator_url: str) -> SettingsWrapper:
    settings.CROSSWIRE_SIMULATOR_URL = simulator_url
    settings.CROSSWIRE_SIMULATOR_PACE_MS = 0
    return settings


@pytest.fixture
def conversation(team: Team, alice: User, chat_settings: SettingsWrapper) -> Conversation:
    from playground.conversations.models import Conversation
    from playground.demo.catalog import load_example_tools, load_simulated_endpoints

    load_simulated_endpoints()
    load_example_tools(team)
    return Conversation.objects.create(team=team, created_by=alice)


@pytest.fixture
def headers_for(client: Client) -> Callable[[User], list[tuple[bytes, bytes]]]:
    def headers(user: User) -> list[tuple[bytes, bytes]]:
        client.force_login(user)
        cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
        return [(b"origin", ALLOWED_ORIGIN.encode()), (b"host", ALLOWED_HOST.encode()), (b"cookie", cookie)]

    return headers


def options(endpoint_name: str = "Simulated OpenAI", **overrides: Any) -> dict[str, Any]:
    """Chat options as the page sends them; ``endpoint_name`` picks one of the simulated endpoints."""
    from playground.endpoints.models import Endpoint

    endpoint = Endpoint.objects.get(name=endpoint_name)
    base = {
        "endpoint_id": endpoint.pk,
        "model": "sim-1",
        "tools": ["get_weather", "calculator", "lookup_order", "search_docs"],
        "tool_choice": "auto",
        "parallel_tool_calls": True,
        "max_tokens": 512,
        "stream": True,
        "max_round_trips": 8,
        "max_invalid_retries": 2,
    }
    return {**base, **overrides}


async def open_chat(conversation_id: int, headers: list[tuple[bytes, bytes]]) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, f"/ws/conversations/{conversation_id}/", headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    return communicator


# Frames received but not yet read, per socket: a run's frames come in arrays, which may hold more than asked for.
_unread: weakref.WeakKeyDictionary[WebsocketCommunicator, list[dict[str, Any]]] = weakref.WeakKeyDictionary()


async def next_frame(communicator: WebsocketCommunicator) -> dict[str, Any]:
    """The next frame, whether it came alone (a reply) or in an array (a run's frames, docs/websocket.md)."""
    unread = _unread.setdefault(communicator, [])
    if not unread:
        message = await communicator.receive_json_from(timeout=FRAME_TIMEOUT_S)
        unread.extend(message if isinstance(message, list) else [message])
    return unread.pop(0)


async def frames_until(communicator: WebsocketCommunicator, frame_type: str) -> list[dict[str, Any]]:
    """Every frame up to and including the first of ``frame_type``."""
    frames: list[dict[str, Any]] = []
    while not frames or frames[-1]["type"] != frame_type:
        frames.append(await next_frame(communicator))
    return frames


def nothing_unread(communicator: WebsocketCommunicator) -> bool:
    return not _unread.get(communicator)


def of_type(frames: list[dict[str, Any]], frame_type: str) -> list[dict[str, Any]]:
    return [f for f in frames if f["type"] == frame_type]
