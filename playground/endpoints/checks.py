"""Talking to a saved endpoint from the Providers page: the connection test and the model list.

Both take the stored endpoint, decrypt its key only to build the client endpoint, and return plain results whose
text has been scrubbed of the key, because these results are rendered and a provider may quote what it was sent.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.conf import settings
from django.views.decorators.debug import sensitive_variables

from playground.endpoints import policy
from playground.endpoints.forms import MAX_MODEL_NAME_CHARS, spec_for
from playground.endpoints.models import Endpoint
from providers.client import Endpoint as ClientEndpoint
from providers.client import round_trip
from providers.client.models import list_models
from providers.client.scrub import Scrubber
from providers.errors import ProviderError
from providers.types import ChatRequest, Message

# Short enough that a dead host answers the click quickly, long enough for a cold local model to load.
CHECK_TIMEOUT_S = 10.0
PING_MAX_TOKENS = 16
REPLY_EXCERPT_CHARS = 80


@dataclass(frozen=True)
class ConnectionResult:
    ok: bool
    model: str
    latency_ms: float | None = None
    reply: str = ""
    error_type: str = ""
    message: str = ""
    status: int | None = None


@dataclass(frozen=True)
class ModelsResult:
    names: list[str]
    error_type: str = ""
    message: str = ""

    @property
    def ok(self) -> bool:
        return not self.error_type


def scrub(text: str, secret: str) -> str:
    """The runs' scrubber: the key, and the token inside a quoted "Bearer <key>", become [redacted]."""
    return Scrubber.of([secret]).text(text) if secret else text


def excerpt(text: str, limit: int = REPLY_EXCERPT_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def refusal_for(endpoint: Endpoint) -> str | None:
    """Why the deployment will not contact this endpoint now (its allow-list may have tightened since it was saved)."""
    if endpoint.is_simulated:
        return None
    return policy.base_url_refusal(
        url=endpoint.base_url,
        default_url=spec_for(endpoint).default_url,
        changing=False,
        is_owner=True,
        allowed_prefixes=settings.CROSSWIRE_ALLOWED_BASE_URLS,
    )


def secret_of(endpoint: Endpoint) -> str:
    """What must not appear in a result: the stored key (the simulator's stand-in key is not a secret)."""
    return "" if endpoint.is_simulated else endpoint.api_key()


def client_endpoint_for(endpoint: Endpoint) -> ClientEndpoint:
    return endpoint.client_endpoint(timeout=CHECK_TIMEOUT_S)


def ping_request(model: str) -> ChatRequest:
    messages: list[Message] = [{"role": "user", "content": "ping"}]
    return {"model": model, "messages": messages, "max_tokens": PING_MAX_TOKENS, "stream": False}


@sensitive_variables("client_endpoint", "secret")
async def check_connection(endpoint: Endpoint) -> ConnectionResult:
    """One minimal, non-streamed request to the default model: does the URL answer, and does it take the key?"""
    model = endpoint.default_model
    if not model:
        return ConnectionResult(
            False, "", error_type="no_model", message="Pick a default model first (fetch the list or type names)."
        )
    refusal = refusal_for(endpoint)
    if refusal:
        return ConnectionResult(False, model, error_type="refused", message=refusal)
    client_endpoint = client_endpoint_for(endpoint)
    started = time.perf_counter()
    trip = await round_trip(client_endpoint, ping_request(model))
    # From the moment the request left (the first use of an SDK spends a second importing it); a request that
    # never left (refused by the SDK) is timed from the start.
    sent = trip.wire_request is not None
    latency_ms = round(trip.total_ms if sent else (time.perf_counter() - started) * 1000)
    secret = secret_of(endpoint)
    error = trip.result.error
    if error is not None:
        message = scrub(error.message, secret)
        return ConnectionResult(False, model, latency_ms, error_type=error.type, message=message, status=error.status)
    content = trip.result.message.get("content")
    reply = content if isinstance(content, str) else ""
    return ConnectionResult(True, model, latency_ms, reply=excerpt(scrub(reply, secret)))


@sensitive_variables("client_endpoint", "secret")
async def fetch_model_names(endpoint: Endpoint) -> ModelsResult:
    refusal = refusal_for(endpoint)
    if refusal:
        return ModelsResult([], "refused", refusal)
    client_endpoint = client_endpoint_for(endpoint)
    try:
        names = await list_models(client_endpoint)
    except ProviderError as exc:
        return ModelsResult([], exc.type, scrub(exc.message, secret_of(endpoint)))
    if not names:
        return ModelsResult([], "empty", "The server listed no models; type the names in the endpoint's settings.")
    return ModelsResult(kept_model_names(names, settings.CROSSWIRE_MAX_MODEL_NAMES))


def kept_model_names(names: list[str], limit: int) -> list[str]:
    """A server's list as an endpoint keeps it: once each, names a column can hold, no more than the limit."""
    unique = dict.fromkeys(name for name in names if 0 < len(name) <= MAX_MODEL_NAME_CHARS)
    return list(unique)[:limit]
