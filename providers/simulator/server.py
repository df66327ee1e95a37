"""What the app asks of each provider's server module (``openai_server``, ``anthropic_server``, ``gemini_server``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from starlette.datastructures import Headers
from starlette.responses import Response

from providers.simulator.model import Reply
from providers.simulator.rejection import Rejection
from providers.sse import SSEEvent
from providers.streaming import StreamResult
from providers.types import ChatRequest

FRAGMENT_SIZE = 6  # characters per streamed fragment: about a token and a half, like the real streams
MODEL_NAMES_CREATED = 1_735_689_600  # 2025-01-01: the simulator models' fixed "created" date


@dataclass(frozen=True)
class Exchange:
    """One answered request: the raw body, its internal import, the scripted reply and the result to encode."""

    body: dict[str, Any]
    request: ChatRequest
    reply: Reply
    result: StreamResult
    seed: int
    model: str
    response_id: str


@dataclass(frozen=True)
class Routed:
    """What an API says in its URL rather than in the body: Gemini names the model and the streaming switch there
    (``models/{model}:streamGenerateContent``); the others read both from the body."""

    model: str
    stream: bool


class VendorServer(Protocol):
    def check_headers(self, headers: Headers, *, seed: int) -> Response | None: ...

    def unreadable_body(self) -> Rejection: ...

    def error_response(self, rejection: Rejection, seed: int) -> Response: ...

    def fault_response(self, kind: str, seed: int) -> Response: ...

    def validate(self, body: dict[str, Any]) -> Rejection | None: ...

    def import_request(self, body: dict[str, Any]) -> ChatRequest: ...

    def exchange(
        self, body: dict[str, Any], request: ChatRequest, reply: Reply, seed: int, *, error_event: bool
    ) -> Exchange: ...

    def stream_events(self, exchange: Exchange, *, empty_args: bool) -> list[SSEEvent]: ...

    def response_body(self, exchange: Exchange, *, empty_args: bool) -> dict[str, Any]: ...

    def is_argument_fragment(self, event: SSEEvent) -> bool: ...

    def models_body(self) -> dict[str, Any]: ...
