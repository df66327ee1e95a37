"""One tool call read out of a JSON object that is still arriving: shared by the structured and prompted streams.

A call object ``{"name": ..., "arguments": {...}}`` sits somewhere in the scanned text (at ``base``). Its name is
announced (``ToolCallStart``) once the name string is complete; its arguments then stream as ``ToolCallDelta``
fragments of their *canonical* serialization (``json.dumps(value, ensure_ascii=False)``), so that the fragments of a
stream always add up to what reading the whole reply gives, whatever the model's spacing or repaired mistakes were.

Only text that can no longer change is sent: ``partial_json_parser`` completes the unfinished arguments, and the
closers that completion added (one per open container, plus the quote of an open string, counted by the scanner)
are held back, as are numbers and literals until they end.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from partial_json_parser import Allow
from partial_json_parser import loads as partial_loads

from providers import events as ev
from providers.strategies.jsonscan import JsonScanner, Path

# Open strings, objects and arrays may be completed; numbers and literals only count once they ended ("1.5e3" would
# otherwise be sent as "1.5" first).
_GROWING = Allow.STR | Allow.OBJ | Allow.ARR
ARGUMENT_KEYS = ("arguments", "parameters")


def call_id(response_id: str, index: int, name: str) -> str:
    """Stable id from the response id, the call's position and its name: the same reply always gives the same ids."""
    digest = hashlib.sha256(f"{response_id}\x00{index}\x00{name}".encode()).hexdigest()
    return f"call_{digest[:24]}"


def canonical(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def without_lone_surrogate(text: str) -> str:
    """A high surrogate at the very end may still pair with the next escape: hold it back."""
    return text[:-1] if text and "\ud800" <= text[-1] <= "\udbff" else text


def stable_prefix(raw: str, closers: int) -> str | None:
    """The canonical text of the unfinished JSON ``raw`` minus the ``closers`` its completion added."""
    try:
        value = partial_loads(raw, _GROWING)
    except Exception:  # not a JSON prefix (yet): nothing is sure
        return None
    text = canonical(value)
    if closers:
        text = text[:-closers] if len(text) > closers else ""
    return without_lone_surrogate(text)


def partial_string(raw: str) -> str:
    """The decoded text so far of a JSON string still being written (``raw`` starts at its opening quote)."""
    try:
        value = partial_loads(raw, Allow.STR)
    except Exception:
        return ""
    return without_lone_surrogate(value) if isinstance(value, str) else ""


@dataclass
class CallSlot:
    """A call object at ``base``; ``notes`` collects what was repaired or wrong, prefixed by the call's position."""

    base: Path
    name: str | None = None
    starts: dict[str, int] = field(default_factory=dict)  # "name" / "arguments" -> value start
    args_key: str | None = None
    args_end: int | None = None
    closed: bool = False
    index: int | None = None  # set when announced
    sent: str = ""  # argument text already emitted
    finished: bool = False  # the arguments ended and their final text was emitted
    ended: bool = False
    notes: list[str] = field(default_factory=list)

    def mark(self, kind: str, rel: Path, pos: int, source: str) -> None:
        if rel == ():
            self.closed = self.closed or kind == "end"
            return
        if len(rel) != 1 or not isinstance(rel[0], str):
            return
        key = rel[0]
        if key == "name" and self.name is None:
            if kind == "start":
                self.starts["name"] = pos
            elif "name" in self.starts:
                self._read_name(source[self.starts["name"] : pos])
        elif key in ARGUMENT_KEYS and self.args_key in (None, key):
            if kind == "start":
                self.args_key, self.starts["arguments"] = key, pos
            else:
                self.args_end = pos

    def update(self, source: str, scanner: JsonScanner, next_index: int, response_id: str) -> list[ev.Event]:
        """Events for what arrived; ``next_index`` is the position this call takes if it is announced now."""
        out: list[ev.Event] = []
        if self.index is None:
            if self.name is None:
                return out
            self.index = next_index
            out.append(ev.ToolCallStart(self.index, call_id(response_id, self.index, self.name), self.name))
        start = self.starts.get("arguments")
        if self.args_end is not None and start is not None:
            if not self.finished:
                self.finished = True
                out.extend(self._emit(self._final(source[start : self.args_end])))
        elif start is not None and source[start] in "{[":
            depth = len(self.base) + 1
            closers = scanner.open_depth() - depth + (1 if scanner.in_value_string() else 0)
            prefix = stable_prefix(source[start:], closers)
            if prefix is not None and len(prefix) > len(self.sent) and prefix.startswith(self.sent):
                out.extend(self._emit(prefix))
        if self.closed and not self.ended:
            out.extend(self.end())
        return out

    def cut(self, source: str) -> list[ev.Event]:
        """End of input inside this call: complete the arguments as far as they go, then end the call."""
        start = self.starts.get("arguments")
        if self.index is None or self.ended:
            return []
        if start is not None and self.args_end is None:
            try:
                value = partial_loads(source[start:])
            except Exception:
                value = None
            if value is not None:
                self.note("unfinished arguments completed (the reply ended inside them)")
                return [*self._emit(canonical(value)), *self.end()]
        return self.end()

    def end(self) -> list[ev.Event]:
        if self.index is None or self.ended:
            return []
        self.ended = True
        out = [] if self.sent else [ev.ToolCallDelta(self.index, "{}")]  # no arguments given: an empty object
        if self.args_key == "parameters":
            self.note("`parameters` read as `arguments`")
        return [*out, ev.ToolCallEnd(self.index)]

    def note(self, text: str) -> None:
        where = f"call {self.index}" if self.index is not None else "a call"
        self.notes.append(f"{where}: {text}")

    def _read_name(self, raw: str) -> None:
        try:
            value = json.loads(raw)
        except ValueError:
            value = None
        if isinstance(value, str) and value.strip():
            self.name = value.strip()
        else:
            self.notes.append(f"a call's name is not a non-empty string: {raw[:40]}")

    def _final(self, raw: str) -> str:
        try:
            value = json.loads(raw)
        except ValueError:
            try:
                value = partial_loads(raw)
            except Exception:
                self.note("arguments are not readable JSON; kept what could be read")
                return self.sent
        if isinstance(value, str):
            try:
                inner = json.loads(value)
            except ValueError:
                inner = None
            if isinstance(inner, dict):
                self.note("arguments given as a JSON string, decoded")
                value = inner
        if not isinstance(value, dict):
            self.note("arguments are not a JSON object")
        return canonical(value)

    def _emit(self, text: str) -> list[ev.Event]:
        if self.index is None or len(text) <= len(self.sent):
            return []
        if not text.startswith(self.sent):
            self.note("arguments changed after being streamed; the streamed text is kept")
            return []
        delta, self.sent = text[len(self.sent) :], text
        return [ev.ToolCallDelta(self.index, delta)]
