"""A tiny ASGI path dispatcher: mounted sub-applications by prefix, Django for everything else."""

from __future__ import annotations

import hmac
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from django.conf import settings

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

logger = logging.getLogger(__name__)


class MountUnavailable(Exception):
    """A mounted application cannot be loaded; the message says why and is sent to the client."""


class PrefixDispatcher:
    """Send ``<prefix>`` and ``<prefix>/...`` to the app a loader builds on first use; the rest to ``default``.

    The mounted app sees ``root_path`` extended by the prefix and the full ``path``, as the ASGI spec and Starlette's
    own ``Mount`` do, so its routes are relative to the mount point and the URLs it builds stay absolute.
    """

    def __init__(self, default: ASGIApp, mounts: dict[str, Callable[[], ASGIApp]]) -> None:
        self.default = default
        self.loaders = {prefix.rstrip("/"): loader for prefix, loader in mounts.items()}
        self.loaded: dict[str, ASGIApp] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        prefix = self.match(scope["path"])
        if prefix is None:
            await self.default(scope, receive, send)
            return
        try:
            app = self.load(prefix)
        except MountUnavailable as exc:
            await send_plain_text(send, 503, str(exc))
            return
        root_path = scope.get("root_path", "")
        await app({**scope, "root_path": root_path + prefix}, receive, send)

    def match(self, path: str) -> str | None:
        for prefix in self.loaders:
            if path == prefix or path.startswith(prefix + "/"):
                return prefix
        return None

    def load(self, prefix: str) -> ASGIApp:
        if prefix not in self.loaded:
            self.loaded[prefix] = self.loaders[prefix]()
        return self.loaded[prefix]


async def send_plain_text(send: Send, status: int, text: str) -> None:
    body = text.encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def load_simulator() -> ASGIApp:
    """The built-in provider simulator, imported only when first requested so the app starts without it."""
    try:
        from providers.simulator.app import create_app
    except ImportError as exc:
        # Only a missing simulator is "unavailable"; a broken import inside it is a bug and must surface.
        if exc.name not in {"providers.simulator", "providers.simulator.app"}:
            raise
        message = f"The provider simulator (providers.simulator.app.create_app) is not available: {exc}"
        logger.error(message)
        raise MountUnavailable(message) from exc
    return SimulatorGate(create_app(pace_ms=settings.CROSSWIRE_SIMULATOR_PACE_MS))


class SimulatorGate:
    """The simulator as mounted in the app: only the app's own runs may use it unless it is open (local mode), and
    its deliberate connection cuts (``sim-cut``) end the response at once under daphne too.

    daphne cannot drop a connection for an application: an app that raises mid-response leaves the client waiting
    for the rest until its read timeout (120 s). So a cut ends the body here instead: a stream stops short of its end
    marker, and a JSON body stops short of its end (sent without the Content-Length it would then break), which the
    client reports as a cut connection, as it does against the standalone simulator.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not settings.CROSSWIRE_SIMULATOR_OPEN and not _has_key(scope):
            body = b'{"error": {"type": "authentication_error", "message": "This simulator serves this server only."}}'
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 401, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await _CutAware(send).run(self.app, scope, receive)


class _CutAware:
    """Forwards the app's messages; a body that announced its length is held until complete, so a cut can still
    take the announcement back."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.start: MutableMapping[str, Any] | None = None  # held while a sized body is incomplete
        self.held: list[bytes] = []
        self.started = False

    async def run(self, app: ASGIApp, scope: Scope, receive: Receive) -> None:
        from providers.simulator.streams import ConnectionCut

        try:
            await app(scope, receive, self.forward)
        except ConnectionCut:
            await self.cut()

    async def forward(self, message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            if any(name.lower() == b"content-length" for name, _ in message.get("headers", [])):
                self.start = message
                return
            self.started = True
        elif message["type"] == "http.response.body" and self.start is not None:
            self.held.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            start, self.start = self.start, None
            await self.send(start)
            self.started = True
            message = {"type": "http.response.body", "body": b"".join(self.held), "more_body": False}
        await self.send(message)

    async def cut(self) -> None:
        if self.start is not None:  # a sized body cut short: send what there was, unsized, and end it
            headers = [(n, v) for n, v in self.start.get("headers", []) if n.lower() != b"content-length"]
            await self.send({**self.start, "headers": headers})
            await self.send({"type": "http.response.body", "body": b"".join(self.held), "more_body": True})
        if self.start is not None or self.started:
            await self.send({"type": "http.response.body", "body": b"", "more_body": False})


# Where the simulated APIs' clients put the key: OpenAI's bearer token, Anthropic's and Gemini's own headers.
KEY_HEADERS = (b"authorization", b"x-api-key", b"x-goog-api-key")


def _has_key(scope: Scope) -> bool:
    expected = settings.CROSSWIRE_SIMULATOR_KEY.encode()
    for name, value in scope.get("headers", []):
        name = name.lower()
        if name == b"authorization":
            value = value.removeprefix(b"Bearer ").strip()
        if name in KEY_HEADERS and hmac.compare_digest(value, expected):
            return True
    return False
