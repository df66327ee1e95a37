"""The registry of wire formats: name -> codec module, imported lazily.

Every codec module exposes the same names (``WireFormat``); nothing outside a codec knows a vendor shape.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, Protocol

from providers.errors import ProviderError
from providers.events import Event
from providers.sse import SSEEvent
from providers.streaming import StreamResult
from providers.translation import Translation
from providers.types import ChatRequest

FORMATS: dict[str, str] = {
    "openai-chat": "providers.openai_chat",
    "anthropic": "providers.anthropic",
    "openai-responses": "providers.openai_responses",
    "gemini": "providers.gemini",
}


class StreamDecoder(Protocol):
    def feed(self, event: SSEEvent) -> list[Event]: ...

    def close(self) -> list[Event]: ...


class WireFormat(Protocol):
    NAME: str

    def encode_request(self, request: ChatRequest) -> Translation[dict[str, Any]]: ...

    def import_request(self, body: dict[str, Any]) -> Translation[ChatRequest]: ...

    def response_events(self, body: dict[str, Any]) -> list[Event]: ...

    def decode_response(self, body: dict[str, Any]) -> StreamResult: ...

    def encode_response(self, result: StreamResult, *, model: str, response_id: str) -> dict[str, Any]: ...

    def new_stream_decoder(self) -> StreamDecoder: ...

    def encode_stream(
        self, result: StreamResult, *, model: str, response_id: str, fragment_size: int = 8
    ) -> list[SSEEvent]: ...

    def decode_error(self, status: int, body: bytes, headers: Mapping[str, str]) -> ProviderError: ...

    def event_label(self, event: str | None, data: str) -> str:
        """A few words on what a raw stream event brings, for the wire pane; "" when its name says it."""
        ...


def get_format(name: str) -> WireFormat:
    try:
        path = FORMATS[name]
    except KeyError:
        known = ", ".join(sorted(FORMATS))
        raise ValueError(f"unknown wire format {name!r} (known: {known})") from None
    module: Any = importlib.import_module(path)
    return module
