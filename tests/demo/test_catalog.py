"""The demo data: the built-in simulated endpoints every team sees, the Responses one included, and that each
answers through the app's own client as configured."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from channels.db import database_sync_to_async

from playground.demo.catalog import SIMULATED, load_simulated_endpoints
from playground.endpoints import checks
from playground.endpoints.models import Endpoint
from providers.client import round_trip
from providers.simulator import responses_server

if TYPE_CHECKING:
    from pytest_django.fixtures import SettingsWrapper

pytestmark = pytest.mark.django_db
RESPONSES = "Simulated OpenAI Responses"


@pytest.fixture
def simulator(settings: SettingsWrapper, simulator_url: str) -> str:
    settings.CROSSWIRE_SIMULATOR_URL = simulator_url
    settings.CROSSWIRE_SIMULATOR_PACE_MS = 0
    return simulator_url


def test_the_responses_endpoint_is_built_in() -> None:
    load_simulated_endpoints()
    endpoint = Endpoint.objects.get(name=RESPONSES)
    assert endpoint.team is None and endpoint.kind == Endpoint.Kind.SIMULATED and endpoint.is_simulated
    assert (endpoint.format, endpoint.base_url) == ("openai-responses", "/openai/v1")
    assert endpoint.model_names == list(responses_server.MODELS) and endpoint.default_model == "sim-1"
    assert {"sim-429", "sim-cut", "sim-error-event"} <= set(endpoint.model_names)
    assert endpoint.supports_reasoning


def test_loading_twice_duplicates_nothing() -> None:
    first = load_simulated_endpoints()
    second = load_simulated_endpoints()
    assert [e.pk for e in first] == [e.pk for e in second]
    names = list(Endpoint.objects.filter(team__isnull=True).order_by("name").values_list("name", "format"))
    assert names == sorted((name, fmt) for name, fmt, _, _ in SIMULATED)
    assert ("Simulated OpenAI Responses", "openai-responses") in names
    assert ("Simulated Gemini", "gemini") in names


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_the_connection_check_passes(simulator: str) -> None:
    endpoint = next(e for e in await _load() if e.name == RESPONSES)
    result = await checks.check_connection(endpoint)
    assert result.ok and result.model == "sim-1" and "ping" in result.reply


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_a_round_trip_goes_to_the_responses_path(simulator: str) -> None:
    endpoint = next(e for e in await _load() if e.name == RESPONSES)
    client = endpoint.client_endpoint(pace_ms=0)
    assert client.format == "openai-responses" and client.base_url == f"{simulator}/openai/v1"
    rt = await round_trip(client, {"model": "sim-1", "messages": [{"role": "user", "content": "/text Hi there."}]})
    assert rt.wire_request is not None and rt.wire_request.url == f"{simulator}/openai/v1/responses"
    assert rt.wire_request.headers["x-sim-pace-ms"] == "0"
    assert rt.result.complete and rt.result.message["content"] == "Hi there."


async def _load() -> list[Endpoint]:
    return await database_sync_to_async(load_simulated_endpoints)()
