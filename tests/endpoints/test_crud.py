"""The Providers page: listing, adding, editing and deleting endpoints, and who may do what."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.test import Client
from django.urls import reverse

from playground.demo.catalog import load_simulated_endpoints
from playground.endpoints.models import Endpoint
from playground.teams import access
from providers.formats import FORMATS
from tests.endpoints.support import HTMX, form_data, make_endpoint, signed_in

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def simulated() -> list[Endpoint]:
    return load_simulated_endpoints()


def test_list_shows_the_simulated_endpoints_and_the_teams_own(client: Client, alice: User, team: Team) -> None:
    make_endpoint(team, name="Local Ollama", api_key="sk-local-key-1234abcd")
    make_endpoint(team, name="No key here", model_names=[], default_model="")
    response = signed_in(client, alice, team).get(reverse("providers"))
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('data-testid="endpoint-row"') == 6
    assert "Simulated OpenAI" in html and "Simulated Anthropic" in html and "Simulated Gemini" in html
    assert html.count("Simulator, no key needed") == 4
    said = html.split('data-testid="simulator-formats"', 1)[1].split("</p>", 1)[0]
    assert all(f'<span class="mono small">{name}</span>' in said for name in FORMATS), "the simulator speaks each"
    assert "Local Ollama" in html and "…abcd" in html and "no key" in html
    assert "http://localhost:11434/v1" in html and "OpenAI-compatible" in html and "openai-chat" in html
    assert "1 model" in html and 'default <span class="mono">llama3.2</span>' in html and "no default" in html


def test_list_hides_other_teams_endpoints(client: Client, alice: User, bob: User, team: Team) -> None:
    make_endpoint(access.ensure_personal_team(bob), name="Bob's private")
    html = signed_in(client, alice, team).get(reverse("providers")).content.decode()
    assert "Bob's private" not in html


def test_viewers_see_the_list_without_controls(client: Client, carol: User, team: Team) -> None:
    make_endpoint(team, name="Shared")
    html = signed_in(client, carol, team).get(reverse("providers")).content.decode()
    assert "Shared" in html and "read-only" in html
    assert "Add endpoint" not in html and 'data-testid="test-connection"' not in html and "Delete" not in html


def test_editor_adds_an_openai_endpoint_with_the_default_url(client: Client, bob: User, team: Team) -> None:
    data = form_data(kind="openai", name="OpenAI", base_url="https://api.openai.com/v1", api_key="sk-abc-123456789")
    response = signed_in(client, bob, team).post(reverse("endpoint-create"), data)
    assert response.status_code == 302 and response["Location"] == reverse("providers")
    endpoint = Endpoint.objects.get(team=team, name="OpenAI")
    assert (endpoint.kind, endpoint.format, endpoint.base_url) == ("openai", "openai-chat", "https://api.openai.com/v1")
    assert endpoint.created_by == bob and endpoint.api_key() == "sk-abc-123456789"
    assert endpoint.model_names == ["llama3.2", "qwen3:8b"] and endpoint.default_model == "llama3.2"


def test_an_empty_base_url_means_the_kinds_default(client: Client, bob: User, team: Team) -> None:
    data = form_data(kind="anthropic", name="Claude", base_url="", model_names="claude-sonnet-4-5")
    signed_in(client, bob, team).post(reverse("endpoint-create"), data)
    endpoint = Endpoint.objects.get(team=team, name="Claude")
    assert (endpoint.format, endpoint.base_url) == ("anthropic", "https://api.anthropic.com")
    assert endpoint.default_model == "claude-sonnet-4-5"


def test_owner_adds_an_openai_compatible_endpoint(client: Client, alice: User, team: Team) -> None:
    response = signed_in(client, alice, team).post(
        reverse("endpoint-create"), form_data(base_url="http://gpu:8000/v1/")
    )
    assert response.status_code == 302
    endpoint = Endpoint.objects.get(team=team, name="Ollama")
    assert (endpoint.kind, endpoint.format, endpoint.base_url) == (
        "openai-compatible",
        "openai-chat",
        "http://gpu:8000/v1",
    )


def test_compatible_endpoints_need_a_base_url(client: Client, alice: User, team: Team) -> None:
    response = signed_in(client, alice, team).post(reverse("endpoint-create"), form_data(base_url=""))
    assert response.status_code == 200 and "Enter the server&#x27;s base URL" in response.content.decode()
    assert not Endpoint.objects.filter(team=team).exists()


def test_a_base_url_without_v1_is_saved_with_a_warning(client: Client, alice: User, team: Team) -> None:
    client = signed_in(client, alice, team)
    response = client.post(reverse("endpoint-create"), form_data(base_url="http://localhost:11434"), follow=True)
    assert Endpoint.objects.get(team=team).base_url == "http://localhost:11434"
    html = response.content.decode()
    assert "flash-warning" in html and "usually end in /v1" in html


def test_invalid_base_url_is_refused_with_a_message(client: Client, alice: User, team: Team) -> None:
    response = signed_in(client, alice, team).post(reverse("endpoint-create"), form_data(base_url="file:///etc/passwd"))
    assert "Use an http:// or https:// URL." in response.content.decode()
    assert not Endpoint.objects.filter(team=team).exists()


def test_names_are_unique_within_a_team(client: Client, alice: User, team: Team) -> None:
    make_endpoint(team, name="Ollama")
    response = signed_in(client, alice, team).post(reverse("endpoint-create"), form_data(name="ollama"))
    assert "already has an endpoint with that name" in response.content.decode()


def test_presets_fill_name_and_base_url(client: Client, alice: User, team: Team) -> None:
    url = reverse("endpoint-create") + "?kind=openai-compatible&preset=groq"
    html = signed_in(client, alice, team).get(url).content.decode()
    assert 'value="Groq"' in html and 'value="https://api.groq.com/openai/v1"' in html
    for name in ("Ollama", "vLLM", "llama.cpp", "OpenRouter", "Groq"):
        assert f">{name}</a>" in html


def test_the_openai_kind_shows_its_fixed_url_read_only_to_editors(client: Client, bob: User, team: Team) -> None:
    html = signed_in(client, bob, team).get(reverse("endpoint-create") + "?kind=openai").content.decode()
    assert 'value="https://api.openai.com/v1"' in html and "readonly" in html


# Custom base URLs: owners only, and only where the deployment allows.


def test_editors_cannot_add_a_compatible_endpoint(client: Client, bob: User, team: Team) -> None:
    response = signed_in(client, bob, team).post(reverse("endpoint-create"), form_data())
    assert response.status_code == 200
    assert "Only team owners can set a custom base URL." in response.content.decode()
    assert not Endpoint.objects.filter(team=team).exists()


def test_editors_cannot_override_the_openai_url(client: Client, bob: User, team: Team) -> None:
    data = form_data(kind="openai", name="Proxy", base_url="https://proxy.example.com/v1")
    response = signed_in(client, bob, team).post(reverse("endpoint-create"), data)
    assert "Only team owners can set a custom base URL." in response.content.decode()


def test_owners_can_override_the_openai_url(client: Client, alice: User, team: Team) -> None:
    data = form_data(kind="openai", name="Proxy", base_url="https://proxy.example.com/v1")
    signed_in(client, alice, team).post(reverse("endpoint-create"), data)
    assert Endpoint.objects.get(team=team, name="Proxy").base_url == "https://proxy.example.com/v1"


def test_production_default_allows_no_custom_url(
    client: Client, alice: User, team: Team, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_ALLOWED_BASE_URLS = []
    response = signed_in(client, alice, team).post(reverse("endpoint-create"), form_data())
    assert "This deployment allows no custom base URLs" in response.content.decode()
    data = form_data(kind="openai", name="OpenAI", base_url="https://api.openai.com/v1")
    assert client.post(reverse("endpoint-create"), data).status_code == 302


def test_allow_list_prefixes(client: Client, alice: User, team: Team, settings: SettingsWrapper) -> None:
    settings.CROSSWIRE_ALLOWED_BASE_URLS = ["https://openrouter.ai/api/v1"]
    client = signed_in(client, alice, team)
    refused = client.post(reverse("endpoint-create"), form_data(base_url="http://localhost:11434/v1"))
    assert "does not allow that base URL" in refused.content.decode()
    data = form_data(name="OpenRouter", base_url="https://openrouter.ai/api/v1")
    assert client.post(reverse("endpoint-create"), data).status_code == 302


def test_editors_may_edit_an_endpoint_whose_custom_url_they_keep(client: Client, bob: User, team: Team) -> None:
    endpoint = make_endpoint(team, name="Local")
    data = form_data(name="Local renamed", base_url=endpoint.base_url)
    response = signed_in(client, bob, team).post(reverse("endpoint-edit", args=[endpoint.pk]), data)
    assert response.status_code == 302
    endpoint.refresh_from_db()
    assert endpoint.name == "Local renamed"
    moved = client.post(reverse("endpoint-edit", args=[endpoint.pk]), form_data(base_url="http://other:1234/v1"))
    assert "Only team owners can set a custom base URL." in moved.content.decode()


# Editing and deleting.


def test_edit_page_shows_the_stored_values(client: Client, alice: User, team: Team) -> None:
    endpoint = make_endpoint(team, name="Local", model_names=["a", "b"], default_model="b")
    html = signed_in(client, alice, team).get(reverse("endpoint-edit", args=[endpoint.pk])).content.decode()
    assert 'data-testid="endpoint-form"' in html and 'value="Local"' in html
    assert "a\nb</textarea>" in html and '<option value="b" selected>' in html


def test_edit_keeps_the_key_when_the_field_is_empty(client: Client, alice: User, team: Team) -> None:
    endpoint = make_endpoint(team, api_key="sk-keep-me-12345678")
    signed_in(client, alice, team).post(reverse("endpoint-edit", args=[endpoint.pk]), form_data(name="Renamed"))
    endpoint.refresh_from_db()
    assert endpoint.api_key() == "sk-keep-me-12345678" and endpoint.api_key_hint == "…5678"


def test_edit_replaces_or_removes_the_key(client: Client, alice: User, team: Team) -> None:
    endpoint = make_endpoint(team, api_key="sk-old-key-12345678")
    client = signed_in(client, alice, team)
    url = reverse("endpoint-edit", args=[endpoint.pk])
    client.post(url, form_data(api_key="sk-new-key-87654321"))
    endpoint.refresh_from_db()
    assert endpoint.api_key() == "sk-new-key-87654321"
    client.post(url, form_data(remove_key="on"))
    endpoint.refresh_from_db()
    assert (endpoint.api_key_encrypted, endpoint.api_key_hint, endpoint.api_key()) == ("", "", "")


def test_replacing_and_removing_at_once_is_refused(client: Client, alice: User, team: Team) -> None:
    endpoint = make_endpoint(team, api_key="sk-old-key-12345678")
    url = reverse("endpoint-edit", args=[endpoint.pk])
    response = signed_in(client, alice, team).post(url, form_data(api_key="sk-new-1234567", remove_key="on"))
    assert "Either replace the key or remove it" in response.content.decode()
    endpoint.refresh_from_db()
    assert endpoint.api_key() == "sk-old-key-12345678"


def test_model_names_are_comma_or_newline_separated(client: Client, alice: User, team: Team) -> None:
    data = form_data(model_names="a, b\nc\r\n\n a ,", default_model="not-listed")
    signed_in(client, alice, team).post(reverse("endpoint-create"), data)
    endpoint = Endpoint.objects.get(team=team)
    assert endpoint.model_names == ["a", "b", "c"] and endpoint.default_model == "a"


def test_delete_with_htmx_removes_the_row(client: Client, bob: User, team: Team) -> None:
    endpoint = make_endpoint(team)
    response = signed_in(client, bob, team).post(reverse("endpoint-delete", args=[endpoint.pk]), **HTMX)
    assert response.status_code == 200 and response.content == b""
    assert not Endpoint.objects.filter(pk=endpoint.pk).exists()


def test_delete_without_htmx_redirects(client: Client, bob: User, team: Team) -> None:
    endpoint = make_endpoint(team)
    response = signed_in(client, bob, team).post(reverse("endpoint-delete", args=[endpoint.pk]))
    assert response.status_code == 302 and not Endpoint.objects.filter(pk=endpoint.pk).exists()


# Refusals.


@pytest.mark.parametrize("name", ["endpoint-edit", "endpoint-delete", "endpoint-test", "endpoint-fetch-models"])
def test_viewers_are_refused_every_post(client: Client, carol: User, team: Team, name: str) -> None:
    endpoint = make_endpoint(team, name="Keep")
    response = signed_in(client, carol, team).post(reverse(name, args=[endpoint.pk]), form_data(name="Changed"))
    assert response.status_code == 403
    endpoint.refresh_from_db()
    assert endpoint.name == "Keep"


def test_viewers_cannot_add_or_open_the_forms(client: Client, carol: User, team: Team) -> None:
    client = signed_in(client, carol, team)
    assert client.post(reverse("endpoint-create"), form_data(kind="openai", name="X")).status_code == 403
    assert client.get(reverse("endpoint-create")).status_code == 403
    endpoint = make_endpoint(team)
    assert client.get(reverse("endpoint-edit", args=[endpoint.pk])).status_code == 403
    assert Endpoint.objects.filter(team=team).count() == 1


@pytest.mark.parametrize("name", ["endpoint-edit", "endpoint-delete", "endpoint-test", "endpoint-fetch-models"])
def test_another_teams_endpoint_is_not_found(client: Client, alice: User, bob: User, team: Team, name: str) -> None:
    endpoint = make_endpoint(access.ensure_personal_team(bob), name="Bob's")
    response = signed_in(client, alice, team).post(reverse(name, args=[endpoint.pk]), form_data())
    assert response.status_code == 404
    assert client.get(reverse("endpoint-edit", args=[endpoint.pk])).status_code == 404
    assert Endpoint.objects.filter(pk=endpoint.pk, name="Bob's").exists()


@pytest.mark.parametrize("name", ["endpoint-edit", "endpoint-delete", "endpoint-fetch-models"])
def test_simulated_endpoints_are_not_editable(
    client: Client, alice: User, team: Team, simulated: list[Endpoint], name: str
) -> None:
    endpoint = simulated[0]
    response = signed_in(client, alice, team).post(reverse(name, args=[endpoint.pk]), form_data(name="Hijacked"))
    assert response.status_code == 403
    endpoint.refresh_from_db()
    assert endpoint.name == "Simulated OpenAI"
    html = client.get(reverse("providers")).content.decode()
    assert reverse("endpoint-edit", args=[endpoint.pk]) not in html


def test_anonymous_users_are_sent_to_sign_in(client: Client) -> None:
    response = client.get(reverse("providers"))
    assert response.status_code == 302 and reverse("login") in response["Location"]
