"""Model names: pasting a huge list costs linear time and is bounded; a server's list is kept within the same bound."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.urls import reverse

from playground.endpoints.checks import kept_model_names
from playground.endpoints.forms import MAX_MODEL_NAME_CHARS, parse_model_names
from playground.endpoints.models import Endpoint
from tests.endpoints.support import form_data, signed_in

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team


def test_parsing_keeps_the_first_of_each_name_in_order() -> None:
    assert parse_model_names("b, a\nb\r\n c ,a") == ["b", "a", "c"]


def test_too_many_names_are_refused_with_the_limit(
    client: Client, alice: User, team: Team, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_MAX_MODEL_NAMES = 50
    names = "\n".join(f"model-{i}" for i in range(51))
    response = signed_in(client, alice, team).post(reverse("endpoint-create"), form_data(model_names=names))
    assert response.status_code == 200
    assert "51 model names is more than the 50 an endpoint keeps" in response.content.decode()
    assert not Endpoint.objects.filter(team=team).exists()


def test_names_at_the_limit_are_saved(client: Client, alice: User, team: Team, settings: SettingsWrapper) -> None:
    settings.CROSSWIRE_MAX_MODEL_NAMES = 50
    # Duplicates do not count against the limit: 50 names, each pasted twice.
    names = "\n".join(f"model-{i % 50}" for i in range(100))
    signed_in(client, alice, team).post(reverse("endpoint-create"), form_data(model_names=names, default_model=""))
    endpoint = Endpoint.objects.get(team=team)
    assert endpoint.model_names == [f"model-{i}" for i in range(50)]


def test_an_overlong_name_is_refused(client: Client, alice: User, team: Team) -> None:
    data = form_data(model_names="ok, " + "x" * (MAX_MODEL_NAME_CHARS + 1))
    response = signed_in(client, alice, team).post(reverse("endpoint-create"), data)
    assert f"Model names are at most {MAX_MODEL_NAME_CHARS} characters" in response.content.decode()
    assert not Endpoint.objects.filter(team=team).exists()


def test_a_refused_form_offers_no_more_defaults_than_the_limit(
    client: Client, alice: User, team: Team, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_MAX_MODEL_NAMES = 10
    names = "\n".join(f"model-{i}" for i in range(5000))
    response = signed_in(client, alice, team).post(reverse("endpoint-create"), form_data(model_names=names))
    html = response.content.decode()
    assert 'value="model-9"' in html and 'value="model-10"' not in html


def test_a_servers_list_is_deduplicated_bounded_and_cleaned() -> None:
    listed = ["b", "a", "b", "", "y" * (MAX_MODEL_NAME_CHARS + 1), *[f"m{i}" for i in range(10)]]
    assert kept_model_names(listed, 5) == ["b", "a", "m0", "m1", "m2"]
