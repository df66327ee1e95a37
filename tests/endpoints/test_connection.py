"""Test connection and Fetch models, for real over HTTP against a standalone simulator (and a port nobody serves)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from django.test import Client
from django.urls import reverse

from playground.demo.catalog import load_simulated_endpoints
from playground.endpoints import checks
from playground.endpoints.models import Endpoint
from providers.simulator import anthropic_server, openai_server
from tests.endpoints.support import HTMX, make_endpoint, signed_in, unreachable_url
from tests.simulator_process import standalone_simulator

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team
    from providers.types import ChatRequest

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def sim_url() -> Iterator[str]:
    with standalone_simulator() as url:
        yield url


@pytest.fixture(autouse=True)
def simulator_settings(settings: SettingsWrapper, sim_url: str) -> None:
    settings.CROSSWIRE_SIMULATOR_URL = sim_url


@pytest.fixture
def simulated() -> dict[str, Endpoint]:
    return {endpoint.format: endpoint for endpoint in load_simulated_endpoints()}


def run_test(client: Client, endpoint: Endpoint) -> str:
    response = client.post(reverse("endpoint-test", args=[endpoint.pk]), **HTMX)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("fmt", ["openai-chat", "anthropic"])
def test_connection_to_the_simulated_endpoints_is_ok(
    client: Client, bob: User, team: Team, simulated: dict[str, Endpoint], fmt: str
) -> None:
    html = run_test(signed_in(client, bob, team), simulated[fmt])
    assert "endpoint-status-ok" in html and ">OK<" in html and " ms<" in html and "sim-1" in html


async def test_the_check_sends_one_small_non_streamed_ping(
    simulated: dict[str, Endpoint], monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[ChatRequest] = []
    real_round_trip = checks.round_trip

    async def recording_round_trip(endpoint: Any, request: ChatRequest) -> Any:
        sent.append(request)
        return await real_round_trip(endpoint, request)

    monkeypatch.setattr(checks, "round_trip", recording_round_trip)
    result = await checks.check_connection(simulated["openai-chat"])
    assert result.ok and result.model == "sim-1" and result.latency_ms is not None and result.latency_ms >= 0
    assert result.reply
    assert sent == [
        {"model": "sim-1", "messages": [{"role": "user", "content": "ping"}], "max_tokens": 16, "stream": False}
    ]


@pytest.mark.parametrize(("fmt", "path"), [("openai-chat", "/openai/v1"), ("anthropic", "/anthropic")])
def test_a_refused_key_reads_as_an_authentication_error(
    client: Client, alice: User, team: Team, sim_url: str, fmt: str, path: str
) -> None:
    kind = Endpoint.Kind.ANTHROPIC if fmt == "anthropic" else Endpoint.Kind.COMPATIBLE
    endpoint = make_endpoint(
        team, kind=kind, format=fmt, base_url=sim_url + path, default_model="sim-401", api_key="sk-bad-key-000000"
    )
    html = run_test(signed_in(client, alice, team), endpoint)
    assert "endpoint-status-error" in html and "authentication 401" in html


def test_a_keyless_local_server_is_tested_without_a_key(client: Client, alice: User, team: Team, sim_url: str) -> None:
    # The openai SDK will not build a client with an empty key; Ollama and friends need none.
    endpoint = make_endpoint(team, base_url=sim_url + "/openai/v1", default_model="sim-ollama")
    assert endpoint.api_key() == ""
    html = run_test(signed_in(client, alice, team), endpoint)
    assert "endpoint-status-ok" in html and "sim-ollama" in html


def test_an_unknown_path_reads_as_not_found(client: Client, alice: User, team: Team, sim_url: str) -> None:
    endpoint = make_endpoint(team, base_url=sim_url + "/nowhere/v1", default_model="sim-1")
    html = run_test(signed_in(client, alice, team), endpoint)
    assert "not_found 404" in html


def test_an_unreachable_server_reads_as_a_connection_error(client: Client, alice: User, team: Team) -> None:
    endpoint = make_endpoint(team, base_url=unreachable_url())
    html = run_test(signed_in(client, alice, team), endpoint)
    assert "endpoint-status-error" in html and "connection" in html and "Could not reach the provider" in html


def test_a_server_that_never_answers_times_out(
    client: Client, alice: User, team: Team, sim_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checks, "CHECK_TIMEOUT_S", 1.0)
    endpoint = make_endpoint(team, base_url=sim_url + "/openai/v1", default_model="sim-hang")
    html = run_test(signed_in(client, alice, team), endpoint)
    assert "timeout" in html and "No answer within 1 s." in html


def test_without_a_default_model_the_test_says_so(client: Client, alice: User, team: Team) -> None:
    endpoint = make_endpoint(team, model_names=[], default_model="")
    html = run_test(signed_in(client, alice, team), endpoint)
    assert "no_model" in html and "Pick a default model first" in html


def test_a_url_the_deployment_no_longer_allows_is_not_contacted(
    client: Client, alice: User, team: Team, sim_url: str, settings: SettingsWrapper
) -> None:
    endpoint = make_endpoint(team, base_url=sim_url + "/openai/v1", default_model="sim-1")
    settings.CROSSWIRE_ALLOWED_BASE_URLS = ["https://openrouter.ai/api/v1"]
    html = run_test(signed_in(client, alice, team), endpoint)
    assert "refused" in html and "does not allow that base URL" in html


def test_without_htmx_the_result_is_a_flash_message(
    client: Client, bob: User, team: Team, simulated: dict[str, Endpoint]
) -> None:
    client = signed_in(client, bob, team)
    response = client.post(reverse("endpoint-test", args=[simulated["anthropic"].pk]), follow=True)
    assert response.redirect_chain == [(reverse("providers"), 302)]
    assert "Simulated Anthropic: OK in" in response.content.decode()


# Fetch models.


@pytest.mark.parametrize(
    ("kind", "fmt", "path", "expected"),
    [
        (Endpoint.Kind.COMPATIBLE, "openai-chat", "/openai/v1", openai_server.MODELS),
        (Endpoint.Kind.ANTHROPIC, "anthropic", "/anthropic", anthropic_server.MODELS),
    ],
)
def test_fetch_models_stores_the_servers_list(
    client: Client, bob: User, team: Team, sim_url: str, kind: str, fmt: str, path: str, expected: Any
) -> None:
    fields = {"kind": kind, "format": fmt, "base_url": sim_url + path, "api_key": "sk-test-key-12345678"}
    endpoint = make_endpoint(team, **fields, model_names=[], default_model="")
    response = signed_in(client, bob, team).post(reverse("endpoint-fetch-models", args=[endpoint.pk]), **HTMX)
    endpoint.refresh_from_db()
    assert endpoint.model_names == list(expected) and endpoint.default_model == "sim-1"
    html = response.content.decode()
    assert f"{len(expected)} models" in html and f"Fetched {len(expected)} model names." in html
    assert html.lstrip().startswith(f'<tbody class="endpoint" id="endpoint-{endpoint.pk}">')


def test_fetch_models_keeps_a_listed_default(client: Client, bob: User, team: Team, sim_url: str) -> None:
    endpoint = make_endpoint(team, base_url=sim_url + "/openai/v1", model_names=["x"], default_model="sim-ollama")
    signed_in(client, bob, team).post(reverse("endpoint-fetch-models", args=[endpoint.pk]), **HTMX)
    endpoint.refresh_from_db()
    assert endpoint.default_model == "sim-ollama" and "x" not in endpoint.model_names


def test_a_failed_fetch_keeps_the_typed_names(client: Client, bob: User, team: Team) -> None:
    endpoint = make_endpoint(team, base_url=unreachable_url(), model_names=["typed"], default_model="typed")
    response = signed_in(client, bob, team).post(reverse("endpoint-fetch-models", args=[endpoint.pk]), **HTMX)
    endpoint.refresh_from_db()
    assert endpoint.model_names == ["typed"] and endpoint.default_model == "typed"
    assert "connection" in response.content.decode() and "Could not reach the provider" in response.content.decode()


def test_fetch_on_the_edit_page_refills_the_model_fields(client: Client, alice: User, team: Team, sim_url: str) -> None:
    endpoint = make_endpoint(team, base_url=sim_url + "/openai/v1", model_names=[], default_model="")
    url = reverse("endpoint-fetch-models", args=[endpoint.pk])
    response = signed_in(client, alice, team).post(url, HTTP_HX_TARGET="model-fields", **HTMX)
    html = response.content.decode()
    assert html.lstrip().startswith('<div class="endpoint-models" id="model-fields">')
    assert "sim-1\nsim-ollama" in html and '<option value="sim-1" selected>' in html


def test_fetch_on_the_edit_page_with_a_changed_url_asks_to_save_first(
    client: Client, alice: User, team: Team, sim_url: str
) -> None:
    # It fetched from the saved URL (a 404 there) while the field showed the corrected one.
    endpoint = make_endpoint(team, base_url=sim_url + "/nothing/v1", model_names=["typed"], default_model="typed")
    url = reverse("endpoint-fetch-models", args=[endpoint.pk])
    client = signed_in(client, alice, team)
    changed = {"base_url": sim_url + "/openai/v1"}
    html = client.post(url, changed, HTTP_HX_TARGET="model-fields", **HTMX).content.decode()
    assert "Not saved: the base URL above has changed: save the endpoint, then fetch the models it lists." in html
    endpoint.refresh_from_db()
    assert endpoint.model_names == ["typed"], "nothing fetched, nothing stored"
    same = {"base_url": sim_url + "/openai/v1/"}  # saved, then fetched: a trailing slash is the same URL
    endpoint.base_url = sim_url + "/openai/v1"
    endpoint.save()
    html = client.post(url, same, HTTP_HX_TARGET="model-fields", **HTMX).content.decode()
    assert "Fetched" in html and "sim-1" in html
