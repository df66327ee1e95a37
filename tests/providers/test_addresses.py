"""Addresses the HTTP client may dial: link-local and metadata addresses are refused on the address actually dialled.

DNS is the network edge here: the running loop's ``getaddrinfo`` is replaced so a made-up name resolves to whatever a
test needs (a metadata address, a mix), while the connections themselves are real sockets to 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest

from providers.client import Endpoint, round_trip
from providers.client.addresses import (
    AddressPolicy,
    AddressRefused,
    forbidden_host_kind,
    forbidden_kind,
    is_noncanonical_ip,
)
from providers.client.netbackend import AsyncioBackend, AsyncioTransport, _literal_address
from providers.client.sdk import CONNECTION_FAILED
from providers.types import ChatRequest

REQUEST: ChatRequest = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}


@pytest.mark.parametrize("host", ["0x7f000001", "2130706433", "127.1", "0177.0.0.1", "0x7f.0.0.1", "127.0.0.1."])
def test_numeric_hosts_not_in_dotted_decimal_are_noncanonical(host: str) -> None:
    assert is_noncanonical_ip(host)


@pytest.mark.parametrize("host", ["127.0.0.1", "10.0.0.5", "api.openai.com", "::1", "1password.example", "v1.host"])
def test_usual_hosts_are_canonical(host: str) -> None:
    assert not is_noncanonical_ip(host)


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("169.254.169.254", "a cloud metadata address"),
        ("::ffff:169.254.169.254", "a cloud metadata address"),
        ("fd00:ec2::254", "a cloud metadata address"),
        ("100.100.100.200", "a cloud metadata address"),
        ("169.254.10.1", "a link-local address"),
        ("fe80::1", "a link-local address"),
        ("0.0.0.0", "the unspecified address"),
        ("127.0.0.1", None),
        ("10.1.2.3", None),
        ("8.8.8.8", None),
    ],
)
def test_forbidden_kinds(address: str, kind: str | None) -> None:
    assert forbidden_kind(ipaddress.ip_address(address)) == kind


def test_metadata_names_are_forbidden_hosts() -> None:
    assert forbidden_host_kind("metadata.google.internal") == "a cloud metadata host"
    assert forbidden_host_kind("METADATA.google.internal.") == "a cloud metadata host"
    assert forbidden_host_kind("[fe80::1]") == "a link-local address"
    assert forbidden_host_kind("localhost") is None


def test_a_host_listed_explicitly_may_be_anything() -> None:
    assert AddressPolicy().refusal("metadata.test", "169.254.169.254") is not None
    assert AddressPolicy(frozenset({"metadata.test"})).refusal("metadata.test", "169.254.169.254") is None
    assert AddressPolicy().refusal("local.test", "127.0.0.1") is None


# --- The backend dials only what passed ------------------------------------------------------------------------


@pytest.fixture
async def resolve(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Names under .test resolve to the addresses a test puts here; every other name resolves as usual."""
    answers: dict[str, list[str]] = {}
    loop = asyncio.get_running_loop()
    real = loop.getaddrinfo

    async def getaddrinfo(host: Any, port: Any, **kwargs: Any) -> list[Any]:
        if isinstance(host, str) and host in answers:
            return [_info(address, int(port)) for address in answers[host]]
        return await real(host, port, **kwargs)

    monkeypatch.setattr(loop, "getaddrinfo", getaddrinfo)
    return answers


def _info(address: str, port: int) -> tuple[Any, ...]:
    if ":" in address:
        return (socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port, 0, 0))
    return (socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))


@asynccontextmanager
async def hello_server() -> AsyncIterator[tuple[int, list[str]]]:
    peers: list[str] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peers.append(writer.get_extra_info("peername")[0])
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1], peers
    finally:
        server.close()
        await server.wait_closed()


def _chain(exc: BaseException) -> list[BaseException]:
    chain = [exc]
    while (inner := chain[-1].__cause__ or chain[-1].__context__) is not None and len(chain) < 10:
        chain.append(inner)
    return chain


def guarded_client() -> httpx2.AsyncClient:
    transport = AsyncioTransport(network_backend=AsyncioBackend(AddressPolicy()))
    return httpx2.AsyncClient(transport=transport, timeout=2)


async def test_a_name_that_resolves_to_the_metadata_address_is_never_dialled(resolve: dict[str, list[str]]) -> None:
    resolve["innocent.test"] = ["169.254.169.254"]
    async with guarded_client() as client:
        with pytest.raises(httpx2.ConnectError) as caught:
            await client.get("http://innocent.test/latest/meta-data/")
    refused = _chain(caught.value)[-1]  # httpx2's error wraps httpcore2's, which wraps ours
    assert isinstance(refused, AddressRefused)
    assert "169.254.169.254 is a cloud metadata address" in str(refused)


async def test_an_ipv4_mapped_metadata_address_is_refused_too(resolve: dict[str, list[str]]) -> None:
    resolve["mapped.test"] = ["::ffff:169.254.169.254"]
    async with guarded_client() as client:
        with pytest.raises(httpx2.ConnectError):
            await client.get("http://mapped.test/")


async def test_only_the_addresses_that_passed_are_dialled(resolve: dict[str, list[str]]) -> None:
    # The forbidden address comes first: a backend that dialled the name again, or the first answer, would go there.
    resolve["mixed.test"] = ["169.254.169.254", "127.0.0.1"]
    async with hello_server() as (port, peers), guarded_client() as client:
        response = await client.get(f"http://mixed.test:{port}/")
        assert response.text == "hello"
        assert response.extensions["network_stream"].get_extra_info("server_addr") == ("127.0.0.1", port)
    assert peers == ["127.0.0.1"]


@pytest.fixture
async def lookups(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The hosts the running loop was asked to resolve (each a trip to a worker thread)."""
    asked: list[str] = []
    loop = asyncio.get_running_loop()
    real = loop.getaddrinfo

    async def getaddrinfo(host: Any, port: Any, **kwargs: Any) -> list[Any]:
        asked.append(host)
        return await real(host, port, **kwargs)

    monkeypatch.setattr(loop, "getaddrinfo", getaddrinfo)
    return asked


async def test_an_address_written_as_digits_is_dialled_without_a_lookup(lookups: list[str]) -> None:
    async with hello_server() as (port, peers), guarded_client() as client:
        assert (await client.get(f"http://127.0.0.1:{port}/")).text == "hello"
        with pytest.raises(httpx2.ConnectError) as caught:
            await client.get("http://169.254.169.254/latest/meta-data/")  # still checked against the policy
    assert "169.254.169.254 is a cloud metadata address" in str(_chain(caught.value)[-1])
    assert peers == ["127.0.0.1"] and lookups == []


async def test_a_name_is_still_looked_up(lookups: list[str]) -> None:
    async with hello_server() as (port, _), guarded_client() as client:
        assert (await client.get(f"http://localhost:{port}/")).text == "hello"
    assert lookups == ["localhost"]


def test_only_a_plain_address_skips_the_lookup() -> None:
    assert _literal_address("10.0.0.7", 80) == [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.7", 80))]
    assert _literal_address("::1", 443) == [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("::1", 443, 0, 0))]
    # What getaddrinfo reads differently (a short or octal form, a scope) or a name: left to it, then checked.
    for host in ("127.1", "0251.0376.0251.0376", "fe80::1%eth0", "localhost", "metadata.test"):
        assert _literal_address(host, 80) == [], host


async def test_without_a_policy_the_backend_dials_as_before(resolve: dict[str, list[str]]) -> None:
    async with hello_server() as (port, _), httpx2.AsyncClient(transport=AsyncioTransport(), timeout=2) as client:
        assert (await client.get(f"http://127.0.0.1:{port}/")).text == "hello"


async def test_a_run_to_a_refused_address_says_why_and_sends_nothing(resolve: dict[str, list[str]]) -> None:
    resolve["metadata.test"] = ["169.254.169.254"]
    endpoint = Endpoint("openai-chat", "http://metadata.test/v1", "sk-test", timeout=2, address_policy=AddressPolicy())
    trip = await round_trip(endpoint, REQUEST)
    error = trip.result.error
    assert error is not None and error.type == "refused"
    assert "Refused to connect to metadata.test: 169.254.169.254 is a cloud metadata address" in error.message
    assert trip.wire_events == [] and trip.status is None


# --- One wording for every connection failure -------------------------------------------------------------------


@asynccontextmanager
async def tcp_server(greeting: bytes) -> AsyncIterator[int]:
    """A TCP service that is not HTTP: it says ``greeting`` (or nothing) and hangs up."""

    async def speak(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(greeting)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(speak, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _error_of(port: int) -> tuple[str, str]:
    endpoint = Endpoint("openai-chat", f"http://127.0.0.1:{port}/v1", "sk-test", timeout=2)
    trip = await round_trip(endpoint, REQUEST)
    assert trip.result.error is not None
    return trip.result.error.type, trip.result.error.message


async def test_closed_and_open_ports_fail_with_the_same_words() -> None:
    outcomes = {"closed": await _error_of(_closed_port())}
    async with tcp_server(b"SSH-2.0-OpenSSH_9.6\r\n") as port:
        outcomes["ssh"] = await _error_of(port)
    async with tcp_server(b"") as port:
        outcomes["hangs up"] = await _error_of(port)
    assert set(outcomes.values()) == {("connection", CONNECTION_FAILED)}
