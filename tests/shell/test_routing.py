"""playground.asgi: who may open a WebSocket, and which HTTP paths go to the simulator instead of Django."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import HttpCommunicator, WebsocketCommunicator

from playground.asgi import SIMULATOR_PREFIX, application
from playground.mounts import MountUnavailable, PrefixDispatcher, load_simulator
from tests.conftest import ALLOWED_HOST, ALLOWED_ORIGIN, DemoServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


async def handshake(path: str, headers: list[tuple[bytes, bytes]]) -> bool:
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    await communicator.disconnect()
    return connected


@pytest.fixture
def alice_conversation_path(alice: Any) -> str:
    from playground.conversations.models import Conversation
    from playground.teams.access import ensure_personal_team

    conversation = Conversation.objects.create(team=ensure_personal_team(alice), created_by=alice)
    return f"/ws/conversations/{conversation.pk}/"


@pytest.mark.parametrize("socket", ["status", "conversation"])
async def test_signed_in_user_from_our_origin_is_accepted(
    alice_ws_headers: list[tuple[bytes, bytes]], alice_conversation_path: str, socket: str
) -> None:
    path = "/ws/status/" if socket == "status" else alice_conversation_path
    assert await handshake(path, alice_ws_headers)


async def test_a_conversation_of_another_team_is_refused(alice_ws_headers: list[tuple[bytes, bytes]], bob: Any) -> None:
    from playground.conversations.models import Conversation
    from playground.teams.access import ensure_personal_team

    bobs = await database_sync_to_async(
        lambda: Conversation.objects.create(team=ensure_personal_team(bob), created_by=bob)
    )()
    assert not await handshake(f"/ws/conversations/{bobs.pk}/", alice_ws_headers)
    assert not await handshake("/ws/conversations/999999/", alice_ws_headers)


@pytest.mark.parametrize("path", ["/ws/status/", "/ws/conversations/1/"])
async def test_anonymous_websocket_is_refused(path: str) -> None:
    assert not await handshake(path, [(b"origin", ALLOWED_ORIGIN.encode()), (b"host", ALLOWED_HOST.encode())])


@pytest.mark.parametrize("socket", ["status", "conversation", "review"])
async def test_a_session_whose_password_changed_since_is_refused(
    alice: Any, alice_ws_headers: list[tuple[bytes, bytes]], alice_conversation_path: str, socket: str
) -> None:
    # The user is read in the consumer's own trip (playground.shell.auth), by Channels' get_user: a session signed
    # in before the password changed no longer signs anyone in, on every kind of socket.
    review_path = alice_conversation_path.replace("/conversations/", "/review/")
    path = {"status": "/ws/status/", "conversation": alice_conversation_path, "review": review_path}[socket]
    assert await handshake(path, alice_ws_headers)

    def change_password() -> None:
        alice.set_password("a-new-password-5678")
        alice.save()

    await database_sync_to_async(change_password)()
    assert not await handshake(path, alice_ws_headers)


async def test_the_user_is_not_read_before_the_consumer_asks() -> None:
    from channels.auth import UserLazyObject

    from playground.shell.auth import SignInOnFirstTrip, signed_in

    seen: dict[str, Any] = {}

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen["scope"] = scope

    await SignInOnFirstTrip(inner)({"type": "websocket", "session": {}}, None, None)
    user = seen["scope"]["user"]
    assert isinstance(user, UserLazyObject)
    with pytest.raises(ValueError, match="before it is ready"):
        _ = user.pk
    assert await database_sync_to_async(signed_in)(seen["scope"]) is user
    assert not user.is_authenticated, "an empty session signs nobody in"
    with pytest.raises(ValueError, match="SessionMiddleware"):
        await SignInOnFirstTrip(inner)({"type": "websocket"}, None, None)


@pytest.mark.parametrize("origin", [b"https://evil.example", b"http://127.0.0.1.evil.example", None])
async def test_foreign_or_missing_origin_is_refused_even_when_signed_in(
    alice_ws_headers: list[tuple[bytes, bytes]], alice_conversation_path: str, origin: bytes | None
) -> None:
    headers = [(name, value) for name, value in alice_ws_headers if name != b"origin"]
    if origin is not None:
        headers.append((b"origin", origin))
    assert not await handshake(alice_conversation_path, headers)


async def test_http_outside_the_mount_reaches_django() -> None:
    response = await HttpCommunicator(application, "GET", "/login/", headers=[(b"host", b"127.0.0.1")]).get_response()
    assert response["status"] == 200
    assert b"Sign in" in response["body"]


class Recorder:
    """A stand-in mounted app that records the scope it was given."""

    def __init__(self) -> None:
        self.scopes: list[dict[str, Any]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.scopes.append(dict(scope))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"mounted"})


async def request(app: Any, path: str) -> dict[str, Any]:
    return await HttpCommunicator(app, "GET", path).get_response()


async def test_prefix_paths_go_to_the_mounted_app_with_root_path_set() -> None:
    mounted, django = Recorder(), Recorder()
    loads = []
    dispatcher = PrefixDispatcher(django, {"/sim": lambda: loads.append(1) or mounted})

    await request(dispatcher, "/sim/openai/v1/chat/completions")
    await request(dispatcher, "/sim")
    await request(dispatcher, "/simulator/")
    await request(dispatcher, "/")

    assert [(s["root_path"], s["path"]) for s in mounted.scopes] == [
        ("/sim", "/sim/openai/v1/chat/completions"),
        ("/sim", "/sim"),
    ]
    assert [s["path"] for s in django.scopes] == ["/simulator/", "/"]
    assert loads == [1], "the mounted app is built once, on first use"


async def test_starlette_routes_relative_to_the_mount() -> None:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def echo(request: Request) -> JSONResponse:
        return JSONResponse({"url": str(request.url), "route": request.url_for("echo").path})

    inner = Starlette(routes=[Route("/openai/v1/models", echo, name="echo")])
    dispatcher = PrefixDispatcher(Recorder(), {"/sim": lambda: inner})
    response = await request(dispatcher, "/sim/openai/v1/models")
    assert response["status"] == 200
    assert b'"route":"/sim/openai/v1/models"' in response["body"]


async def test_missing_simulator_gives_a_clear_503(monkeypatch: pytest.MonkeyPatch) -> None:
    # None in sys.modules makes the import fail exactly as a missing module does.
    monkeypatch.setitem(sys.modules, "providers.simulator.app", None)
    with pytest.raises(MountUnavailable, match="provider simulator"):
        load_simulator()
    dispatcher = PrefixDispatcher(Recorder(), {SIMULATOR_PREFIX: load_simulator})
    response = await request(dispatcher, "/sim/openai/v1/chat/completions")
    assert response["status"] == 503
    assert b"providers.simulator.app.create_app" in response["body"]


async def test_sim_prefix_reaches_the_real_simulator() -> None:
    headers = [(b"host", b"127.0.0.1"), (b"authorization", b"Bearer sim-key")]
    response = await HttpCommunicator(application, "GET", "/sim/openai/v1/models", headers=headers).get_response()
    assert response["status"] == 200
    assert "sim-1" in [model["id"] for model in json.loads(response["body"])["data"]]


async def test_openai_sdk_streams_from_the_simulator_through_daphne(daphne_server: DemoServer) -> None:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=f"{daphne_server.url}{SIMULATOR_PREFIX}/openai/v1", api_key="sim-key")
    stream = await client.chat.completions.create(
        model="sim-1", messages=[{"role": "user", "content": "hello"}], stream=True
    )
    text = "".join([chunk.choices[0].delta.content or "" async for chunk in stream if chunk.choices])
    await client.close()
    assert "hello" in text
