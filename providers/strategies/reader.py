"""The reply of a round trip read under its strategy: the codec's internal events in, the same events out, except
that under ``structured`` and ``prompted`` the reply *text* is turned into tool calls as it streams.

Under those two strategies the provider only ever sends text (the envelope JSON, or prose with fenced
``tool_call`` blocks). Its ``TextDelta`` events go through ``StructuredStream`` / ``PromptedStream`` and what comes
out is what a native call produces: ``ToolCallStart``, argument fragments as they grow, ``ToolCallEnd``, and the
text outside the calls. Every other event (usage, finish, reasoning, errors...) passes unchanged; the text readers
are closed before the first of finish, end or error, so the calls end before the reply does.

``finish_message`` then fixes the final message for strict and structured: their replies carry ``null`` for the
optional properties the model left out, which the tool's own schema would refuse.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from providers import events as ev
from providers.strategies.apply import Applied
from providers.strategies.calls import canonical
from providers.strategies.capabilities import PROMPTED, STRICT, STRUCTURED
from providers.strategies.prompted_stream import PromptedStream
from providers.strategies.strict import restore_optional
from providers.strategies.structured import StructuredReplyError, parse_structured
from providers.strategies.structured_stream import StructuredStream
from providers.types import Message

# Events after which no more reply text can come: the text reader is closed before they are passed on.
_ENDINGS = (ev.Finish, ev.StreamEnd, ev.StreamError)


@dataclass
class ReplyReader:
    applied: Applied
    response_id: str = ""  # makes the call ids of this reply unique (calls.call_id)
    prompted: PromptedStream | None = None
    structured: StructuredStream | None = None
    text: list[str] = field(default_factory=list)  # the raw reply text, for the final check
    produced: bool = False  # the text reader has turned something into events
    closed: bool = False
    extra_notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.applied.strategy == PROMPTED:
            self.prompted = PromptedStream(tools=self.applied.tools, response_id=self.response_id)
        elif self.applied.strategy == STRUCTURED:
            self.structured = StructuredStream(response_id=self.response_id)

    def feed(self, events: list[ev.Event]) -> list[ev.Event]:
        if not self.applied.from_text:
            return events
        out: list[ev.Event] = []
        for event in events:
            if isinstance(event, ev.TextDelta) and not self.closed:
                self.text.append(event.text)
                out.extend(self._read(event.text))
            elif isinstance(event, _ENDINGS):
                out.extend(self.close())
                out.append(event)
            else:
                out.append(event)
        return out

    def close(self) -> list[ev.Event]:
        """The reply is over: what the text reader still holds (a held-back space, a cut call) comes out."""
        if not self.applied.from_text or self.closed:
            return []
        self.closed = True
        reader = self.prompted or self.structured
        assert reader is not None
        out = reader.close()
        self.produced = self.produced or bool(out)
        if self.structured is not None:
            out.extend(self._not_an_envelope())
        return out

    def notes(self) -> list[str]:
        """What reading the reply repaired or could not read, for the round trip's notes."""
        found: list[str] = []
        if self.prompted is not None:
            found = list(self.prompted.notes)
        elif self.structured is not None:
            found = self.structured.notes()
        return [f"reply ({self.applied.strategy}): {note}" for note in [*found, *self.extra_notes]]

    def _read(self, text: str) -> list[ev.Event]:
        reader = self.prompted or self.structured
        assert reader is not None
        out = reader.feed(text)
        self.produced = self.produced or bool(out)
        return out

    def _not_an_envelope(self) -> list[ev.Event]:
        """A reply that is no envelope at all (the model ignored the format) is kept as plain text, said so."""
        whole = "".join(self.text)
        if not whole.strip():
            return []
        try:
            parse_structured(whole, self.response_id)
        except StructuredReplyError as exc:
            self.extra_notes.append(f"not a valid envelope ({exc})")
            if not self.produced:
                self.extra_notes.append("the reply text was kept as it came")
                return [ev.TextDelta(whole)]
        return []


def finish_message(message: Message, applied: Applied) -> Message:
    """The final assistant message with the ``null``s of strict replies dropped where the tool's schema has an
    optional property (``restore_optional``): the arguments then validate against the tool as defined."""
    if applied.strategy not in (STRICT, STRUCTURED) or not message.get("tool_calls"):
        return message
    calls = []
    for call in message.get("tool_calls") or []:
        function = call["function"]
        schema = applied.schemas.get(function["name"])
        try:
            arguments = json.loads(function["arguments"])
        except ValueError:
            calls.append(call)
            continue
        restored = restore_optional(arguments, schema)
        if restored != arguments:
            call = {**call, "function": {**function, "arguments": canonical(restored)}}
        calls.append(call)
    return {**message, "tool_calls": calls}
