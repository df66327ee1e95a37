"""providers.client.netbackend over real sockets: the SDK path rides on it, and it fails the way httpx2's default does.

Servers are small asyncio servers on 127.0.0.1 (port 0); the failure cases run the same request through our
transport and through httpx2's stock one and require the same exception.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import socket
import ssl
import struct
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpcore2
import httpx2
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from providers.client import Endpoint, RoundTripRun
from providers.client.netbackend import AsyncioBackend, AsyncioStream, AsyncioTransport
from providers.client.sdk import http_client
from providers.types import ChatRequest

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@asynccontextmanager
async def serve(handler: Handler, tls: ssl.SSLContext | None = None) -> AsyncIterator[int]:
    """An asyncio server on a free 127.0.0.1 port; its connections are cut when the block ends."""
    writers: list[asyncio.StreamWriter] = []

    async def tracked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        try:
            await handler(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass  # the client hung up or refused our certificate: part of several tests
        finally:
            writer.transport.abort()

    server = await asyncio.start_server(tracked, "127.0.0.1", 0, ssl=tls)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for writer in writers:
            writer.transport.abort()
        await asyncio.wait_for(server.wait_closed(), 1)


async def read_request(reader: asyncio.StreamReader) -> bytes:
    """One HTTP/1.1 request (head and a content-length body); b"" when the client closed instead."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return b""
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    await reader.readexactly(length)
    return head


def ok(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)


async def keep_alive(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answers every request on the connection, as a keep-alive HTTP/1.1 server does."""
    while await read_request(reader):
        writer.write(ok(b"hello"))
        await writer.drain()


async def wait_for_hangup(reader: asyncio.StreamReader) -> None:
    await asyncio.wait_for(reader.read(), 2)


class CountingBackend(AsyncioBackend):
    """Our backend, keeping the streams it opened: proof of which connections carried the requests."""

    def __init__(self) -> None:
        self.streams: list[httpcore2.AsyncNetworkStream] = []

    async def connect_tcp(self, *args: Any, **kwargs: Any) -> httpcore2.AsyncNetworkStream:
        stream = await super().connect_tcp(*args, **kwargs)
        self.streams.append(stream)
        return stream


# --- The SDK path ---------------------------------------------------------------------------------------------


class ObservedRun(RoundTripRun):
    """The production round trip, noting which network stream the streamed response came through."""

    network_stream: object = None

    async def _read_stream(self, response: Any) -> None:
        self.network_stream = response.http_response.extensions["network_stream"]
        await super()._read_stream(response)


WEATHER_REQUEST: ChatRequest = {
    "model": "sim-1",
    "stream": True,
    "max_tokens": 512,
    "messages": [{"role": "user", "content": '/call get_weather {"city": "Paris"}'}],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Current weather for a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            },
        }
    ],
}


@pytest.mark.parametrize("fmt", ["openai-chat", "anthropic"])
async def test_sdk_stream_arrives_through_our_backend(simulator_url: str, fmt: str, no_env_proxies: None) -> None:
    base = f"{simulator_url}/openai/v1" if fmt == "openai-chat" else f"{simulator_url}/anthropic"
    run = ObservedRun(Endpoint(fmt, base, "sk-test", timeout=5), WEATHER_REQUEST)
    rt = await run.run()
    assert rt.result.complete and rt.status == 200, rt.result.error
    [call] = rt.result.message["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == {"city": "Paris"}
    assert len(rt.wire_events) >= 4, "a streamed answer, several events"
    assert isinstance(run.network_stream, AsyncioStream), f"carried by {type(run.network_stream).__name__}"


async def test_http_client_uses_our_transport_and_keeps_environment_proxies(
    monkeypatch: pytest.MonkeyPatch, no_env_proxies: None
) -> None:
    endpoint = Endpoint("openai-chat", "http://upstream.invalid/v1", "sk-test", timeout=2)
    async with serve(keep_alive) as port, http_client(endpoint) as http:
        response = await http.get(f"http://127.0.0.1:{port}/")
    assert response.text == "hello"
    assert isinstance(response.extensions["network_stream"], AsyncioStream)

    seen: list[bytes] = []

    async def proxy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append((await read_request(reader)).split(b"\r\n")[0])
        writer.write(ok(b"via the proxy"))
        await writer.drain()

    async with serve(proxy) as port:
        monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{port}")
        async with http_client(endpoint) as http:
            response = await http.get("http://upstream.invalid/hello")
    assert response.text == "via the proxy"
    assert seen == [b"GET http://upstream.invalid/hello HTTP/1.1"]


async def test_explicit_transport_still_wins(no_env_proxies: None) -> None:
    backend = CountingBackend()
    endpoint = Endpoint("openai-chat", "http://x/v1", "sk-test", transport=AsyncioTransport(network_backend=backend))
    async with serve(keep_alive) as port, http_client(endpoint) as http:
        assert (await http.get(f"http://127.0.0.1:{port}/")).text == "hello"
    assert len(backend.streams) == 1


# --- HTTPS ----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A self-signed certificate for localhost and 127.0.0.1: (cert.pem, key.pem)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    folder = tmp_path_factory.mktemp("tls")
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    (folder / "key.pem").write_bytes(key_pem)
    yield folder / "cert.pem", folder / "key.pem"


def server_tls(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*certificate)
    return context


async def test_https_request_through_our_transport(certificate: tuple[Path, Path]) -> None:
    backend = CountingBackend()
    trusting = ssl.create_default_context(cafile=str(certificate[0]))
    transport = AsyncioTransport(verify=trusting, network_backend=backend)
    async with serve(keep_alive, tls=server_tls(certificate)) as port, httpx2.AsyncClient(transport=transport) as c:
        response = await c.get(f"https://127.0.0.1:{port}/", timeout=2)
        again = await c.get(f"https://127.0.0.1:{port}/", timeout=2)
        [stream] = backend.streams  # kept alive: what TLS 1.3 sends after the handshake does not read as a close
        assert response.text == again.text == "hello"
        assert response.extensions["network_stream"] is stream
        assert stream.get_extra_info("ssl_object").version().startswith("TLS")
        assert stream.get_extra_info("server_addr") == ("127.0.0.1", port)
        assert stream.get_extra_info("client_addr")[0] == "127.0.0.1"


# --- Failures map as httpx2's default transport maps them ------------------------------------------------------


async def headers_then_silence(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await read_request(reader)
    writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n")
    await wait_for_hangup(reader)


async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await wait_for_hangup(reader)  # accepts TCP, never answers the TLS handshake


def cut_body(reset: bool) -> Handler:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n0123456789")
        await writer.drain()
        await asyncio.sleep(0.05)  # the client is now waiting for the rest
        if reset:  # linger 0: close() sends RST instead of FIN
            writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()

    return handler


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


CASES = {
    "read timeout": (headers_then_silence, "http", httpx2.ReadTimeout),
    "TLS handshake timeout": (silent, "https", httpx2.ConnectTimeout),
    "untrusted certificate": ("tls", "https", httpx2.ConnectError),
    "closed port": (None, "http", httpx2.ConnectError),
    "body cut by FIN": (cut_body(reset=False), "http", httpx2.RemoteProtocolError),
    "body cut by RST": (cut_body(reset=True), "http", httpx2.ReadError),
}


async def failure(transport: httpx2.AsyncBaseTransport, url: str) -> type[BaseException]:
    timeout = httpx2.Timeout(2.0, connect=0.3, read=0.3)
    async with httpx2.AsyncClient(transport=transport, timeout=timeout) as client:
        with pytest.raises(httpx2.TransportError) as caught:
            await client.get(url)
    return type(caught.value)


@pytest.mark.parametrize("case", list(CASES))
async def test_failures_match_httpx2s_default_transport(case: str, certificate: tuple[Path, Path]) -> None:
    handler, scheme, expected = CASES[case]
    # The system's CAs: our self-signed certificate is untrusted, and the handshake tests never get that far.
    verify = httpx2.create_ssl_context()
    transports = {"ours": AsyncioTransport(verify=verify), "httpx2's": httpx2.AsyncHTTPTransport(verify=verify)}
    if handler is None:
        port = closed_port()
        outcomes = {name: await failure(t, f"{scheme}://127.0.0.1:{port}/") for name, t in transports.items()}
    else:
        tls = server_tls(certificate) if handler == "tls" else None
        async with serve(keep_alive if handler == "tls" else handler, tls=tls) as port:
            outcomes = {name: await failure(t, f"{scheme}://127.0.0.1:{port}/") for name, t in transports.items()}
    assert outcomes == {"ours": expected, "httpx2's": expected}


# --- Connection reuse -------------------------------------------------------------------------------------------


async def test_keep_alive_reuses_one_connection() -> None:
    connections = 0

    async def counting(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await keep_alive(reader, writer)

    backend = CountingBackend()
    async with serve(counting) as port, httpx2.AsyncClient(transport=AsyncioTransport(network_backend=backend)) as c:
        first = await c.get(f"http://127.0.0.1:{port}/", timeout=2)
        second = await c.get(f"http://127.0.0.1:{port}/", timeout=2)
    assert first.text == second.text == "hello"
    assert connections == 1 and len(backend.streams) == 1
    assert first.extensions["network_stream"] is second.extensions["network_stream"] is backend.streams[0]


@pytest.mark.parametrize("kind", ["ours", "httpx2's"])
@pytest.mark.parametrize("after", ["closes", "sends stray bytes"])
async def test_idle_connection_the_server_touched_is_not_reused(after: str, kind: str) -> None:
    # asyncio reads ahead into the StreamReader, so "is_readable" must look there, not only at the socket as anyio's
    # backend can. httpx2's own transport shows the expected behaviour.
    async def once_then_touch(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(ok(b"first"))
        await writer.drain()
        await asyncio.sleep(0.02)  # apart from the response: h11 would keep bytes that arrive with it
        if after == "closes":
            writer.write_eof()
        else:
            writer.write(b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\n\r\n")
        await writer.drain()
        await wait_for_hangup(reader)

    accepted = 0

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal accepted
        accepted += 1
        await (once_then_touch if accepted == 1 else keep_alive)(reader, writer)

    transport = AsyncioTransport() if kind == "ours" else httpx2.AsyncHTTPTransport()
    async with serve(handler) as port, httpx2.AsyncClient(transport=transport) as client:
        assert (await client.get(f"http://127.0.0.1:{port}/", timeout=2)).text == "first"
        await asyncio.sleep(0.1)  # what the server sent has arrived
        second = await client.get(f"http://127.0.0.1:{port}/", timeout=2)
    assert (second.status_code, second.text) == (200, "hello")
    assert accepted == 2


# --- The backend on its own ------------------------------------------------------------------------------------


async def test_read_timer_follows_each_reads_own_deadline() -> None:
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while command := await reader.read(1):  # each byte comes back: "s" after 50 ms, "l" after 250 ms
            await asyncio.sleep({b"s": 0.05, b"l": 0.25}.get(command, 0))
            writer.write(command)

    async def ask(stream: httpcore2.AsyncNetworkStream, command: bytes, timeout: float | None) -> bytes:
        await stream.write(command, timeout=1)
        return await stream.read(10, timeout=timeout)

    loop = asyncio.get_running_loop()
    callback_errors: list[dict[str, Any]] = []
    previous_handler = loop.get_exception_handler()
    loop.set_exception_handler(lambda _, context: callback_errors.append(context))  # the timer runs as a callback
    async with serve(echo) as port:
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=1)
        try:
            # 0.3 s of reads, each within its 0.15 s: the first read's timer fires meanwhile and must re-arm.
            assert [await ask(stream, b"s", 0.15) for _ in range(6)] == [b"s"] * 6
            # A read without a timeout waits as long as it takes, though the timer above fires during it.
            assert await ask(stream, b"l", None) == b"l"
            # The timer firing while no read waits (an idle keep-alive connection) must not spoil the next read.
            assert await ask(stream, b"s", 0.1) == b"s"
            await asyncio.sleep(0.15)
            assert await ask(stream, b"f", 1) == b"f"
            started = time.monotonic()
            with pytest.raises(httpcore2.ReadTimeout):
                await stream.read(10, timeout=0.15)
            assert 0.14 <= time.monotonic() - started < 0.6
            assert stream.get_extra_info("is_readable"), "a timed-out connection must not be reused"
        finally:
            await stream.aclose()
            loop.set_exception_handler(previous_handler)
    assert callback_errors == []


async def test_data_that_arrives_with_the_timer_after_a_stall_is_read_and_the_next_read_is_not_spoiled() -> None:
    # A stalled event loop (a long collection, a slow call) can wake with the data and the expired read timer due in
    # the same turn. The read that got its data returns it; the next read, whose deadline is ahead, must not fail.
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def server() -> None:  # a thread, so it sends while the loop is stalled
        connection, _ = listener.accept()
        with connection:
            connection.recv(10)
            time.sleep(0.05)
            connection.sendall(b"a")  # before the 0.1 s deadline, but the loop is stalled until 0.2 s
            time.sleep(0.3)
            connection.sendall(b"b")
            time.sleep(0.5)

    thread = threading.Thread(target=server, daemon=True)
    thread.start()
    stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=1)
    try:
        await stream.write(b"go", timeout=1)
        asyncio.get_running_loop().call_later(0.01, time.sleep, 0.2)  # the stall
        assert await stream.read(10, timeout=0.1) == b"a"
        assert await stream.read(10, timeout=5) == b"b"
    finally:
        await stream.aclose()
        listener.close()
        thread.join(2)


async def test_socket_options_and_closed_stream_errors() -> None:
    async with serve(keep_alive) as port:
        options = [(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=1, socket_options=options)
        sock = stream.get_extra_info("socket")
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        assert stream.get_extra_info("is_readable") is False
        await stream.aclose()
        with pytest.raises(httpcore2.ReadError):
            await stream.read(10, timeout=1)
        with pytest.raises(httpcore2.WriteError):
            await stream.write(b"GET / HTTP/1.1\r\n\r\n", timeout=1)


async def test_unix_socket(tmp_path: Path) -> None:
    path = str(tmp_path / "s")
    server = await asyncio.start_unix_server(keep_alive, path)
    try:
        async with httpx2.AsyncClient(transport=AsyncioTransport(uds=path)) as client:
            response = await client.get("http://localhost/", timeout=2)
        assert response.text == "hello"
        assert isinstance(response.extensions["network_stream"], AsyncioStream)
    finally:
        server.close()
        await server.wait_closed()
