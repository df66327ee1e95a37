"""The simulated ``api.openai.com`` Responses API (``POST /openai/v1/responses``).

Same host as the Chat Completions API, so the same ``Authorization: Bearer`` check, error object and fault bodies
(``openai_server``), and ``GET /openai/v1/models`` is the host's one list (``MODELS`` here are the names that mean
something on this route: ``sim-1`` and the faults). What is the Responses API's here: its strictness rules
(``strict_responses``), ids (``resp_``/``rs_`` + 50 hex, ``call_`` + 24), reasoning items that come back checked
(``responses_reasoning``: encrypted content only when ``include`` asks for it), the request's settings echoed in
the response object, and the typed event stream the ``openai-responses`` codec writes.

Reasoning: the model reasons when the body carries ``reasoning`` with an effort other than ``none``, or on
``/think``. The compat profiles of ``openai_profiles`` belong to the Chat API; here those names behave like
``sim-1``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from providers import openai_responses
from providers.errors import ProviderError
from providers.openai_responses.wire import ENCRYPTED_REASONING
from providers.simulator import strict_responses
from providers.simulator.faults import FAULTS
from providers.simulator.model import Reply, seeded
from providers.simulator.openai_server import OpenAIServer
from providers.simulator.rejection import Rejection
from providers.simulator.responses_reasoning import reasoning_id, reasoning_item
from providers.simulator.result import build_result, estimate_usage, random_token
from providers.simulator.server import FRAGMENT_SIZE, MODEL_NAMES_CREATED, Exchange
from providers.simulator.strategy_models import STRATEGY_MODELS
from providers.sse import SSEEvent
from providers.types import ChatRequest

MODELS = ("sim-1", *FAULTS, *STRATEGY_MODELS)
_ERROR_EVENTS = 2  # a stream fails with two events: ``error``, then ``response.failed``
_HEX = "0123456789abcdef"
_LIFECYCLE = frozenset(
    {"response.created", "response.in_progress", "response.completed", "response.incomplete", "response.failed"}
)
# Request settings the API repeats in every response object (the codec writes their defaults).
_ECHOED = ("instructions", "tools", "tool_choice", "parallel_tool_calls", "temperature", "max_output_tokens")


class ResponsesServer(OpenAIServer):
    """Headers, error bodies and faults are the Chat API's (one host, one key); the rest is the Responses API's."""

    def validate(self, body: dict[str, Any]) -> Rejection | None:
        return strict_responses.validate(body)

    def import_request(self, body: dict[str, Any]) -> ChatRequest:
        return openai_responses.import_request(body).value

    def exchange(
        self, body: dict[str, Any], request: ChatRequest, reply: Reply, seed: int, *, error_event: bool
    ) -> Exchange:
        items = body["input"] if isinstance(body["input"], list) else [body["input"]]
        rng = seeded(seed, "ids", len(items))
        response_id = "resp_" + random_token(rng, 50, _HEX)
        call_ids = ["call_" + random_token(rng, 24) for _ in reply.calls]
        blocks = None
        if reply.reasoning:
            encrypted = ENCRYPTED_REASONING in (body.get("include") or [])
            blocks = [reasoning_item(reasoning_id(rng), reply.reasoning, encrypted=encrypted)]
        error = ProviderError("overloaded", "The server is overloaded or not ready yet.") if error_event else None
        result = build_result(
            reply,
            call_ids=call_ids,
            format=openai_responses.NAME,
            usage=estimate_usage(body, reply),
            blocks=blocks,
            error=error,
        )
        return Exchange(body, request, reply, result, seed, str(body["model"]), response_id)

    def stream_events(self, exchange: Exchange, *, empty_args: bool) -> list[SSEEvent]:
        events = openai_responses.encode_stream(
            exchange.result,
            model=exchange.model,
            response_id=exchange.response_id,
            fragment_size=FRAGMENT_SIZE,
            created=_created(exchange.seed),
        )
        return _Rewrite(exchange.body, empty_args).events(events)

    def response_body(self, exchange: Exchange, *, empty_args: bool) -> dict[str, Any]:
        body = openai_responses.encode_response(
            exchange.result, model=exchange.model, response_id=exchange.response_id, created=_created(exchange.seed)
        )
        return _Rewrite(exchange.body, empty_args).response(body)

    def fail_midway(self, events: list[SSEEvent]) -> list[SSEEvent]:
        """``sim-error-event``: half of the content, then the ``error`` and ``response.failed`` the codec ended with,
        numbered on from what was sent (a real stream has no gap in its ``sequence_number``)."""
        content, failure = events[:-_ERROR_EVENTS], events[-_ERROR_EVENTS:]
        kept = content[: max(1, len(content) // 2)]
        return [*kept, *(_renumbered(event, len(kept) + offset) for offset, event in enumerate(failure))]

    def is_argument_fragment(self, event: SSEEvent) -> bool:
        return event.event == "response.function_call_arguments.delta"

    def models_body(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [
                {"id": name, "object": "model", "created": MODEL_NAMES_CREATED, "owned_by": "crosswire-simulator"}
                for name in MODELS
            ],
        }


@dataclass
class _Rewrite:
    """What the simulator changes in the codec's events: the request's settings echoed in every response object,
    and, for ``sim-empty-args``, the first call's arguments sent as ``""`` (no deltas; the sequence renumbered)."""

    body: dict[str, Any]
    empty_args: bool
    emptied: str | None = None  # the item id of the call whose arguments are emptied, once found
    kept: list[SSEEvent] = field(default_factory=list)

    def events(self, events: list[SSEEvent]) -> list[SSEEvent]:
        for event in events:
            payload = json.loads(event.data)
            if self._keep(payload):
                payload["sequence_number"] = len(self.kept)
                self.kept.append(SSEEvent(_dumps(payload), event.event))
        return self.kept

    def response(self, body: dict[str, Any]) -> dict[str, Any]:
        if "output" not in body:
            return body  # an HTTP error body
        for key in _ECHOED:
            if key in self.body:
                body[key] = self.body[key]
        for item in body["output"]:
            self._empty(item)
        return body

    def _keep(self, payload: dict[str, Any]) -> bool:
        kind = payload.get("type")
        if kind in _LIFECYCLE:
            self.response(payload["response"])
        if not self.empty_args:
            return True
        if kind == "response.output_item.added" and payload["item"].get("type") == "function_call":
            self.emptied = self.emptied or payload["item"].get("id")
        if kind == "response.function_call_arguments.delta" and payload.get("item_id") == self.emptied:
            return False
        if kind == "response.function_call_arguments.done" and payload.get("item_id") == self.emptied:
            payload["arguments"] = ""
        if kind == "response.output_item.done":
            self._empty(payload["item"])
        return True

    def _empty(self, item: dict[str, Any]) -> None:
        if not self.empty_args or item.get("type") != "function_call":
            return
        self.emptied = self.emptied or item.get("id")
        if item.get("id") == self.emptied:
            item["arguments"] = ""


def _renumbered(event: SSEEvent, sequence_number: int) -> SSEEvent:
    payload = json.loads(event.data)
    payload["sequence_number"] = sequence_number
    return SSEEvent(_dumps(payload), event.event)


def _dumps(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def _created(seed: int) -> int:
    """A plausible, fixed "created_at" per request, so a replay is identical byte for byte."""
    return 1_750_000_000 + seed % 10_000_000
