"""The simulated ``api.anthropic.com`` Messages API (``/anthropic/v1/messages``, ``/anthropic/v1/models``).

What is Anthropic's here: the key (``x-api-key``, or a bearer token as anthropic SDK 2.x sends it) and
``anthropic-version`` header checks, the error body
``{"type": "error", "error": {"type", "message"}, "request_id"}`` with the real statuses (429 with
``retry-after``, 529 ``overloaded_error``, 500 ``api_error``), ids (``msg_01…``, ``toolu_01…``) and thinking
blocks signed with an HMAC of their text (``strict_anthropic`` checks it on the next turn). Encoding itself is
the ``anthropic`` codec's; the OpenAI compat profiles do not apply here (those names behave like ``sim-1``).
"""

from __future__ import annotations

from typing import Any

from starlette.datastructures import Headers
from starlette.responses import Response

from providers import anthropic
from providers.errors import ProviderError
from providers.simulator import strict_anthropic
from providers.simulator.faults import FAULTS
from providers.simulator.model import Reply, seeded
from providers.simulator.rejection import Rejection
from providers.simulator.result import build_result, estimate_usage, random_token
from providers.simulator.server import FRAGMENT_SIZE, Exchange
from providers.simulator.strategy_models import STRATEGY_MODELS
from providers.simulator.streams import json_response
from providers.sse import SSEEvent
from providers.types import ChatRequest

MODELS = ("sim-1", *FAULTS, *STRATEGY_MODELS)
_WIRE_TYPES = {
    "invalid_request": (400, "invalid_request_error"),
    "authentication": (401, "authentication_error"),
    "rate_limit": (429, "rate_limit_error"),
    "server": (500, "api_error"),
    "overloaded": (529, "overloaded_error"),
}
_FAULT_MESSAGES = {
    "rate_limit": (
        "This request would exceed the rate limit for your organization (sim-org) of 3 requests per minute. For "
        "details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for "
        "current usage. Please reduce the prompt length or the maximum tokens requested, or try again later."
    ),
    "overloaded": "Overloaded",
    "server": "Internal server error",
    "authentication": "invalid x-api-key",
}
_RATE_LIMIT_HEADERS = {
    "retry-after": "1",
    "anthropic-ratelimit-requests-limit": "3",
    "anthropic-ratelimit-requests-remaining": "0",
    "anthropic-ratelimit-requests-reset": "2025-01-01T00:00:01Z",
}


def error_body(kind: str, message: str, request_id: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": request_id}


class AnthropicServer:
    def check_headers(self, headers: Headers, *, seed: int) -> Response | None:
        # The API takes the key as x-api-key or, as anthropic SDK 2.x sends it, as a bearer token.
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if not headers.get("x-api-key", "").strip() and not (scheme.lower() == "bearer" and token.strip()):
            return self._error("authentication", "x-api-key header is required", seed)
        if not headers.get("anthropic-version", "").strip():
            return self._error("invalid_request", "anthropic-version: header is required", seed)
        return None

    def unreadable_body(self) -> Rejection:
        return Rejection("The request body is not valid JSON.")

    def error_response(self, rejection: Rejection, seed: int) -> Response:
        return self._error(rejection.kind, rejection.message, seed)

    def fault_response(self, kind: str, seed: int) -> Response:
        headers = _RATE_LIMIT_HEADERS if kind == "rate_limit" else {}
        return self._error(kind, _FAULT_MESSAGES[kind], seed, headers)

    def _error(self, kind: str, message: str, seed: int, headers: dict[str, str] | None = None) -> Response:
        status, wire_type = _WIRE_TYPES[kind]
        request_id = "req_011C" + random_token(seeded(seed, "request-id"), 20)
        body = error_body(wire_type, message, request_id)
        return json_response(body, status, {"request-id": request_id, **(headers or {})})

    def validate(self, body: dict[str, Any]) -> Rejection | None:
        return strict_anthropic.validate(body)

    def import_request(self, body: dict[str, Any]) -> ChatRequest:
        return anthropic.import_request(body).value

    def exchange(
        self, body: dict[str, Any], request: ChatRequest, reply: Reply, seed: int, *, error_event: bool
    ) -> Exchange:
        rng = seeded(seed, "ids", len(body["messages"]))
        response_id = "msg_01" + random_token(rng, 22)
        call_ids = ["toolu_01" + random_token(rng, 22) for _ in reply.calls]
        blocks = None
        if reply.reasoning:
            signature = strict_anthropic.thinking_signature(reply.reasoning)
            blocks = [{"type": "thinking", "thinking": reply.reasoning, "signature": signature}]
        error = ProviderError("overloaded", "Overloaded", retryable=True) if error_event else None
        usage = estimate_usage(body, reply)
        usage.pop("reasoning_tokens", None)  # Anthropic counts thinking inside output_tokens and says no more
        result = build_result(reply, call_ids=call_ids, format=anthropic.NAME, usage=usage, blocks=blocks, error=error)
        return Exchange(body, request, reply, result, seed, str(body["model"]), response_id)

    def stream_events(self, exchange: Exchange, *, empty_args: bool) -> list[SSEEvent]:
        # Empty arguments need no help here: the codec sends a call without arguments as one "" fragment.
        return anthropic.encode_stream(
            exchange.result, model=exchange.model, response_id=exchange.response_id, fragment_size=FRAGMENT_SIZE
        )

    def response_body(self, exchange: Exchange, *, empty_args: bool) -> dict[str, Any]:
        return anthropic.encode_response(exchange.result, model=exchange.model, response_id=exchange.response_id)

    def is_argument_fragment(self, event: SSEEvent) -> bool:
        return (
            event.event == "content_block_delta"
            and '"input_json_delta"' in event.data
            and ('"partial_json":""' not in event.data)
        )

    def models_body(self) -> dict[str, Any]:
        data = [
            {"type": "model", "id": name, "display_name": _display(name), "created_at": "2025-01-01T00:00:00Z"}
            for name in MODELS
        ]
        return {"data": data, "has_more": False, "first_id": data[0]["id"], "last_id": data[-1]["id"]}


def _display(name: str) -> str:
    return "Simulator " + name.removeprefix("sim-")
