"""Decoding a Messages SSE stream into internal events, one small method per event type.

Every call costs a constant amount of work whatever came before (argument fragments are passed on raw, never
parsed, never joined here): a benchmark pushes thousands of ``input_json_delta`` fragments through ``feed``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from providers import events as ev
from providers import jsontext
from providers.anthropic.errors import error_from_event
from providers.anthropic.mapping import finish_reason, usage_from_wire
from providers.errors import ProviderError
from providers.sse import SSEEvent

_TOOL_USE_KEYS = frozenset({"type", "id", "name", "input"})


@dataclass
class OpenBlock:
    """A content block between its ``content_block_start`` and ``content_block_stop``."""

    type: str
    start: dict[str, Any]  # the content_block as announced
    tool: int | None = None  # position in tool_calls, for tool_use blocks
    thinking: list[str] = field(default_factory=list)  # thinking fragments, joined once at the stop
    signature: str | None = None
    got_input: bool = False


@dataclass
class AnthropicStreamState:
    message_id: str | None = None
    model: str | None = None
    start_usage: dict[str, Any] = field(default_factory=dict)  # message_start usage, as sent
    usage: dict[str, Any] = field(default_factory=dict)  # wire usage so far: later values replace earlier ones
    # Anthropic's block index counts text and thinking blocks too; internal tool_calls positions count only calls.
    tool_positions: dict[int, int] = field(default_factory=dict)
    tool_count: int = 0
    open: dict[int, OpenBlock] = field(default_factory=dict)
    ended: bool = False


@dataclass
class AnthropicStreamDecoder:
    state: AnthropicStreamState = field(default_factory=AnthropicStreamState)
    _dispatch: dict[str, Callable[[dict[str, Any]], list[ev.Event]]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._dispatch = {
            "message_start": self.message_start,
            "content_block_start": self.block_start,
            "content_block_delta": self.block_delta,
            "content_block_stop": self.block_stop,
            "message_delta": self.message_delta,
            "message_stop": self.message_stop,
            "error": self.error,
        }

    def feed(self, event: SSEEvent) -> list[ev.Event]:
        if not event.data.strip():
            return []
        try:
            data = jsontext.loads(event.data)
        except ValueError:
            error = ProviderError("invalid_response", f"Unreadable stream event: {event.data[:200]}", raw=event.data)
            return [ev.StreamError(error)]
        if not isinstance(data, dict):
            return []
        handler = self._dispatch.get(str(data.get("type") or event.event))
        return handler(data) if handler is not None else []  # ping and unknown event types carry nothing

    def close(self) -> list[ev.Event]:
        """End of input: a tool call cut off mid-stream is closed so displays stop waiting for it."""
        events: list[ev.Event] = [ev.ToolCallEnd(b.tool) for b in self.state.open.values() if b.tool is not None]
        self.state.open.clear()
        return events

    # --- message level -------------------------------------------------------------------------------------------

    def message_start(self, data: dict[str, Any]) -> list[ev.Event]:
        message = data.get("message") or {}
        self.state.message_id, self.state.model = message.get("id"), message.get("model")
        usage = message.get("usage")
        if not isinstance(usage, dict):
            return []
        self.state.start_usage = dict(usage)
        self.state.usage = dict(usage)
        return [ev.UsageUpdate(usage_from_wire(self.state.usage))]

    def message_delta(self, data: dict[str, Any]) -> list[ev.Event]:
        events: list[ev.Event] = []
        usage = data.get("usage")
        if isinstance(usage, dict):
            # cumulative and authoritative (it can even revise input_tokens); absent keys keep message_start's
            self.state.usage.update({key: value for key, value in usage.items() if value is not None})
            events.append(ev.UsageUpdate(usage_from_wire(self.state.usage)))
        reason = (data.get("delta") or {}).get("stop_reason")
        if reason is not None:
            events.append(ev.Finish(finish_reason(reason), reason))
        return events

    def message_stop(self, data: dict[str, Any]) -> list[ev.Event]:
        self.state.ended = True
        return [ev.StreamEnd()]

    def error(self, data: dict[str, Any]) -> list[ev.Event]:
        return [ev.StreamError(error_from_event(data))]

    # --- content blocks ------------------------------------------------------------------------------------------

    def block_start(self, data: dict[str, Any]) -> list[ev.Event]:
        block = data.get("content_block") or {}
        kind = str(block.get("type"))
        opened = OpenBlock(kind, block)
        self.state.open[_index(data)] = opened
        if kind == "text" and block.get("text"):
            return [ev.TextDelta(block["text"])]
        if kind == "thinking" and block.get("thinking"):
            opened.thinking.append(block["thinking"])
            return [ev.ReasoningDelta(block["thinking"])]
        if kind == "redacted_thinking":
            return [ev.ProviderBlock(block)]  # arrives whole, no deltas
        if kind == "tool_use":
            return [self._tool_start(_index(data), opened)]
        return []

    def _tool_start(self, index: int, opened: OpenBlock) -> ev.ToolCallStart:
        opened.tool = self.state.tool_positions[index] = self.state.tool_count
        self.state.tool_count += 1
        block = opened.start
        extras = {key: value for key, value in block.items() if key not in _TOOL_USE_KEYS}
        return ev.ToolCallStart(opened.tool, str(block.get("id") or ""), str(block.get("name") or ""), extras or None)

    def block_delta(self, data: dict[str, Any]) -> list[ev.Event]:
        delta = data.get("delta") or {}
        opened = self.state.open.get(_index(data))
        kind = delta.get("type")
        if kind == "text_delta":
            return [ev.TextDelta(delta["text"])] if delta.get("text") else []
        if opened is None:
            return []
        if kind == "input_json_delta" and opened.tool is not None:
            opened.got_input = True
            fragment = delta.get("partial_json") or ""
            return [ev.ToolCallDelta(opened.tool, fragment)] if fragment else []
        if kind == "thinking_delta" and delta.get("thinking"):
            opened.thinking.append(delta["thinking"])
            return [ev.ReasoningDelta(delta["thinking"])]
        if kind == "signature_delta":
            opened.signature = delta.get("signature")
        return []  # citations_delta and unknown deltas: see the package docstring

    def block_stop(self, data: dict[str, Any]) -> list[ev.Event]:
        opened = self.state.open.pop(_index(data), None)
        if opened is None:
            return []
        if opened.tool is not None:
            return [*self._whole_input(opened), ev.ToolCallEnd(opened.tool)]
        if opened.type == "thinking":
            signature = opened.signature if opened.signature is not None else opened.start.get("signature", "")
            block = {**opened.start, "thinking": "".join(opened.thinking), "signature": signature}
            return [ev.ProviderBlock(block)]
        return []

    def _whole_input(self, opened: OpenBlock) -> list[ev.Event]:
        """Some gateways put the whole input in content_block_start and send no deltas: use it then."""
        start_input = opened.start.get("input")
        if opened.got_input or not start_input or opened.tool is None:
            return []
        return [ev.ToolCallDelta(opened.tool, json.dumps(start_input, ensure_ascii=False, separators=(",", ":")))]


def _index(data: dict[str, Any]) -> int:
    index = data.get("index")
    return index if isinstance(index, int) else 0  # blocks never overlap, so a missing index can share 0


def new_stream_decoder() -> AnthropicStreamDecoder:
    return AnthropicStreamDecoder()
