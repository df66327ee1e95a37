"""A WebSocket opens only from a page of this very site: scheme, host and port must all match."""

from __future__ import annotations

from typing import Any

import pytest
from channels.testing import WebsocketCommunicator

from playground.asgi import application
from playground.shell.origin import origin_allowed, parse_origin

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


def scope(origin: str | None, host: str = "127.0.0.1:8000", scheme: str = "ws", **extra: str) -> dict[str, Any]:
    headers = [(b"host", host.encode())] + ([(b"origin", origin.encode())] if origin is not None else [])
    headers += [(name.encode(), value.encode()) for name, value in extra.items()]
    return {"type": "websocket", "scheme": scheme, "headers": headers}


@pytest.mark.parametrize(
    "origin",
    [
        "http://127.0.0.1:9999",  # another port of the same host: cookies are not scoped by port
        "http://localhost:3000",
        "https://127.0.0.1",
        "http://127.0.0.1",  # port 80, not 8000
        "null",
        "",
        "file://",
        "http://127.0.0.1:8000/path",
    ],
)
def test_other_origins_of_the_same_host_are_refused(origin: str) -> None:
    assert not origin_allowed(scope(origin))


def test_the_exact_origin_is_accepted() -> None:
    assert origin_allowed(scope("http://127.0.0.1:8000"))
    assert origin_allowed(scope("http://LOCALHOST:8000", host="localhost:8000"))
    assert origin_allowed(scope("https://127.0.0.1", host="127.0.0.1", scheme="wss"))
    assert origin_allowed(scope("http://127.0.0.1", host="127.0.0.1:80"))  # default ports are the same origin


def test_a_host_not_allowed_is_refused_even_when_origin_matches_it() -> None:
    assert not origin_allowed(scope("http://evil.example:8000", host="evil.example:8000"))


def test_csrf_trusted_origins_are_accepted_exactly(settings: Any) -> None:
    settings.CSRF_TRUSTED_ORIGINS = ["https://crosswire.example.com"]
    assert origin_allowed(scope("https://crosswire.example.com", host="internal:8000"))
    assert not origin_allowed(scope("https://crosswire.example.com:8443", host="internal:8000"))
    assert not origin_allowed(scope("http://crosswire.example.com", host="internal:8000"))


def test_behind_a_tls_proxy_the_page_origin_is_https(settings: Any) -> None:
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.ALLOWED_HOSTS = ["crosswire.example.com"]
    proxied = scope("https://crosswire.example.com", host="crosswire.example.com", **{"x-forwarded-proto": "https"})
    assert origin_allowed(proxied)
    assert not origin_allowed(scope("https://crosswire.example.com", host="crosswire.example.com"))


def test_parse_origin_fills_default_ports() -> None:
    assert parse_origin("HTTPS://Example.com") == ("https", "example.com", 443)
    assert parse_origin("http://[::1]:8000") == ("http", "::1", 8000)
    assert parse_origin("http://x:99999") is None


@pytest.mark.parametrize(("origin", "accepted"), [("http://127.0.0.1:8000", True), ("http://127.0.0.1:9999", False)])
async def test_the_handshake_follows_the_rule(
    alice_ws_headers: list[tuple[bytes, bytes]], origin: str, accepted: bool
) -> None:
    headers = [(n, v) for n, v in alice_ws_headers if n not in (b"origin", b"host")]
    headers += [(b"origin", origin.encode()), (b"host", b"127.0.0.1:8000")]
    communicator = WebsocketCommunicator(application, "/ws/status/", headers=headers)
    connected, _ = await communicator.connect()
    await communicator.disconnect()
    assert connected is accepted
