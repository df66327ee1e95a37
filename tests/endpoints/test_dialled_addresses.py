"""A saved endpoint's requests go through the address check: a name that resolves to a metadata address is refused."""

from __future__ import annotations

import asyncio
import socket
from typing import TYPE_CHECKING, Any

import pytest
from channels.db import database_sync_to_async

from playground.endpoints.checks import check_connection
from tests.endpoints.support import make_endpoint

if TYPE_CHECKING:
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team

# The endpoint is made on asgiref's worker thread, whose connection the fixture closes: a thread of its own
# (asyncio.to_thread) left one open, and PostgreSQL could not drop the test database at the end of the run.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]
make_endpoint_async = database_sync_to_async(make_endpoint)


@pytest.fixture
async def metadata_name(monkeypatch: pytest.MonkeyPatch) -> str:
    """``innocent.test`` resolves to the cloud metadata address (DNS is the network edge)."""
    loop = asyncio.get_running_loop()
    real = loop.getaddrinfo

    async def getaddrinfo(host: Any, port: Any, **kwargs: Any) -> list[Any]:
        if host == "innocent.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("169.254.169.254", int(port)))]
        return await real(host, port, **kwargs)

    monkeypatch.setattr(loop, "getaddrinfo", getaddrinfo)
    return "innocent.test"


async def test_test_connection_refuses_a_name_that_resolves_to_metadata(
    team: Team, metadata_name: str, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_ALLOWED_BASE_URLS = ["*"]  # the local default: any URL, yet never the metadata service
    endpoint = await make_endpoint_async(team, base_url=f"http://{metadata_name}/v1", api_key="sk-1234567")
    result = await check_connection(endpoint)
    assert not result.ok and result.error_type == "refused"
    assert "169.254.169.254 is a cloud metadata address" in result.message


async def test_listing_the_name_explicitly_lets_it_through_to_the_network(
    team: Team, metadata_name: str, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_ALLOWED_BASE_URLS = [f"http://{metadata_name}/"]
    endpoint = await make_endpoint_async(team, base_url=f"http://{metadata_name}/v1", api_key="sk-1234567")
    endpoint_client = endpoint.client_endpoint(timeout=0.5)
    assert endpoint_client.address_policy is not None
    assert endpoint_client.address_policy.refusal(metadata_name, "169.254.169.254") is None
