"""Only pages of this site may open its WebSockets.

A browser sends the user's cookies with a WebSocket handshake from any page, and cookies are not scoped by port: a
page on ``http://127.0.0.1:3000`` would drive chats on ``http://127.0.0.1:8000`` as the signed-in user. Channels'
``AllowedHostsOriginValidator`` compares only the host name, so this checks the whole origin (scheme, host, port):
it must be exactly the origin the socket was opened on, or one listed in ``CSRF_TRUSTED_ORIGINS``, the rule
Django's CSRF check applies to forms.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

DEFAULT_PORTS = {"http": 80, "https": 443}
Origin = tuple[str, str, int]


class SameOriginValidator:
    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)


def origin_allowed(scope: dict[str, Any]) -> bool:
    headers = {name.lower(): value.decode("latin-1").strip() for name, value in scope.get("headers", [])}
    origin = parse_origin(headers.get(b"origin", ""))
    if origin is None:
        return False
    if origin in {parse_origin(trusted) for trusted in settings.CSRF_TRUSTED_ORIGINS}:
        return True
    host = headers.get(b"host", "")
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False
    return origin == parse_origin(f"{site_scheme(scope, headers)}://{host}")


def site_scheme(scope: dict[str, Any], headers: dict[bytes, str]) -> str:
    """The scheme the browser used for the page: https behind a TLS-terminating proxy that says so."""
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy:
        name, value = proxy
        header = name.removeprefix("HTTP_").replace("_", "-").lower().encode()
        if headers.get(header, "").split(",")[0].strip() == value:
            return "https"
    return "https" if scope.get("scheme") == "wss" else "http"


def parse_origin(text: str) -> Origin | None:
    """(scheme, host, port) with the default port filled in, or None for anything that is not an http(s) origin."""
    try:
        parts = urlsplit(text.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return None
    return parts.scheme, parts.hostname, port or DEFAULT_PORTS[parts.scheme]
