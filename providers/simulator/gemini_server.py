"""The simulated ``generativelanguage.googleapis.com`` Gemini API (``/gemini/v1beta/models...``).

What is Google's here: the model and the streaming switch in the URL (``models/{model}:generateContent``,
``:streamGenerateContent?alt=sse``), the key in ``x-goog-api-key`` (or ``?key=``), Google's error body
``{"error": {"code", "message", "status", "details"}}`` with its statuses (403 without a key, 400
``API_KEY_INVALID`` for a refused one, 429 ``RESOURCE_EXHAUSTED`` with a ``RetryInfo`` detail, 503 ``UNAVAILABLE``,
500 ``INTERNAL``), the model list in Google's shape (``models/sim-1``), its strictness (``strict_gemini``) and, as
Gemini 3 does, short call ids and thought signatures (``gemini_signatures``): the first call of a turn is always
signed; a text answer the model thought about ends with a signed empty text part.

The model reasons when ``generationConfig.thinkingConfig`` asks for it (a budget other than 0, a level) or on
``/think``; its thoughts are shown as ``thought: true`` parts only when ``includeThoughts`` is true (or on
``/think`` without a thinking config), and counted in ``thoughtsTokenCount`` either way.

Faults, where Gemini differs from the other APIs: ``sim-401`` is the 400 ``API_KEY_INVALID`` Google sends for a bad
key; ``sim-badjson`` (and any ``/call`` whose arguments are not a JSON object) is what Gemini does with a call it
botched, a ``MALFORMED_FUNCTION_CALL`` finish with a ``finishMessage`` and no parts, since ``args`` can only be an
object on this wire; ``sim-empty-args`` sends the first call without ``args``; ``sim-cut`` stops in the middle of
the chunk holding the first call (a Gemini call is never streamed in fragments).
"""

from __future__ import annotations

import json
import random
from typing import Any

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response

from providers import gemini
from providers.errors import ProviderError
from providers.gemini.assistant import assistant_from_parts
from providers.simulator import strict_gemini
from providers.simulator.faults import FAULTS
from providers.simulator.gemini_signatures import TEXT_SUBJECT, call_subject, sign
from providers.simulator.model import PlannedCall, Reply, seeded
from providers.simulator.rejection import Rejection
from providers.simulator.result import estimate_usage, random_token
from providers.simulator.server import FRAGMENT_SIZE, Exchange, Routed
from providers.simulator.strategy_models import STRATEGY_MODELS
from providers.simulator.streams import json_response
from providers.sse import SSEEvent
from providers.streaming import StreamResult
from providers.types import ChatRequest, Message, Usage

MODELS = ("sim-1", *FAULTS, *STRATEGY_MODELS)
KEY_HEADER = "x-goog-api-key"
_ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
_STATUSES = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND"}
_NO_KEY = (
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other "
    "form of API consumer identity to call this API."
)
_BAD_KEY = "API key not valid. Please pass a valid API key."
_OVERLOADED = "The model is overloaded. Please try again later."
_RATE_LIMITED = (
    "You exceeded your current quota, please check your plan and billing details. For more information on this "
    "error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: "
    "generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 3, model: sim-429\n"
    "Please retry in 1s."
)
_INTERNAL = (
    "An internal error has occurred. Please retry or report in "
    "https://developers.generativeai.google/guide/troubleshooting"
)
_QUOTA = {
    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
    "violations": [
        {
            "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
            "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
            "quotaDimensions": {"location": "global", "model": "sim-429"},
            "quotaValue": "3",
        }
    ],
}
_KEY_INFO = [
    {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "API_KEY_INVALID",
        "domain": "googleapis.com",
        "metadata": {"service": "generativelanguage.googleapis.com"},
    },
    {"@type": "type.googleapis.com/google.rpc.LocalizedMessage", "locale": "en-US", "message": _BAD_KEY},
]
_RETRY = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"}
_FAULTS: dict[str, tuple[int, str, str, list[dict[str, Any]]]] = {
    "rate_limit": (429, "RESOURCE_EXHAUSTED", _RATE_LIMITED, [_QUOTA, _RETRY]),
    "overloaded": (503, "UNAVAILABLE", _OVERLOADED, []),
    "server": (500, "INTERNAL", _INTERNAL, []),
    "authentication": (400, "INVALID_ARGUMENT", _BAD_KEY, _KEY_INFO),
}
_METHODS = {"generateContent": False, "streamGenerateContent": True}
_FREE_FORM = frozenset(
    {"args", "response", "parametersJsonSchema", "responseJsonSchema", "example", "default", "partMetadata", "labels"}
)


def google_error(status: int, grpc_status: str, message: str, details: list[dict[str, Any]] | None = None) -> Response:
    """Google's error body, pretty-printed as Google's front end sends it."""
    body: dict[str, Any] = {"code": status, "message": message, "status": grpc_status}
    if details:
        body["details"] = details
    return json_response(json.dumps({"error": body}, indent=2, ensure_ascii=False).encode(), status)


class GeminiServer:
    def credentials(self, request: Request) -> Headers:
        """A ``?key=`` counts as the header would (Google takes either); the header wins when both are there."""
        query_key = request.query_params.get("key")
        if not query_key or request.headers.get(KEY_HEADER):
            return request.headers
        return Headers(raw=[*request.headers.raw, (KEY_HEADER.encode(), query_key.encode())])

    def route(self, target: str, alt: str | None) -> Routed | Response:
        """``{model}:{method}`` from the URL: the model, and whether to stream (SSE only, as Crosswire asks)."""
        model, _, method = target.rpartition(":")
        if not model or method not in _METHODS:
            return google_error(404, "NOT_FOUND", f"Method not found: models/{target}.")
        if _METHODS[method] and alt != "sse":
            message = "The simulator streams with ?alt=sse only (the JSON array form is not simulated)."
            return google_error(400, "INVALID_ARGUMENT", message)
        return Routed(model=model, stream=_METHODS[method])

    def check_headers(self, headers: Headers, *, seed: int) -> Response | None:
        if headers.get(KEY_HEADER, "").strip():
            return None
        return google_error(403, "PERMISSION_DENIED", _NO_KEY)

    def unreadable_body(self) -> Rejection:
        return Rejection("Invalid JSON payload received. Unexpected token.")

    def error_response(self, rejection: Rejection, seed: int) -> Response:
        status = rejection.status if rejection.status in _STATUSES else 400
        details = None
        if rejection.param is not None:
            violation = {"field": rejection.param, "description": rejection.message}
            details = [{"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [violation]}]
        return google_error(status, _STATUSES[status], rejection.message, details)

    def fault_response(self, kind: str, seed: int) -> Response:
        status, grpc_status, message, details = _FAULTS[kind]
        return google_error(status, grpc_status, message, details)

    def validate(self, body: dict[str, Any]) -> Rejection | None:
        return strict_gemini.validate(body)

    def import_request(self, body: dict[str, Any]) -> ChatRequest:
        return gemini.import_request(camel_case(body)).value

    def exchange(
        self, body: dict[str, Any], request: ChatRequest, reply: Reply, seed: int, *, error_event: bool
    ) -> Exchange:
        rng = seeded(seed, "ids", len(body["contents"]))
        response_id = random_token(rng, 23)
        usage = estimate_usage(body, reply)
        if error_event:
            error = ProviderError("overloaded", _OVERLOADED, status=503, retryable=True)
            message = _message(reply, rng, response_id, _shows_thoughts(body))
            result = StreamResult(message, "error", None, usage, error, complete=False)
        else:
            result = _result(reply, rng, response_id, _shows_thoughts(body), usage)
        return Exchange(body, request, reply, result, seed, str(body["model"]), response_id)

    def stream_events(self, exchange: Exchange, *, empty_args: bool) -> list[SSEEvent]:
        # sim-empty-args needs no rewrite: the call's part was written without ``args`` (see ``_call_part``).
        return gemini.encode_stream(
            exchange.result, model=exchange.model, response_id=exchange.response_id, fragment_size=FRAGMENT_SIZE
        )

    def response_body(self, exchange: Exchange, *, empty_args: bool) -> dict[str, Any]:
        return gemini.encode_response(exchange.result, model=exchange.model, response_id=exchange.response_id)

    def is_argument_fragment(self, event: SSEEvent) -> bool:
        return '"functionCall"' in event.data

    def models_body(self) -> dict[str, Any]:
        return {"models": [_model_entry(name) for name in MODELS]}


def camel_case(value: Any) -> Any:
    """The body with every proto field name in camelCase, as Google's parser reads ``function_declarations`` too
    (the codec reads the camelCase the API writes). Free-form values keep their keys: call arguments, a function's
    response, JSON Schemas, a schema's property names."""
    if isinstance(value, list):
        return [camel_case(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = _camel(key)
        if name in _FREE_FORM:
            out[name] = item
        elif name == "properties" and isinstance(item, dict):
            out[name] = {prop: camel_case(schema) for prop, schema in item.items()}
        else:
            out[name] = camel_case(item)
    return out


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest) if rest and head else key


# --- the answer --------------------------------------------------------------------------------------------------


def _result(reply: Reply, rng: random.Random, response_id: str, shows: bool, usage: Usage) -> StreamResult:
    calls = [call for call in reply.calls if _args(call.arguments) is not None]
    if reply.truncated:
        # A call cut by the token limit never reaches the client: Gemini sends calls whole or not at all.
        reply = Reply(reply.reasoning, reply.text, tuple(calls), truncated=True)
        return StreamResult(_message(reply, rng, response_id, shows), "length", "MAX_TOKENS", usage, None, True)
    if len(calls) < len(reply.calls):
        return _malformed(next(call for call in reply.calls if call not in calls), usage)
    finish = "tool_calls" if reply.calls else "stop"
    return StreamResult(_message(reply, rng, response_id, shows), finish, "STOP", usage, None, True)


def _message(reply: Reply, rng: random.Random, response_id: str, shows: bool) -> Message:
    """The model turn as Gemini 3 writes it, read back through the codec (so ids and kept fields are its own)."""
    parts: list[dict[str, Any]] = []
    if reply.reasoning and shows:
        parts.append({"text": reply.reasoning, "thought": True})
    if reply.text:
        parts.append({"text": reply.text})
    for position, call in enumerate(reply.calls):
        parts.append(_call_part(call, "".join(rng.choice(_ID_ALPHABET) for _ in range(8)), rng, first=position == 0))
    if reply.reasoning and not reply.calls:
        parts.append({"text": "", "thoughtSignature": sign(rng, TEXT_SUBJECT)})
    message, _ = assistant_from_parts(parts, seed=response_id)
    return message


def _call_part(call: PlannedCall, call_id: str, rng: random.Random, *, first: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"name": call.name}
    if call.arguments.strip():  # blank arguments (sim-empty-args): the part has no ``args`` at all
        body["args"] = _args(call.arguments) or {}
    body["id"] = call_id
    part: dict[str, Any] = {"functionCall": body}
    if first:
        part["thoughtSignature"] = sign(rng, call_subject(call.name, call_id))
    return part


def _malformed(call: PlannedCall, usage: Usage) -> StreamResult:
    """What Gemini answers when it botched a call: no parts, the finish reason and what it tried to write."""
    candidate = {"finishMessage": f"Malformed function call: {call.name}({call.arguments})"}
    message: Message = {
        "role": "assistant",
        "content": None,
        "provider_data": {"format": gemini.NAME, "fields": {"candidate": candidate}},
    }
    return StreamResult(message, "error", "MALFORMED_FUNCTION_CALL", usage, None, True)


def _args(arguments: str) -> dict[str, Any] | None:
    """The call's arguments as Gemini's ``args`` object; None when they are not one (a botched call)."""
    if not arguments.strip():
        return {}
    try:
        value = json.loads(arguments)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _shows_thoughts(body: dict[str, Any]) -> bool:
    config = body.get("generationConfig") or body.get("generation_config") or {}
    thinking = config.get("thinkingConfig", config.get("thinking_config")) if isinstance(config, dict) else None
    if not isinstance(thinking, dict):
        return True  # no thinking config: only /think makes the model think, and it asked to see it
    return thinking.get("includeThoughts", thinking.get("include_thoughts")) is True


def _model_entry(name: str) -> dict[str, Any]:
    return {
        "name": f"models/{name}",
        "version": "001",
        "displayName": "Simulator " + name.removeprefix("sim-"),
        "description": "Crosswire's scripted model, behind the Gemini API.",
        "inputTokenLimit": 1_048_576,
        "outputTokenLimit": 65_536,
        "supportedGenerationMethods": ["generateContent", "countTokens"],
        "temperature": 1,
        "topP": 0.95,
        "topK": 64,
        "maxTemperature": 2,
        "thinking": True,
    }
