"""The simulator's ASGI app: each provider's real HTTP API, answered by the scripted model.

One request, whatever the provider: check the headers like the real API (key, version), read the fault the model
name asks for, validate the raw body with the provider's strictness rules, import it with the provider's codec,
run the scripted model, and encode its answer with the codec (streamed at ``pace_ms`` per event, or whole).
Vendor specifics (error bodies, ids, compat profiles, thinking signatures) live in the ``*_server`` modules.

Routes are relative to the mount point: ``create_app()`` is mounted at ``/sim`` by Crosswire's ASGI router and by
``create_server_app()`` (the standalone server), so base URLs are ``http://host:port/sim/openai/v1`` (Chat
Completions and Responses), ``http://host:port/sim/anthropic`` and ``http://host:port/sim/gemini`` (Gemini: the
model and the streaming switch are in the URL, ``/v1beta/models/{model}:streamGenerateContent?alt=sse``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route

from providers.simulator.faults import Fault, break_arguments, fault_for
from providers.simulator.limits import apply_max_tokens
from providers.simulator.model import respond
from providers.simulator.rejection import Rejection
from providers.simulator.server import Exchange, Routed, VendorServer
from providers.simulator.strategy import Mode, read_mode, unwrap, wrap
from providers.simulator.strategy_models import preamble, prepare, refusal, shape
from providers.simulator.streams import HangResponse, compact_json, cut_response, json_response, sse_response
from providers.sse import SSEEvent
from providers.translation import TranslationError

if TYPE_CHECKING:
    from providers.simulator.gemini_server import GeminiServer

MOUNT = "/sim"
# Where each wire format's API sits under the mount point (``create_app``'s routes): the end of its clients' base URL.
BASE_PATHS = {
    "openai-chat": "/openai/v1",
    "openai-responses": "/openai/v1",
    "anthropic": "/anthropic",
    "gemini": "/gemini",
}
SEED_HEADER = "x-sim-seed"
PACE_HEADER = "x-sim-pace-ms"


@dataclass(frozen=True)
class Settings:
    pace_ms: float = 0.0
    slow_first_byte_s: float = 5.0
    slow_pace_ms: float = 250.0


def create_app(*, pace_ms: float = 0.0, slow_first_byte_s: float = 5.0, slow_pace_ms: float = 250.0) -> Starlette:
    """``pace_ms``: pause between streamed events (the ``x-sim-pace-ms`` header overrides it per request);
    ``slow_first_byte_s`` and ``slow_pace_ms``: the delays of the ``sim-slow`` model."""
    from providers.simulator.anthropic_server import AnthropicServer
    from providers.simulator.gemini_server import GeminiServer
    from providers.simulator.openai_server import OpenAIServer
    from providers.simulator.responses_server import ResponsesServer

    settings = Settings(pace_ms, slow_first_byte_s, slow_pace_ms)
    openai, responses, anthropic, gemini = OpenAIServer(), ResponsesServer(), AnthropicServer(), GeminiServer()
    return Starlette(
        routes=[
            Route("/openai/v1/chat/completions", _chat_endpoint(openai, settings), methods=["POST"]),
            Route("/openai/v1/responses", _chat_endpoint(responses, settings), methods=["POST"]),
            Route("/openai/v1/models", _models_endpoint(openai), methods=["GET"]),
            Route("/anthropic/v1/messages", _chat_endpoint(anthropic, settings), methods=["POST"]),
            Route("/anthropic/v1/models", _models_endpoint(anthropic), methods=["GET"]),
            Route("/gemini/v1beta/models", _models_endpoint(gemini), methods=["GET"]),
            Route("/gemini/v1beta/models/{target}", _gemini_endpoint(gemini, settings), methods=["POST"]),
        ]
    )


def create_server_app(**settings: Any) -> Starlette:
    """``create_app()`` mounted at ``/sim``, the way Crosswire mounts it: the standalone server's app."""
    return Starlette(routes=[Mount(MOUNT, app=create_app(**settings))])


def _chat_endpoint(vendor: VendorServer, settings: Settings) -> Any:
    async def endpoint(request: Request) -> Response:
        return await _chat(vendor, settings, request)

    return endpoint


def _gemini_endpoint(vendor: GeminiServer, settings: Settings) -> Any:
    """``models/{model}:generateContent`` / ``:streamGenerateContent?alt=sse``: the URL says what the body does not."""

    async def endpoint(request: Request) -> Response:
        routed = vendor.route(request.path_params["target"], request.query_params.get("alt"))
        if not isinstance(routed, Routed):
            return routed  # a method the API does not have, or a stream that is not SSE
        return await _chat(vendor, settings, request, routed)

    return endpoint


def _models_endpoint(vendor: VendorServer) -> Any:
    async def endpoint(request: Request) -> Response:
        denied = vendor.check_headers(_credentials(vendor, request), seed=0)
        return denied or json_response(vendor.models_body())

    return endpoint


def _credentials(vendor: VendorServer, request: Request) -> Headers:
    """The headers the key check reads. A vendor that also takes its key elsewhere (Gemini: ``?key=``) folds it in
    with its own ``credentials``."""
    own = getattr(vendor, "credentials", None)
    return own(request) if own is not None else request.headers


async def _chat(vendor: VendorServer, settings: Settings, request: Request, routed: Routed | None = None) -> Response:
    """``routed``: what the URL says (Gemini); without it the body says the model and whether to stream."""
    raw = await request.body()
    seed = _seed(request.headers.get(SEED_HEADER), raw)
    denied = vendor.check_headers(_credentials(vendor, request), seed=seed)
    if denied is not None:
        return denied
    body = _json_object(raw)
    if body is None:
        return vendor.error_response(vendor.unreadable_body(), seed)
    model = routed.model if routed is not None else body.get("model")
    fault = fault_for(model if isinstance(model, str) else "")
    if fault.status is not None:
        return vendor.fault_response(fault.status, seed)
    rejection = vendor.validate(body)
    if rejection is not None:
        return vendor.error_response(rejection, seed)
    if fault.hang:
        return HangResponse()
    if routed is not None:
        body = {**body, "model": routed.model}  # the scripted reply and the response's modelVersion read it here
    stream = routed.stream if routed is not None else bool(body.get("stream"))
    try:
        internal = vendor.import_request(body)
    except TranslationError as exc:
        return vendor.error_response(Rejection(str(exc)), seed)
    mode = read_mode(body, internal)
    refused = refusal(str(body.get("model") or ""), body, mode, gemini=routed is not None)
    if refused is not None:
        return vendor.error_response(refused, seed)
    try:
        exchange = _run(vendor, body, internal, mode, seed, fault, gemini=routed is not None)
    except TranslationError as exc:
        return vendor.error_response(Rejection(str(exc)), seed)
    return await _answer(vendor, exchange, fault, stream, _pace_s(request, settings, fault), settings)


def _run(
    vendor: VendorServer, body: dict[str, Any], internal: Any, mode: Mode, seed: int, fault: Fault, *, gemini: bool
) -> Exchange:
    """The scripted model answers the request as a native one; a prompted or structured request gets the answer
    written back in its own form (``strategy``), as text the codec then encodes like any other reply."""
    model = str(body.get("model") or "")
    native = unwrap(internal, mode)
    asked = prepare(model, native, mode)
    reply = break_arguments(respond(asked, seed=seed, force_call=fault.force_call), fault)
    reply = wrap(shape(model, reply, native, mode, gemini=gemini), mode, preamble=preamble(model, mode))
    reply = apply_max_tokens(reply, internal.get("max_tokens"))
    return vendor.exchange(body, internal, reply, seed, error_event=fault.error_event)


async def _answer(
    vendor: VendorServer, exchange: Exchange, fault: Fault, stream: bool, pace_s: float, settings: Settings
) -> Response:
    if fault.slow:
        await asyncio.sleep(settings.slow_first_byte_s)
    if stream:
        sse_events = vendor.stream_events(exchange, empty_args=fault.empty_args)
        events = [event.encode() for event in sse_events]
        if fault.cut:
            return sse_response(*_cut_events(vendor, sse_events, events), pace_s=pace_s)
        if fault.error_event:
            return sse_response(_error_midway(vendor, sse_events, events), None, pace_s=pace_s)
        return sse_response(events, None, pace_s=pace_s)
    if fault.error_event:
        return vendor.fault_response("overloaded", exchange.seed)
    payload = compact_json(vendor.response_body(exchange, empty_args=fault.empty_args))
    if fault.cut:
        return cut_response(payload[: len(payload) // 2], len(payload))
    return json_response(payload)


def _cut_events(vendor: VendorServer, sse_events: list[SSEEvent], events: list[bytes]) -> tuple[list[bytes], bytes]:
    """Everything up to the middle fragment of the first call's arguments, then half of that fragment's bytes."""
    spots = [i for i, event in enumerate(sse_events) if vendor.is_argument_fragment(event)]
    middle = spots[len(spots) // 2] if spots else len(events) // 2
    return events[:middle], events[middle][: max(1, len(events[middle]) // 2)]


def _error_midway(vendor: VendorServer, sse_events: list[SSEEvent], events: list[bytes]) -> list[bytes]:
    """Half of the content, then the error event the codec put last: the stream fails while it is flowing.

    A vendor whose failure takes more than one event, or whose events are numbered (Responses: ``error`` then
    ``response.failed``, and a ``sequence_number`` on each), cuts its own stream in ``fail_midway``.
    """
    own = getattr(vendor, "fail_midway", None)
    if own is not None:
        return [event.encode() for event in own(sse_events)]
    body = events[:-1]
    return [*body[: max(1, len(body) // 2)], events[-1]]


def _seed(header: str | None, raw: bytes) -> int:
    if header is not None and header.strip().lstrip("-").isdigit():
        return int(header.strip())
    source = header.encode() if header is not None else _canonical(raw)
    return int.from_bytes(hashlib.sha256(source).digest()[:8], "big")


def _canonical(raw: bytes) -> bytes:
    """The same request spelled with other whitespace or key order gets the same seed."""
    try:
        return json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":")).encode()
    except ValueError:
        return raw


def _json_object(raw: bytes) -> dict[str, Any] | None:
    try:
        body = json.loads(raw)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _pace_s(request: Request, settings: Settings, fault: Fault) -> float:
    override = _milliseconds(request.headers.get(PACE_HEADER))
    pace_ms = settings.pace_ms if override is None else override
    if fault.slow:
        pace_ms = max(pace_ms, settings.slow_pace_ms)
    return pace_ms / 1000


def _milliseconds(header: str | None) -> float | None:
    """A malformed override is ignored (None): the configured pace still applies."""
    try:
        return max(0.0, float(header)) if header is not None else None
    except ValueError:
        return None
