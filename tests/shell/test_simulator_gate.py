"""The simulator mounted at /sim: open to anyone locally, only to the app's own runs in production."""

from __future__ import annotations

from typing import Any

import pytest
from channels.testing import HttpCommunicator

from playground.asgi import application
from tests.project.test_settings import load, production

__all__ = ["load"]  # the fixture that evaluates settings afresh

KEY = "sim-0123456789abcdef0123456789abcdef01234567"
pytestmark = pytest.mark.django_db


async def models_status(headers: list[tuple[bytes, bytes]], path: str = "/sim/openai/v1/models") -> int:
    request = HttpCommunicator(application, "GET", path, headers=[(b"host", b"127.0.0.1"), *headers])
    response = await request.get_response()
    return int(response["status"])


@pytest.fixture
def closed_simulator(settings: Any) -> None:
    settings.CROSSWIRE_SIMULATOR_OPEN = False
    settings.CROSSWIRE_SIMULATOR_KEY = KEY


@pytest.mark.usefixtures("closed_simulator")
@pytest.mark.parametrize(
    "headers",
    [[], [(b"authorization", b"Bearer simulator")], [(b"x-api-key", b"sim-wrong")], [(b"authorization", KEY.encode())]],
)
async def test_a_closed_simulator_refuses_strangers(headers: list[tuple[bytes, bytes]]) -> None:
    assert await models_status(headers) == 401


@pytest.mark.usefixtures("closed_simulator")
async def test_a_closed_simulator_serves_the_apps_own_key() -> None:
    assert await models_status([(b"authorization", b"Bearer " + KEY.encode())]) == 200
    anthropic = [(b"x-api-key", KEY.encode()), (b"anthropic-version", b"2023-06-01")]
    assert await models_status(anthropic, "/sim/anthropic/v1/models") == 200


async def test_locally_the_simulator_is_open(settings: Any) -> None:
    settings.CROSSWIRE_SIMULATOR_OPEN = True
    assert await models_status([(b"authorization", b"Bearer anything")]) == 200


def test_the_simulated_endpoints_present_the_apps_key(settings: Any) -> None:
    from playground.demo.catalog import load_simulated_endpoints
    from playground.endpoints.models import Endpoint

    settings.CROSSWIRE_SIMULATOR_KEY = KEY
    load_simulated_endpoints()
    assert {e.client_endpoint().api_key for e in Endpoint.objects.filter(kind=Endpoint.Kind.SIMULATED)} == {KEY}


def test_production_closes_the_simulator_with_a_key_derived_from_the_secret(load: Any) -> None:
    first = load(**production(SECRET_KEY="s" * 50))
    second = load(**production(SECRET_KEY="t" * 50))
    assert first["CROSSWIRE_SIMULATOR_OPEN"] is False
    assert first["CROSSWIRE_SIMULATOR_KEY"].startswith("sim-") and len(first["CROSSWIRE_SIMULATOR_KEY"]) == 44
    assert first["CROSSWIRE_SIMULATOR_KEY"] != second["CROSSWIRE_SIMULATOR_KEY"]
    assert load()["CROSSWIRE_SIMULATOR_OPEN"] is True
