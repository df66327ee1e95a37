"""The "OpenAI (Responses API)" endpoint kind: offered on the form, saved with its format and default URL."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.urls import reverse

from playground.endpoints.forms import KINDS
from playground.endpoints.models import Endpoint
from tests.endpoints.support import form_data, signed_in

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db


def test_the_kind_is_offered_with_its_format_and_default_url() -> None:
    spec = KINDS[Endpoint.Kind.OPENAI_RESPONSES]
    assert (spec.kind, spec.label, spec.format) == ("openai-responses", "OpenAI (Responses API)", "openai-responses")
    assert spec.default_url == "https://api.openai.com/v1"
    assert Endpoint.Kind.OPENAI_RESPONSES.label == "OpenAI (Responses API)"


def test_the_form_page_links_the_kind_and_prefills_the_url(client: Client, bob: User, team: Team) -> None:
    page = signed_in(client, bob, team).get(reverse("endpoint-create"), {"kind": "openai-responses"})
    html = page.content.decode()
    assert page.status_code == 200 and "OpenAI (Responses API)" in html
    assert 'name="kind" value="openai-responses"' in html and 'value="https://api.openai.com/v1"' in html


def test_an_editor_adds_a_responses_endpoint(client: Client, bob: User, team: Team) -> None:
    data = form_data(kind="openai-responses", name="GPT-5 Responses", base_url="", model_names="gpt-5, gpt-5-mini")
    response = signed_in(client, bob, team).post(reverse("endpoint-create"), {**data, "api_key": "sk-abc-123456789"})
    assert response.status_code == 302 and response["Location"] == reverse("providers")
    endpoint = Endpoint.objects.get(team=team, name="GPT-5 Responses")
    assert (endpoint.kind, endpoint.format, endpoint.base_url) == (
        "openai-responses",
        "openai-responses",
        "https://api.openai.com/v1",
    )
    assert endpoint.default_model == "gpt-5" and endpoint.api_key() == "sk-abc-123456789"
    client_endpoint = endpoint.client_endpoint()
    assert client_endpoint.format == "openai-responses" and client_endpoint.base_url == "https://api.openai.com/v1"
    listing = client.get(reverse("providers")).content.decode()
    assert "GPT-5 Responses" in listing and "OpenAI (Responses API)" in listing
