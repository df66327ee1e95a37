"""Internal stream events: what every wire-format stream decoder emits, whatever the provider sent.

Decoders absorb the wire quirks (missing or constant ``index``, repeated names, Anthropic block indexes...) so that
these events are clean: a call is announced once with a stable ``index`` (its position in ``tool_calls``), its
argument fragments follow, and it is closed once. ``MessageAccumulator`` folds them into the final message; the UI
forwards them to the browser as they come.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from providers.errors import ProviderError
from providers.types import Usage


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str
    kind: str = field(default="text", init=False)


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    text: str
    kind: str = field(default="reasoning", init=False)


@dataclass(frozen=True, slots=True)
class ToolCallStart:
    index: int  # position in the final message's tool_calls
    id: str
    name: str
    fields: dict[str, Any] | None = None  # unknown wire fields of the call, kept for a same-format round trip
    kind: str = field(default="tool_call_start", init=False)


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    index: int
    arguments: str  # a raw fragment of the argument JSON text, never parsed here
    kind: str = field(default="tool_call_delta", init=False)


@dataclass(frozen=True, slots=True)
class ToolCallEnd:
    index: int
    kind: str = field(default="tool_call_end", init=False)


@dataclass(frozen=True, slots=True)
class ProviderBlock:
    """An opaque block to carry back unchanged (a thinking block with its signature, redacted_thinking)."""

    block: dict[str, Any]
    kind: str = field(default="provider_block", init=False)


@dataclass(frozen=True, slots=True)
class MessageFields:
    """Unknown message-level wire fields (or format-specific ones like ``reasoning_content``) to keep."""

    fields: dict[str, Any]
    kind: str = field(default="message_fields", init=False)


@dataclass(frozen=True, slots=True)
class UsageUpdate:
    usage: Usage  # cumulative: a later update replaces the fields it names
    kind: str = field(default="usage", init=False)


@dataclass(frozen=True, slots=True)
class Finish:
    reason: str  # internal finish reason before the "calls were seen" override; see MessageAccumulator
    raw_reason: str | None  # as the provider said it
    # The provider's own words on an error finish, when it gives any (Gemini's finishMessage on a call it could not
    # write): the reason alone does not say what went wrong.
    detail: str | None = None
    kind: str = field(default="finish", init=False)


@dataclass(frozen=True, slots=True)
class StreamEnd:
    """The provider's own end-of-stream marker arrived (``[DONE]``, ``message_stop``...)."""

    kind: str = field(default="end", init=False)


@dataclass(frozen=True, slots=True)
class StreamError:
    error: ProviderError
    kind: str = field(default="error", init=False)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "error": self.error.to_dict()}


Event = (
    TextDelta
    | ReasoningDelta
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
    | ProviderBlock
    | MessageFields
    | UsageUpdate
    | Finish
    | StreamEnd
    | StreamError
)


def event_to_dict(event: Event) -> dict[str, Any]:
    # The per-token events go to every watching browser: built directly, without asdict's deep copy.
    if isinstance(event, TextDelta | ReasoningDelta):
        return {"kind": event.kind, "text": event.text}
    if isinstance(event, ToolCallDelta):
        return {"kind": event.kind, "index": event.index, "arguments": event.arguments}
    if isinstance(event, StreamError):
        return event.to_dict()
    data = asdict(event)
    kind = data.pop("kind")
    return {"kind": kind, **{k: v for k, v in data.items() if v is not None}}
