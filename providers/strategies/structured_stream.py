"""The structured envelope read while it streams: text deltas in, internal events out.

Feed the reply's text deltas (from any codec's ``TextDelta`` events); get ``ToolCallStart`` once a call's ``name`` is
complete, ``ToolCallDelta`` fragments of its arguments as they grow (canonical JSON, see ``calls``), ``ToolCallEnd``
when its object closes, and ``TextDelta`` for the decoded ``text`` of a final answer. Folded by
``MessageAccumulator``, the events give exactly ``parse_structured(whole text).message()`` for a valid envelope,
whatever the fragmentation. The bare variant (no ``reply`` wrapper) is read the same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from providers import events as ev
from providers.strategies.calls import CallSlot, partial_string
from providers.strategies.jsonscan import JsonScanner, Mark, Path


@dataclass
class _TextField:
    """The final answer's ``text`` string: where it starts, whether it ended, what was sent."""

    start: int | None = None
    end: int | None = None
    sent: str = ""


@dataclass
class StructuredStream:
    response_id: str = ""
    text: str = ""  # everything fed so far: parse_structured(text) is the authoritative reading at the end
    scanner: JsonScanner = field(default_factory=JsonScanner)
    slots: dict[int, CallSlot] = field(default_factory=dict)  # by position in "calls"
    answer: _TextField = field(default_factory=_TextField)
    next_index: int = 0
    closed: bool = False
    problems: list[str] = field(default_factory=list)

    def feed(self, delta: str) -> list[ev.Event]:
        if self.closed or not delta:
            return []
        self.text += delta
        self.scanner.feed(delta)
        for mark in self.scanner.take():
            self._mark(mark)
        return self._update()

    def close(self) -> list[ev.Event]:
        """End of the reply: what is still open is finished as far as it goes, and every announced call ends."""
        if self.closed:
            return []
        self.scanner.finish()
        for mark in self.scanner.take():
            self._mark(mark)
        out = self._update()
        self.closed = True
        if not self.scanner.done:
            self.problems.append("the envelope was cut off before its end")
            out.extend(self._cut())
        for slot in self._ordered():
            out.extend(slot.end())
        return out

    def notes(self) -> list[str]:
        return [*self.problems, *(note for slot in self._ordered() for note in slot.notes)]

    def _mark(self, mark: Mark) -> None:
        path = _unwrapped(mark.path)
        if len(path) >= 2 and path[0] == "calls" and isinstance(path[1], int):
            slot = self.slots.get(path[1])
            if slot is None:
                if mark.kind != "start" or len(path) != 2:
                    return
                slot = self.slots[path[1]] = CallSlot(mark.path)
            slot.mark(mark.kind, path[2:], mark.pos, self.text)
        elif path == ("text",):
            if mark.kind == "start" and self.text[mark.pos] == '"':
                self.answer.start = mark.pos
            elif mark.kind == "end":
                self.answer.end = mark.pos

    def _update(self) -> list[ev.Event]:
        out: list[ev.Event] = []
        for slot in self._ordered():
            out.extend(slot.update(self.text, self.scanner, self.next_index, self.response_id))
            if slot.index == self.next_index:
                self.next_index += 1
            if slot.index is None:
                break  # a later call must not take this one's position
        out.extend(self._answer())
        return out

    def _answer(self) -> list[ev.Event]:
        start, end = self.answer.start, self.answer.end
        if start is None:
            return []
        if end is not None:
            try:
                decoded = json.loads(self.text[start:end])
            except ValueError:
                decoded = self.answer.sent
        else:
            decoded = partial_string(self.text[start:])
        return self._send_text(decoded)

    def _send_text(self, decoded: str) -> list[ev.Event]:
        sent = self.answer.sent
        if len(decoded) <= len(sent) or not decoded.startswith(sent):
            return []
        self.answer.sent = decoded
        return [ev.TextDelta(decoded[len(sent) :])]

    def _cut(self) -> list[ev.Event]:
        out: list[ev.Event] = []
        for slot in self._ordered():
            out.extend(slot.cut(self.text))
        if self.answer.start is not None and self.answer.end is None:
            out.extend(self._send_text(partial_string(self.text[self.answer.start :])))
        return out

    def _ordered(self) -> list[CallSlot]:
        return [self.slots[position] for position in sorted(self.slots)]


def _unwrapped(path: Path) -> Path:
    return path[1:] if path[:1] == ("reply",) else path
