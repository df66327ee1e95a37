"""The simulated ``api.openai.com`` Chat Completions API (``/openai/v1/chat/completions``, ``/openai/v1/models``).

What is OpenAI's here: the ``Authorization: Bearer`` check and its 401 bodies, the error object
``{"error": {"message", "type", "param", "code"}}`` with the real statuses (429 with ``retry-after`` and rate-limit
headers, 503 overloaded, 500), ids (``chatcmpl-…``, ``call_`` + 24), ``finish_reason: "stop"`` after a named
``tool_choice`` (as recorded), the usage chunk only when ``stream_options.include_usage`` asks for it, and the
compat profiles of ``openai_profiles``. Encoding itself is the ``openai-chat`` codec's.

Reasoning: api.openai.com's Chat API never shows it, compat servers do. The model reasons when the body carries
one of the compat switches (``reasoning_effort``, ``reasoning``, ``thinking``), on ``/think``, and always as
``sim-deepseek``; the codec streams it as ``reasoning_content``.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import Response

from providers import openai_chat
from providers.errors import ProviderError
from providers.simulator import strict_openai
from providers.simulator.faults import FAULTS
from providers.simulator.model import Reply, seeded
from providers.simulator.openai_profiles import PROFILES, Profile, profile_for, reshape_events
from providers.simulator.rejection import Rejection
from providers.simulator.result import build_result, estimate_usage, random_token
from providers.simulator.server import FRAGMENT_SIZE, MODEL_NAMES_CREATED, Exchange
from providers.simulator.strategy_models import STRATEGY_MODELS
from providers.simulator.streams import json_response
from providers.sse import SSEEvent
from providers.types import ChatRequest

MODELS = ("sim-1", *PROFILES, *FAULTS, *STRATEGY_MODELS)
_REASONING_SWITCHES = ("reasoning_effort", "reasoning", "thinking")
_NO_KEY = (
    "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth "
    "(i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the "
    "API from your browser and are prompted for a username and password. You can obtain an API key from "
    "https://platform.openai.com/account/api-keys."
)
_UNREADABLE = (
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library "
    "correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble "
    "figuring out how to fix this, please contact us through our help center at help.openai.com.)"
)
_FAULT_ERRORS: dict[str, tuple[int, str, str | None, str]] = {
    "rate_limit": (
        429,
        "requests",
        "rate_limit_exceeded",
        "Rate limit reached for sim-429 in organization org-simulator on requests per min (RPM): Limit 3, Used 3, "
        "Requested 1. Please try again in 1s. Visit https://platform.openai.com/account/rate-limits to learn more.",
    ),
    "overloaded": (503, "server_error", None, "The server is overloaded or not ready yet."),
    "server": (500, "server_error", None, "The server had an error while processing your request. Sorry about that!"),
    "authentication": (
        401,
        "invalid_request_error",
        "invalid_api_key",
        "Incorrect API key provided: sk-sim-***. You can find your API key at "
        "https://platform.openai.com/account/api-keys.",
    ),
}
_RATE_LIMIT_HEADERS = {
    "retry-after": "1",
    "x-ratelimit-limit-requests": "3",
    "x-ratelimit-remaining-requests": "0",
    "x-ratelimit-reset-requests": "1s",
}


def error_body(message: str, kind: str, param: str | None, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


class OpenAIServer:
    def check_headers(self, headers: Headers, *, seed: int) -> Response | None:
        scheme, _, key = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not key.strip():
            return self._error(401, error_body(_NO_KEY, "invalid_request_error", None, None), seed)
        return None

    def unreadable_body(self) -> Rejection:
        return Rejection(_UNREADABLE)

    def error_response(self, rejection: Rejection, seed: int) -> Response:
        body = error_body(rejection.message, "invalid_request_error", rejection.param, rejection.code)
        return self._error(rejection.status, body, seed)

    def fault_response(self, kind: str, seed: int) -> Response:
        status, wire_type, code, message = _FAULT_ERRORS[kind]
        headers = _RATE_LIMIT_HEADERS if kind == "rate_limit" else {}
        return self._error(status, error_body(message, wire_type, None, code), seed, headers)

    def _error(self, status: int, body: dict[str, Any], seed: int, headers: dict[str, str] | None = None) -> Response:
        request_id = "req_" + random_token(seeded(seed, "request-id"), 32, "0123456789abcdef")
        return json_response(body, status, {"x-request-id": request_id, **(headers or {})})

    def validate(self, body: dict[str, Any]) -> Rejection | None:
        deepseek = profile_for(str(body.get("model"))).always_reasons
        return strict_openai.validate(body, wants_reasoning_back=deepseek)

    def import_request(self, body: dict[str, Any]) -> ChatRequest:
        request = openai_chat.import_request(body).value
        switch = next((body[k] for k in _REASONING_SWITCHES if k in body), None)
        wanted = switch not in (None, False, "none", {"type": "disabled"})
        if wanted or profile_for(str(body.get("model"))).always_reasons:
            request["reasoning"] = {"enabled": True}
        return request

    def exchange(
        self, body: dict[str, Any], request: ChatRequest, reply: Reply, seed: int, *, error_event: bool
    ) -> Exchange:
        profile = profile_for(str(body["model"]))
        rng = seeded(seed, "ids", len(body["messages"]))
        response_id = profile.response_id(rng)
        call_ids = [profile.call_id(rng, position) for position in range(len(reply.calls))]
        named = isinstance(body.get("tool_choice"), dict)
        error = ProviderError("overloaded", "Upstream provider overloaded", retryable=True) if error_event else None
        result = build_result(
            reply,
            call_ids=call_ids,
            format=openai_chat.NAME,
            usage=estimate_usage(body, reply),
            raw_finish="stop" if named and reply.calls and not reply.truncated else None,
            error=error,
        )
        return Exchange(body, request, reply, result, seed, str(body["model"]), response_id)

    def stream_events(self, exchange: Exchange, *, empty_args: bool) -> list[SSEEvent]:
        options = exchange.body.get("stream_options")
        events = openai_chat.encode_stream(
            exchange.result,
            model=exchange.model,
            response_id=exchange.response_id,
            fragment_size=FRAGMENT_SIZE,
            include_usage=bool(isinstance(options, dict) and options.get("include_usage")),
            created=_created(exchange.seed),
        )
        if empty_args:
            events = _without_first_arguments(events)
        return reshape_events(events, profile_for(exchange.model))

    def response_body(self, exchange: Exchange, *, empty_args: bool) -> dict[str, Any]:
        body = openai_chat.encode_response(
            exchange.result, model=exchange.model, response_id=exchange.response_id, created=_created(exchange.seed)
        )
        if empty_args and body.get("choices"):
            body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = ""
        return _profile(exchange).reshape_response(body)

    def is_argument_fragment(self, event: SSEEvent) -> bool:
        if not event.data.startswith("{"):
            return False
        choices = json.loads(event.data).get("choices") or [{}]  # the usage chunk has "choices": []
        calls = choices[0].get("delta", {}).get("tool_calls") or []
        return any(call.get("function", {}).get("arguments") for call in calls if "id" not in call)

    def models_body(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [
                {"id": name, "object": "model", "created": MODEL_NAMES_CREATED, "owned_by": "crosswire-simulator"}
                for name in MODELS
            ],
        }


def _profile(exchange: Exchange) -> Profile:
    return profile_for(exchange.model)


def _created(seed: int) -> int:
    """A plausible, fixed "created" per request, so a replay is identical byte for byte."""
    return 1_750_000_000 + seed % 10_000_000


def _without_first_arguments(events: list[SSEEvent]) -> list[SSEEvent]:
    """The codec writes ``"{}"`` for empty arguments; ``sim-empty-args`` sends only the ``""`` of the call's head."""
    out: list[SSEEvent] = []
    for event in events:
        if event.data.startswith("{"):
            chunk = json.loads(event.data)
            calls = (chunk.get("choices") or [{}])[0].get("delta", {}).get("tool_calls") or []
            if calls and calls[0].get("index") == 0 and "id" not in calls[0]:
                continue
        out.append(event)
    return out
