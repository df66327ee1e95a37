"""API keys: encrypted at rest, and never in a page, a fragment, a redirect, a flash message or a log line."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from cryptography.fernet import Fernet
from django.db import connection
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse

from playground.endpoints import crypto
from playground.endpoints.checks import scrub
from playground.endpoints.models import Endpoint
from tests.endpoints.support import (
    HTMX,
    SECRET_KEY,
    form_data,
    make_endpoint,
    signed_in,
    unreachable_url,
)
from tests.simulator_process import standalone_simulator

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def sim_url() -> Iterator[str]:
    with standalone_simulator() as url:
        yield url


def stored_column(endpoint: Endpoint) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT api_key_encrypted FROM playground_endpoint WHERE id = %s", [endpoint.pk])
        return str(cursor.fetchone()[0])


def assert_no_key(response: HttpResponse) -> None:
    body = response.content.decode()
    assert SECRET_KEY not in body
    assert SECRET_KEY[:-4] not in body, "more than the hint's last four characters was shown"
    assert all(SECRET_KEY not in str(value) for value in response.headers.values())


def test_the_key_is_stored_encrypted(client: Client, alice: User, team: Team, settings: SettingsWrapper) -> None:
    signed_in(client, alice, team).post(reverse("endpoint-create"), form_data(api_key=SECRET_KEY))
    endpoint = Endpoint.objects.get(team=team)
    column = stored_column(endpoint)
    assert column and SECRET_KEY not in column and SECRET_KEY[-8:] not in column
    assert Fernet(settings.CROSSWIRE_ENCRYPTION_KEY).decrypt(column.encode()).decode() == SECRET_KEY
    assert crypto.decrypt(column) == SECRET_KEY == endpoint.api_key()
    assert endpoint.api_key_hint == "…" + SECRET_KEY[-4:]


def test_a_different_encryption_key_cannot_read_it(alice: User, team: Team, settings: SettingsWrapper) -> None:
    endpoint = make_endpoint(team, api_key=SECRET_KEY)
    settings.CROSSWIRE_ENCRYPTION_KEY = Fernet.generate_key().decode()
    assert Endpoint.objects.get(pk=endpoint.pk).api_key() == ""


def test_no_view_ever_returns_the_key(
    client: Client, alice: User, team: Team, sim_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    client = signed_in(client, alice, team)
    created = client.post(reverse("endpoint-create"), form_data(api_key=SECRET_KEY), follow=True)
    assert_no_key(created)
    assert "…" + SECRET_KEY[-4:] in created.content.decode()
    endpoint = Endpoint.objects.get(team=team)
    edit_url = reverse("endpoint-edit", args=[endpoint.pk])

    refused = [
        # Errors re-render the form with what was typed; the key field must come back empty.
        client.post(reverse("endpoint-create"), form_data(name="Bad", base_url="gopher://x", api_key=SECRET_KEY)),
        client.post(reverse("endpoint-create"), form_data(name="Ollama", api_key=SECRET_KEY)),
        client.post(edit_url, form_data(base_url="nope", api_key=SECRET_KEY)),
        client.post(edit_url, form_data(api_key=SECRET_KEY, remove_key="on")),
        client.post(edit_url, form_data(api_key=SECRET_KEY + " with spaces")),
    ]
    for response in refused:
        assert response.status_code == 200 and 'name="api_key" value=""' in response.content.decode()
        assert_no_key(response)
    # Refused for something else than the key, the emptied field says why: the key has to be pasted again.
    again = 'data-testid="api-key-again"'
    assert [again in r.content.decode() for r in refused] == [True, True, True, True, False]  # the last: its own error

    assert_no_key(client.get(reverse("providers")))
    assert_no_key(client.get(edit_url))
    assert_no_key(client.post(edit_url, form_data(api_key=SECRET_KEY), follow=True))

    test_url = reverse("endpoint-test", args=[endpoint.pk])
    fetch_url = reverse("endpoint-fetch-models", args=[endpoint.pk])
    targets = [(sim_url + "/openai/v1", "sim-1"), (sim_url + "/openai/v1", "sim-401"), (unreachable_url(), "m")]
    for base_url, model in targets:
        Endpoint.objects.filter(pk=endpoint.pk).update(base_url=base_url, default_model=model)
        for extra in (HTMX, {}):
            assert_no_key(client.post(test_url, follow=True, **extra))
            assert_no_key(client.post(fetch_url, follow=True, **extra))
        assert_no_key(client.post(fetch_url, HTTP_HX_TARGET="model-fields", **HTMX))

    assert_no_key(client.post(reverse("endpoint-delete", args=[endpoint.pk]), follow=True))
    assert SECRET_KEY not in caplog.text
    assert all(SECRET_KEY not in str(record.args) for record in caplog.records)


def test_the_key_reaches_the_provider(alice: User, team: Team, sim_url: str) -> None:
    # The other side of "never shown": the decrypted key is what the SDK sends.
    endpoint = make_endpoint(team, base_url=sim_url + "/openai/v1", api_key=SECRET_KEY)
    assert endpoint.client_endpoint().api_key == SECRET_KEY
    assert SECRET_KEY not in repr(endpoint.client_endpoint())


def test_error_text_that_quotes_the_key_is_scrubbed() -> None:
    assert scrub(f"Incorrect API key provided: {SECRET_KEY}.", SECRET_KEY) == "Incorrect API key provided: [redacted]."
    assert scrub("nothing to hide", "") == "nothing to hide"


@pytest.mark.parametrize("view_name", ["create_endpoint", "edit_endpoint"])
def test_post_views_hide_the_key_from_error_reports(view_name: str) -> None:
    from django.contrib.auth.models import AnonymousUser
    from django.test import RequestFactory
    from django.views.debug import SafeExceptionReporterFilter

    from playground.endpoints import views as endpoint_views

    request = RequestFactory().post("/providers/new/", {"name": "x", "api_key": SECRET_KEY})
    request.user = AnonymousUser()
    view = getattr(endpoint_views, view_name)
    view(request, pk=1) if view_name == "edit_endpoint" else view(request)
    cleansed = SafeExceptionReporterFilter().get_post_parameters(request)
    assert cleansed["api_key"] != SECRET_KEY and cleansed["name"] == "x"


def test_a_key_that_no_longer_decrypts_is_flagged(
    client: Client, alice: User, team: Team, settings: SettingsWrapper
) -> None:
    make_endpoint(team, api_key=SECRET_KEY)
    settings.CROSSWIRE_ENCRYPTION_KEY = Fernet.generate_key().decode()
    response = signed_in(client, alice, team).get(reverse("providers"))
    assert "unreadable: enter it again" in response.content.decode()
    assert_no_key(response)
