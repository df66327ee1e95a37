"""The one accumulator: folds internal stream events into the final internal assistant message.

Shared by every wire format (decoders emit clean ``providers.events``), and by non-streaming responses too: a whole
response body is turned into the same events and folded here, so both paths give identical messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from providers import events as ev
from providers.errors import ProviderError
from providers.types import Message, ProviderData, ToolCall, Usage


@dataclass
class StreamResult:
    message: Message
    finish_reason: str | None  # internal; "tool_calls" whenever calls were seen, unless cut short ("length")
    raw_finish_reason: str | None
    usage: Usage | None
    error: ProviderError | None
    complete: bool  # False when the stream broke off or ended with an error: what arrived is kept
    finish_detail: str | None = None  # the provider's words on an error finish (``Finish.detail``)

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "finish_reason": self.finish_reason,
            "usage": self.usage,
            "error": None if self.error is None else {"type": self.error.type, "message": self.error.message},
        }


@dataclass
class _CallSlot:
    id: str
    name: str
    parts: list[str] = field(default_factory=list)  # joined once at the end: no quadratic concatenation
    fields: dict[str, Any] | None = None


@dataclass
class MessageAccumulator:
    format: str = ""  # the wire format being decoded: stamps provider_data so it goes back only there
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: dict[int, _CallSlot] = field(default_factory=dict)
    blocks: list[dict[str, Any]] = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)
    usage: Usage | None = None
    finish: ev.Finish | None = None
    ended: bool = False
    error: ProviderError | None = None

    def add(self, event: ev.Event) -> None:
        match event:
            case ev.TextDelta(text=text):
                self.text.append(text)
            case ev.ReasoningDelta(text=text):
                self.reasoning.append(text)
            case ev.ToolCallStart():
                self.calls[event.index] = _CallSlot(event.id, event.name, fields=event.fields)
            case ev.ToolCallDelta(index=index, arguments=fragment):
                self.calls[index].parts.append(fragment)
            case ev.ProviderBlock(block=block):
                self.blocks.append(block)
            case ev.MessageFields(fields=fields):
                self.fields.update(fields)
            case ev.UsageUpdate(usage=usage):
                self.usage = {**(self.usage or {}), **usage}
            case ev.Finish():
                self.finish = event
            case ev.StreamEnd():
                self.ended = True
            case ev.StreamError(error=error):
                self.error = error
            case ev.ToolCallEnd():
                pass  # the slot is already complete; the event exists for live displays

    def extend(self, events: list[ev.Event]) -> None:
        for event in events:
            self.add(event)

    def result(self) -> StreamResult:
        message = self.message()
        calls_seen = bool(self.calls)
        raw = self.finish.raw_reason if self.finish else None
        if self.error is not None:
            reason: str | None = "error"
        elif calls_seen and not (self.finish is not None and self.finish.reason == "length"):
            # "A tool call happened" is decided by the calls, never by the provider's reason (OpenAI named
            # tool_choice, Ollama and Gemini-compat say "stop"; OpenRouter may say nothing). Except the token limit:
            # then the last call is cut off, and whoever runs the calls must know.
            reason = "tool_calls"
        elif self.finish is not None:
            reason = self.finish.reason
        else:
            reason = "stop" if self.ended else None
        complete = self.error is None and (self.ended or self.finish is not None)
        detail = self.finish.detail if self.finish else None
        return StreamResult(message, reason, raw, self.usage, self.error, complete, detail)

    def message(self) -> Message:
        text = "".join(self.text)
        message: Message = {"role": "assistant", "content": text or None}
        if self.calls:
            message["tool_calls"] = [self._tool_call(self.calls[i]) for i in sorted(self.calls)]
        data = self._provider_data()
        if data:
            message["provider_data"] = data
        return message

    def _tool_call(self, slot: _CallSlot) -> ToolCall:
        arguments = "".join(slot.parts)
        call: ToolCall = {
            "id": slot.id,
            "type": "function",
            "function": {"name": slot.name, "arguments": arguments if arguments.strip() else "{}"},
        }
        if slot.fields:
            call["provider_data"] = {"format": self.format, "fields": slot.fields}
        return call

    def _provider_data(self) -> ProviderData:
        data: ProviderData = {}
        if self.blocks:
            data["blocks"] = self.blocks
        if self.fields:
            data["fields"] = self.fields
        if self.reasoning:
            data["reasoning"] = "".join(self.reasoning)
        if data:
            data["format"] = self.format
        return data


def fold(events: list[ev.Event], format: str = "") -> StreamResult:
    acc = MessageAccumulator(format=format)
    acc.extend(events)
    return acc.result()
