"""The "Google Gemini" endpoint kind: offered on the form, saved with its format and default URL; the built-in
"Simulated Gemini" endpoint answers the connection check and lists its models; a closed simulator takes the app's
key in Gemini's header."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from playground.demo.catalog import load_simulated_endpoints
from playground.endpoints import checks
from playground.endpoints.forms import KINDS
from playground.endpoints.models import Endpoint
from providers.client import round_trip
from providers.simulator import gemini_server
from tests.endpoints.support import form_data, signed_in
from tests.shell.test_simulator_gate import KEY as SIMULATOR_KEY
from tests.shell.test_simulator_gate import models_status

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db
SIMULATED = "Simulated Gemini"
GOOGLE = "https://generativelanguage.googleapis.com"


@pytest.fixture
def simulator(settings: SettingsWrapper, simulator_url: str) -> str:
    settings.CROSSWIRE_SIMULATOR_URL = simulator_url
    settings.CROSSWIRE_SIMULATOR_PACE_MS = 0
    return simulator_url


def test_the_kind_is_offered_with_its_format_and_default_url() -> None:
    spec = KINDS[Endpoint.Kind.GEMINI]
    assert (spec.kind, spec.label, spec.format, spec.default_url) == ("gemini", "Google Gemini", "gemini", GOOGLE)
    assert Endpoint.Kind.GEMINI.label == "Google Gemini"


def test_the_form_page_links_the_kind_and_prefills_the_url(client: Client, bob: User, team: Team) -> None:
    page = signed_in(client, bob, team).get(reverse("endpoint-create"), {"kind": "gemini"})
    html = page.content.decode()
    assert page.status_code == 200 and "Google Gemini" in html
    assert 'name="kind" value="gemini"' in html and f'value="{GOOGLE}"' in html


def test_an_editor_adds_a_gemini_endpoint(client: Client, bob: User, team: Team) -> None:
    data = form_data(kind="gemini", name="Gemini", base_url="", model_names="gemini-2.5-flash, gemini-2.5-pro")
    response = signed_in(client, bob, team).post(reverse("endpoint-create"), {**data, "api_key": "AIzaSy-abc-123456"})
    assert response.status_code == 302 and response["Location"] == reverse("providers")
    endpoint = Endpoint.objects.get(team=team, name="Gemini")
    assert (endpoint.kind, endpoint.format, endpoint.base_url) == ("gemini", "gemini", GOOGLE)
    assert endpoint.default_model == "gemini-2.5-flash" and endpoint.api_key() == "AIzaSy-abc-123456"
    client_endpoint = endpoint.client_endpoint()
    assert client_endpoint.format == "gemini" and client_endpoint.base_url == GOOGLE
    assert client_endpoint.address_policy is not None, "a real endpoint's addresses are checked as dialled"
    listing = client.get(reverse("providers")).content.decode()
    assert "Gemini" in listing and "Google Gemini" in listing and "AIzaSy-abc-123456" not in listing


def test_the_simulated_endpoint_is_built_in() -> None:
    load_simulated_endpoints()
    endpoint = Endpoint.objects.get(name=SIMULATED)
    assert endpoint.team is None and endpoint.kind == Endpoint.Kind.SIMULATED and endpoint.is_simulated
    assert (endpoint.format, endpoint.base_url) == ("gemini", "/gemini")
    assert endpoint.model_names == list(gemini_server.MODELS) and endpoint.default_model == "sim-1"
    assert endpoint.supports_reasoning


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_the_connection_check_and_the_model_list(simulator: str) -> None:
    endpoint = await _simulated()
    result = await checks.check_connection(endpoint)
    assert result.ok and result.model == "sim-1" and "ping" in result.reply
    models = await checks.fetch_model_names(endpoint)
    assert models.ok and models.names == list(gemini_server.MODELS)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_a_round_trip_goes_to_the_gemini_path(simulator: str) -> None:
    client = (await _simulated()).client_endpoint(pace_ms=0)
    assert client.format == "gemini" and client.base_url == f"{simulator}/gemini"
    rt = await round_trip(client, {"model": "sim-1", "messages": [{"role": "user", "content": "/text Hi there."}]})
    assert rt.wire_request is not None
    assert rt.wire_request.url == f"{simulator}/gemini/v1beta/models/sim-1:generateContent"
    assert rt.wire_request.headers["x-sim-pace-ms"] == "0"
    assert rt.result.complete and rt.result.message["content"] == "Hi there."


async def test_a_closed_simulator_takes_the_apps_key_in_geminis_header(settings: Any) -> None:
    settings.CROSSWIRE_SIMULATOR_OPEN = False
    settings.CROSSWIRE_SIMULATOR_KEY = SIMULATOR_KEY
    path = "/sim/gemini/v1beta/models"
    assert await models_status([(b"x-goog-api-key", SIMULATOR_KEY.encode())], path) == 200
    assert await models_status([(b"x-goog-api-key", b"AIza-someone-else")], path) == 401


async def _simulated() -> Endpoint:
    endpoints = await database_sync_to_async(load_simulated_endpoints)()
    return next(e for e in endpoints if e.name == SIMULATED)
