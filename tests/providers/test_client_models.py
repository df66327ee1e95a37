"""providers.client.models.list_models: model names through the SDKs, and every failure as a ProviderError."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

from providers.client import Endpoint
from providers.client import models as client_models
from providers.client.models import list_models
from providers.client.sdk import CONNECTION_FAILED
from providers.errors import ProviderError
from providers.simulator import anthropic_server, openai_server
from providers.simulator.app import create_server_app
from tests.simulator_process import free_port

IN_PROCESS = {"openai-chat": "http://sim/sim/openai/v1", "anthropic": "http://sim/sim/anthropic"}
PATHS = {"openai-chat": "/openai/v1", "anthropic": "/anthropic"}
EXPECTED = {"openai-chat": list(openai_server.MODELS), "anthropic": list(anthropic_server.MODELS)}


def in_process(fmt: str, key: str = "sk-test", base_url: str | None = None, app: Any = None) -> Endpoint:
    transport = httpx2.ASGITransport(app=app or create_server_app())
    return Endpoint(fmt, base_url or IN_PROCESS[fmt], key, transport=transport)


@pytest.mark.parametrize("fmt", ["openai-chat", "anthropic"])
async def test_lists_the_simulators_models_in_process(fmt: str) -> None:
    assert await list_models(in_process(fmt)) == EXPECTED[fmt]


@pytest.mark.parametrize("fmt", ["openai-chat", "anthropic"])
async def test_lists_the_simulators_models_over_a_socket(simulator_url: str, fmt: str) -> None:
    endpoint = Endpoint(fmt, simulator_url + PATHS[fmt], "sk-test", timeout=10)
    assert await list_models(endpoint) == EXPECTED[fmt]


async def test_a_refused_key_is_an_authentication_error() -> None:
    with pytest.raises(ProviderError) as caught:
        await list_models(in_process("anthropic", key=""))
    assert (caught.value.type, caught.value.status) == ("authentication", 401)


async def test_the_openai_sdk_without_a_key_explains_itself() -> None:
    with pytest.raises(ProviderError) as caught:
        await list_models(in_process("openai-chat", key=""))
    assert caught.value.type == "invalid_request" and "api_key" in caught.value.message


@pytest.mark.parametrize("fmt", ["openai-chat", "anthropic"])
async def test_a_wrong_path_is_not_found(fmt: str) -> None:
    with pytest.raises(ProviderError) as caught:
        await list_models(in_process(fmt, base_url="http://sim/sim/nowhere"))
    assert (caught.value.type, caught.value.status) == ("not_found", 404)


async def test_a_refused_connection_is_a_connection_error() -> None:
    endpoint = Endpoint("openai-chat", f"http://127.0.0.1:{free_port()}/v1", "sk-test", timeout=5)
    with pytest.raises(ProviderError) as caught:
        await list_models(endpoint)
    assert caught.value.type == "connection" and caught.value.retryable
    assert caught.value.message == CONNECTION_FAILED


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A socket that takes connections (into its backlog) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield int(sock.getsockname()[1])


async def test_a_server_that_never_answers_times_out(silent_port: int) -> None:
    endpoint = Endpoint("openai-chat", f"http://127.0.0.1:{silent_port}/v1", "sk-test", timeout=0.5)
    with pytest.raises(ProviderError) as caught:
        await list_models(endpoint)
    assert (caught.value.type, caught.value.message) == ("timeout", "No answer within 0.5 s.")


def app_answering(body: Any, html: bool = False) -> Starlette:
    async def models(request: Request) -> Any:
        return HTMLResponse(body) if html else JSONResponse(body)

    return Starlette(routes=[Route("/v1/models", models)])


async def test_an_html_page_is_an_invalid_response() -> None:
    app = app_answering("<html><body>Welcome to nginx!</body></html>", html=True)
    with pytest.raises(ProviderError) as caught:
        await list_models(in_process("openai-chat", base_url="http://gw/v1", app=app))
    assert caught.value.type == "invalid_response"


async def test_duplicates_and_nameless_entries_are_dropped() -> None:
    data = [{"id": "b", "object": "model"}, {"id": "a", "object": "model"}, {"id": "b", "object": "model"}]
    app = app_answering({"object": "list", "data": [*data, {"object": "model", "id": ""}]})
    assert await list_models(in_process("openai-chat", base_url="http://gw/v1", app=app)) == ["b", "a"]


async def test_an_endless_pager_stops_at_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_models, "MAX_MODELS", 5)

    async def pages(request: Request) -> JSONResponse:
        after = int(request.query_params.get("after_id", "m0").removeprefix("m"))
        data = [{"type": "model", "id": f"m{after + 1}", "display_name": "m", "created_at": "2025-01-01T00:00:00Z"}]
        return JSONResponse({"data": data, "has_more": True, "first_id": data[0]["id"], "last_id": data[0]["id"]})

    app = Starlette(routes=[Route("/v1/models", pages)])
    names = await list_models(in_process("anthropic", base_url="http://gw", app=app))
    assert names == ["m1", "m2", "m3", "m4", "m5"]
