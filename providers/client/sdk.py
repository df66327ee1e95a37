"""The official SDKs do the HTTP: keys, base URLs, timeouts, retries and status errors.

Both SDKs are used through their public ``with_streaming_response`` API (``messages``, ``responses`` or
``chat.completions``, per format), which hands back the raw response so the bytes can be recorded for the wire
pane and translated from the raw events: the SDKs' models never see a field they do not know, and no event is
parsed twice. An httpx2 request hook records the exact request that left.

Gemini is the exception: Google's SDK cannot hand back the raw bytes (``gemini_http`` says why), so its requests go
out through ``gemini_http`` on the same HTTP client, and fail with the same names an SDK's exceptions module has.
"""

from __future__ import annotations

import http.cookiejar
import inspect
import ssl
import urllib.request
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol, TypeVar

import httpx2

from providers.client import gemini_http
from providers.client.addresses import AddressPolicy, AddressRefused
from providers.client.capture import WireRequest
from providers.client.netbackend import DEFAULT_LIMITS, AsyncioBackend, AsyncioTransport
from providers.client.shared import LIMITS as SHARED_LIMITS
from providers.client.shared import OnRequest, record_for_round_trip, recording, shared_client
from providers.errors import ProviderError
from providers.formats import get_format


@dataclass
class Endpoint:
    format: str  # a name from providers.formats.FORMATS
    base_url: str  # OpenAI style ends in /v1; Anthropic style does not (its SDK appends /v1/messages)
    api_key: str = field(repr=False)
    timeout: float = 60.0
    max_retries: int = 0  # a playground shows the 429 rather than hiding it behind silent retries
    headers: dict[str, str] = field(default_factory=dict)
    transport: Any = field(default=None, repr=False)  # an httpx2 transport, e.g. ASGITransport for in-process use
    # Checked on every address dialled (see addresses.py); None connects wherever the URL leads.
    address_policy: AddressPolicy | None = None


# One wording for every failure to connect or to get an answer started: refused, unreachable, DNS, a connect
# timeout, a port that closes or speaks something else. Told apart, they map which ports of an internal host are
# open to anyone who can save a base URL.
CONNECTION_FAILED = "Could not reach the provider at this base URL (no connection, or it closed without answering)."


class RawResponse(Protocol):
    status_code: int
    headers: Any

    def aiter_bytes(self) -> AsyncIterator[bytes]: ...


_E = TypeVar("_E", bound=BaseException)
_C = TypeVar("_C")


# Headers an SDK adds from the server's own environment (OPENAI_ORG_ID, OPENAI_PROJECT_ID): they describe the
# deployment's account and must never travel to an endpoint a user configured.
AMBIENT_HEADERS = ("openai-organization", "openai-project")


def http_client(
    endpoint: Endpoint, on_request: OnRequest | None = None, *, limits: httpx2.Limits = DEFAULT_LIMITS
) -> httpx2.AsyncClient:
    """The HTTP client every SDK call goes through: timeouts, and a hook that records and cleans each request."""

    async def hook(request: httpx2.Request) -> None:
        for name in AMBIENT_HEADERS:
            request.headers.pop(name, None)
        if on_request is not None:
            content = request.content if isinstance(request.stream, httpx2.ByteStream) else b""
            await on_request(WireRequest.from_parts(request.method, str(request.url), dict(request.headers), content))

    timeout = httpx2.Timeout(endpoint.timeout, connect=min(endpoint.timeout, 10.0))
    transport = endpoint.transport
    if transport is None and not _environment_proxies():
        # A cheaper read per chunk (see netbackend), and the backend that checks each address it dials.
        backend = AsyncioBackend(endpoint.address_policy)
        transport = AsyncioTransport(verify=_tls_context(), limits=limits, network_backend=backend)
    return httpx2.AsyncClient(
        timeout=timeout,
        event_hooks={"request": [hook]},
        transport=transport,
        verify=_tls_context(),
        limits=limits,
    )


def round_trip_client(endpoint: Endpoint) -> httpx2.AsyncClient:
    """The HTTP client a round trip sends through: this event loop's shared one for the endpoint's timeout, address
    policy and proxies (``shared``), so its connections serve the next round trips too. Its hook records each request
    with the recorder of the round trip that sends it (``shared.recording``).

    The address policy keeps a connection dialled unchecked (the simulator's) from ever carrying a checked endpoint's
    request. The timeout is the client's own only for Gemini's requests (the SDKs pass theirs with each request)."""
    key = (endpoint.timeout, endpoint.address_policy, _environment_proxies())
    return shared_client(key, lambda: _cookieless(http_client(endpoint, record_for_round_trip, limits=SHARED_LIMITS)))


def _cookieless(client: httpx2.AsyncClient) -> httpx2.AsyncClient:
    """The client with a jar that keeps nothing: it serves every user's round trips, so a cookie one provider's
    answer set (a load balancer's, say) would travel with the next user's requests, and show in their wire pane."""
    client.cookies = http.cookiejar.CookieJar(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
    return client


def _environment_proxies() -> bool:
    """Whether HTTP(S)_PROXY or ALL_PROXY is set: httpx2 honours them only when it builds the transport itself.

    Given a transport, httpx2 drops the environment's proxies (``allow_env_proxies = trust_env and transport is
    None``). Without one, it mounts a proxy transport per scheme, from the same ``urllib.request.getproxies()``, and
    its default transport serves NO_PROXY hosts. So with a proxy configured httpx2 keeps doing all of that as before.
    """
    proxies = urllib.request.getproxies()
    return any(proxies.get(scheme) for scheme in ("http", "https", "all"))


@lru_cache(maxsize=1)
def _tls_context() -> ssl.SSLContext:
    """One TLS context per process: building one loads the CA bundle, ~20 ms of event-loop time per round trip."""
    return httpx2.create_ssl_context()


def _split_body(create: Callable[..., Any], body: dict[str, Any], *, whole: bool = False) -> dict[str, Any]:
    """Known parameters go as keyword arguments, anything else through ``extra_body``, so nothing is dropped.

    ``whole``: the body goes through ``extra_body`` entirely, and only the small arguments the SDK needs to know
    (``model``, ``stream``) and those it requires (``messages``, given empty: the body's own replaces it when the
    SDK merges ``extra_body`` in) are keyword arguments. See ``_WALKED``."""
    known = _parameters(getattr(create, "__func__", create))
    if whole:
        kwargs: dict[str, Any] = {k: body[k] for k in ("model", "stream") if k in body and k in known}
        if "messages" in known and "messages" in body:
            kwargs["messages"] = []
        return {**kwargs, "extra_body": {k: v for k, v in body.items() if k not in kwargs or k == "messages"}}
    kwargs = {k: v for k, v in body.items() if k in known}
    extra = {k: v for k, v in body.items() if k not in known}
    if extra:
        kwargs["extra_body"] = extra
    return kwargs


# The OpenAI SDK walks every keyword argument through a type-driven transform (aliases, dates, files) before it
# sends, on the event loop: about 0.12 ms a message, 7.5 ms for a 61-message conversation, at every round trip. A
# wire body from our codecs is plain JSON already, which that transform leaves as it is, so for OpenAI's formats the
# body goes whole through ``extra_body``, which the SDK merges in untouched. (The Anthropic SDK sends its arguments
# without such a walk.)
_WALKED = frozenset({"openai-chat", "openai-responses"})


@lru_cache(maxsize=16)
def _parameters(create: Callable[..., Any]) -> frozenset[str]:
    """The names ``create`` takes, per SDK method (each turn's client is new; its methods' functions are not)."""
    return frozenset(inspect.signature(create).parameters) - {"self"}


@asynccontextmanager
async def open_response(
    endpoint: Endpoint, body: dict[str, Any], on_request: OnRequest, *, stream: bool | None = None
) -> AsyncIterator[Any]:
    """POST the wire body with the format's SDK; yields the raw (unparsed) SDK response.

    ``stream`` defaults to the body's own ``stream``; Gemini's body has none (the URL says it), so the caller does.
    Sent through the loop's shared client (``round_trip_client``), or, for an endpoint that brings its own transport
    (in-process), through a client of its own, closed with the response. Either client's hook records with the
    round trip's ``on_request``, lent for as long as the request and its response last (``shared.recording``): no
    client, connection or reference cycle keeps the round trip once its answer is done.
    """
    with recording(on_request):
        if endpoint.transport is None:
            async with _raw_response(round_trip_client(endpoint), endpoint, body, stream) as response:
                yield response
            return
        async with http_client(endpoint, record_for_round_trip) as http:
            async with _raw_response(http, endpoint, body, stream) as response:
                yield response


@asynccontextmanager
async def _raw_response(
    http: httpx2.AsyncClient, endpoint: Endpoint, body: dict[str, Any], stream: bool | None
) -> AsyncIterator[Any]:
    """``open_response`` on an HTTP client made for it."""
    if endpoint.format == "gemini":
        wanted = bool(body.get("stream")) if stream is None else stream
        async with gemini_http.open_response(http, endpoint, body, stream=wanted) as raw:
            yield raw
        return
    client = sdk_client(endpoint, http)
    resource = sdk_resource(endpoint, client)
    kwargs = _split_body(resource.create, body, whole=endpoint.format in _WALKED)
    try:
        async with resource.with_streaming_response.create(**kwargs) as response:
            yield response
    finally:  # asked before the request went, whether or not it was answered (a 401 too)
        remember_platform(client)


def sdk_resource(endpoint: Endpoint, client: Any) -> Any:
    """The SDK resource whose ``create`` posts this format's requests (Messages, Responses or Chat Completions)."""
    if endpoint.format == "anthropic":
        return client.messages
    if endpoint.format == "openai-responses":
        return client.responses
    return client.chat.completions


def sdk_client(endpoint: Endpoint, http: httpx2.AsyncClient) -> Any:
    """The format's official async SDK client, on our HTTP client."""
    common: dict[str, Any] = {
        "api_key": endpoint.api_key,
        "base_url": endpoint.base_url,
        "max_retries": endpoint.max_retries,
        "timeout": endpoint.timeout,
        "default_headers": endpoint.headers or None,
        "http_client": http,
    }
    if endpoint.format == "anthropic":
        import anthropic

        return _with_platform(anthropic.AsyncAnthropic(**common))
    import openai

    return _with_platform(openai.AsyncOpenAI(**common))


# Each SDK client asks which OS it runs on (its X-Stainless-OS header) once, in a worker thread, before its first
# request, because the answer may take blocking calls. Our clients live one round trip, so that was a thread hop
# every round trip: CPU, and a wait before the request hook, which split a turn's first frames into two messages
# (pacing.py counts messages). The answer is the process's: the first client of each SDK finds it, the others reuse
# it. ``_platform`` is the attribute both SDKs (as pinned) keep it in; tests/providers/test_sdk_platform.py fails if
# they stop doing so.
_PLATFORMS: dict[type, Any] = {}


def _with_platform(client: _C) -> _C:
    known = _PLATFORMS.get(type(client))
    if known is not None and getattr(client, "_platform", known) is None:
        client._platform = known  # type: ignore[attr-defined]
    return client


def remember_platform(client: Any) -> None:
    """After a client's first request, answered or not: its answer serves every later client of its SDK here."""
    platform = getattr(client, "_platform", None)
    if platform is not None:
        _PLATFORMS.setdefault(type(client), platform)


def sdk_exceptions(endpoint: Endpoint) -> Any:
    """The module holding the format's SDK exceptions (both SDKs, and ``gemini_http``, share the same names)."""
    if endpoint.format == "gemini":
        return gemini_http
    if endpoint.format == "anthropic":
        import anthropic

        return anthropic
    import openai

    return openai


def map_exception(endpoint: Endpoint, exc: Exception) -> ProviderError:
    sdk = sdk_exceptions(endpoint)
    if isinstance(exc, sdk.APIStatusError):
        response = exc.response
        body = response.content if response is not None else b""
        headers = dict(response.headers) if response is not None else {}
        return get_format(endpoint.format).decode_error(exc.status_code, body, headers)
    refused = _cause(exc, AddressRefused)
    if refused is not None:
        return ProviderError("refused", str(refused))
    if _cause(exc, httpx2.ConnectTimeout) is not None:
        return ProviderError("connection", CONNECTION_FAILED, retryable=True)
    if isinstance(exc, sdk.APITimeoutError | httpx2.TimeoutException):
        return ProviderError("timeout", f"No answer within {endpoint.timeout:g} s.", retryable=True)
    if isinstance(exc, sdk.APIConnectionError | httpx2.TransportError):
        return ProviderError("connection", CONNECTION_FAILED, retryable=True)
    if isinstance(exc, _sdk_base_error(endpoint)):
        # The SDK refused before sending anything (e.g. the openai SDK without a key); its message says why.
        return ProviderError("invalid_request", _shorten(str(exc)))
    # A server that answers 200 with something we cannot read (an HTML page, a different JSON shape).
    return ProviderError("invalid_response", f"The provider's answer could not be read ({type(exc).__name__}: {exc}).")


def _sdk_base_error(endpoint: Endpoint) -> type[Exception]:
    if endpoint.format == "gemini":
        return gemini_http.GeminiError
    sdk = sdk_exceptions(endpoint)
    return sdk.AnthropicError if endpoint.format == "anthropic" else sdk.OpenAIError


def _shorten(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cause(exc: BaseException, kind: type[_E]) -> _E | None:
    """The first exception of ``kind`` in the chain the SDK and httpx2 wrap transport errors in."""
    seen: BaseException | None = exc
    for _ in range(8):  # SDK error -> httpx2 error -> httpcore2 error -> OSError: a short chain
        if seen is None:
            return None
        if isinstance(seen, kind):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None
