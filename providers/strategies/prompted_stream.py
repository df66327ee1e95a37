"""Tool calls found in plain reply text while it streams (the prompted protocol), one character at a time.

Plain text streams as ``TextDelta`` until a call opens: a ```` ```tool_call ```` fence (or ```` ```json ```` /
```` ``` ```` followed by ``{"name"``), a ``<tool_call>`` tag, or a bare ``{"name"`` object. The call object then
goes through ``JsonRepair`` (quotes, literals, trailing commas, raw line breaks) into a ``JsonScanner``, and its
name and arguments stream as ``ToolCallStart`` / ``ToolCallDelta`` / ``ToolCallEnd`` (see ``calls``).

Text that might still turn into an opener (a lone ```` ` ````, ``{``, ``<``) and whitespace at the end of a text run
are held back until the next characters decide, so feeding a reply in any fragments gives the same message.
Content is the text outside the calls, each run stripped, runs joined by a blank line. ``extract_calls`` (in
``prompted``) is this machine fed the whole reply at once.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field

from providers import events as ev
from providers.strategies.calls import CallSlot
from providers.strategies.jsonscan import JsonScanner
from providers.strategies.repair import JsonRepair

CALL_LABELS = frozenset({"tool_call", "tool_calls", "tool", "tools", "function_call", "tool_code"})
_TAG, _TAG_END, _FENCE = "<tool_call>", "</tool_call>", "```"
_LABEL = re.compile(r"[A-Za-z0-9_-]{0,30}")
_CANDIDATE = re.compile(r"[`{<]")
_SPACES = " \t\r\n"
_MAX_GAP = 16  # whitespace allowed inside an opener before it stops being one


@dataclass(frozen=True, slots=True)
class Opener:
    status: str  # "no" | "maybe" (the text ends before it can tell) | "yes"
    body: int = 0  # where the call object (or the fenced block's body) starts
    close: str = ""  # what ends the block: "```", "</tool_call>"; "" for a bare object
    label: str = ""


_NO, _MAYBE = Opener("no"), Opener("maybe")


def match_opener(raw: str, at: int) -> Opener:
    if raw.startswith("<", at):
        state = _token(raw, at, _TAG)
        return Opener("yes", at + len(_TAG), _TAG_END, "<tool_call>") if state == "yes" else Opener(state)
    if raw.startswith("`", at):
        return _fence(raw, at)
    return _bare(raw, at)


def _token(raw: str, at: int, token: str) -> str:
    piece = raw[at : at + len(token)]
    if piece == token:
        return "yes"
    return "maybe" if token.startswith(piece) else "no"


def _skip_space(raw: str, at: int) -> int:
    end = at
    while end < len(raw) and raw[end] in _SPACES and end - at <= _MAX_GAP:
        end += 1
    return end


def _bare(raw: str, at: int) -> Opener:
    """``{`` then optional spaces then ``"name"`` (or ``'name'``)."""
    quote_at = _skip_space(raw, at + 1)
    if quote_at >= len(raw):
        return _MAYBE
    quote = raw[quote_at]
    if quote not in "\"'":
        return _NO
    state = _token(raw, quote_at + 1, f"name{quote}")
    return Opener(state, at) if state != "yes" else Opener("yes", at)


def _fence(raw: str, at: int) -> Opener:
    state = _token(raw, at, _FENCE)
    if state != "yes":
        return Opener(state)
    label_match = _LABEL.match(raw, at + 3)
    label_end = label_match.end() if label_match else at + 3
    body = _skip_space(raw, label_end)
    if body >= len(raw):
        return _MAYBE
    label = raw[at + 3 : label_end]
    if label.lower() in CALL_LABELS:
        return Opener("yes", body, _FENCE, label) if raw[body] in "{[" else _NO
    inner = _bare(raw, body) if raw[body] == "{" else _NO
    return Opener("yes", body, _FENCE, label) if inner.status == "yes" else Opener(inner.status)


@dataclass
class _Content:
    """Text outside the calls: each run stripped, runs joined by a blank line, trailing whitespace held back."""

    started: bool = False
    open: bool = False
    held: str = ""

    def say(self, text: str) -> str:
        out = ""
        if not self.open:
            text = text.lstrip()
            if not text:
                return ""
            out = "\n\n" if self.started else ""
            self.open = self.started = True
        core = text.rstrip()
        if core:
            out, self.held = out + self.held + core, text[len(core) :]
        else:
            self.held += text
        return out

    def cut(self) -> None:
        self.open, self.held = False, ""


@dataclass
class _Call:
    """One call object being read: raw text -> repairs -> scanner, over the repaired text."""

    raw_start: int
    opener: Opener
    slot: CallSlot = field(default_factory=lambda: CallSlot(()))
    repair: JsonRepair = field(default_factory=JsonRepair)
    scanner: JsonScanner = field(default_factory=JsonScanner)
    text: str = ""  # the repaired text


@dataclass
class PromptedStream:
    tools: Collection[str] | None = None  # known tool names; None: every name is accepted
    response_id: str = ""
    raw: str = ""
    pos: int = 0  # first character not read yet
    mode: str = "text"  # "text" | "fence" (inside a call block, between calls) | "call"
    in_code: bool = False  # inside an ordinary code block: no bare call is looked for there
    block: Opener | None = None  # the open call block
    call: _Call | None = None
    calls_in_block: int = 0
    next_index: int = 0
    content: _Content = field(default_factory=_Content)
    notes: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    out: list[ev.Event] = field(default_factory=list)
    closed: bool = False

    def feed(self, delta: str) -> list[ev.Event]:
        if self.closed or not delta:
            return []
        self.raw += delta
        self._run(final=False)
        return self._take()

    def close(self) -> list[ev.Event]:
        if self.closed:
            return []
        self._run(final=True)
        if self.call is not None:
            self._cut_call()
        if self.mode == "fence" and self.block is not None:
            self.notes.append(f"the {self.block.label or 'tool_call'} block was not closed")
        self.closed = True
        return self._take()

    def _take(self) -> list[ev.Event]:
        out, self.out = self.out, []
        return out

    def _run(self, final: bool) -> None:
        steps = {"text": self._text_step, "fence": self._fence_step, "call": self._call_step}
        while steps[self.mode](final):
            pass

    def _say(self, text: str) -> None:
        said = self.content.say(text)
        if said:
            self.out.append(ev.TextDelta(said))

    def _text_step(self, final: bool) -> bool:
        start = at = self.pos
        while (found := self._candidate(at)) is not None:
            at = found
            if self.in_code:
                state = _token(self.raw, at, _FENCE)
                if state == "maybe" and not final:
                    break
                self.in_code, at = (False, at + 3) if state == "yes" else (True, at + 1)
                continue
            opener = match_opener(self.raw, at)
            if opener.status == "maybe" and not final:
                break
            if opener.status == "yes":
                self._say(self.raw[start:at])
                self._open(at, opener)
                return True
            self.in_code, at = (True, at + 3) if self.raw.startswith(_FENCE, at) else (False, at + 1)
        else:
            at = len(self.raw)
        self._say(self.raw[start:at])
        self.pos = at
        return False

    def _candidate(self, at: int) -> int | None:
        if self.in_code:
            found = self.raw.find("`", at)
            return None if found < 0 else found
        match = _CANDIDATE.search(self.raw, at)
        return match.start() if match else None

    def _open(self, at: int, opener: Opener) -> None:
        self.content.cut()
        self.pos = opener.body
        if opener.close:
            self.mode, self.block, self.calls_in_block = "fence", opener, 0
        else:
            self._start_call(at, opener)

    def _fence_step(self, final: bool) -> bool:
        assert self.block is not None
        while self.pos < len(self.raw):
            char = self.raw[self.pos]
            if char in _SPACES or char in "[],":
                self.pos += 1
            elif char == "{":
                self.calls_in_block += 1
                self._start_call(self.pos, self.block)
                return True
            else:
                state = _token(self.raw, self.pos, self.block.close)
                if state == "maybe" and not final:
                    return False
                if state == "yes":
                    self.pos += len(self.block.close)
                else:  # not JSON and not the end of the block: it is text after all
                    self._say(char)
                    self.pos += 1
                    continue
                self.mode, self.block = "text", None
                self.content.cut()
                return True
        return False

    def _start_call(self, at: int, opener: Opener) -> None:
        self.mode, self.call, self.pos = "call", _Call(at, opener), at

    def _call_step(self, final: bool) -> bool:
        call = self.call
        assert call is not None
        while self.pos < len(self.raw) and not call.scanner.done:
            self._push(call, call.repair.feed(self.raw[self.pos]))
            self.pos += 1
        self._update(call)
        if call.scanner.done:
            self._finish_call(call)
            return True
        return False  # everything available was read: wait for more

    def _push(self, call: _Call, text: str) -> None:
        if text:
            call.text += text
            call.scanner.feed(text)
            for mark in call.scanner.take():
                call.slot.mark(mark.kind, mark.path, mark.pos, call.text)

    def _update(self, call: _Call) -> None:
        announced = call.slot.index is not None
        self.out.extend(call.slot.update(call.text, call.scanner, self.next_index, self.response_id))
        if not announced and call.slot.index is not None:
            self.next_index += 1
            name = call.slot.name or ""
            if self.tools is not None and name not in self.tools:
                self.unknown.append(name)
                call.slot.note(f"unknown tool {name!r}")

    def _cut_call(self) -> None:
        call = self.call
        assert call is not None
        self._push(call, call.repair.flush())
        call.scanner.finish()
        for mark in call.scanner.take():
            call.slot.mark(mark.kind, mark.path, mark.pos, call.text)
        self._update(call)
        if not call.scanner.done and call.slot.index is not None:
            call.slot.note(f"{call.scanner.open_depth()} missing closing bracket(s) added")
        self.out.extend(call.slot.cut(call.text))
        self._finish_call(call)

    def _finish_call(self, call: _Call) -> None:
        slot = call.slot
        self.call = None
        self.mode = "fence" if call.opener.close else "text"
        if slot.index is None:  # no name: an ordinary JSON object after all
            self.notes.append("a JSON object without a tool name kept as text")
            self._say(self.raw[call.raw_start : self.pos])
            return
        self.out.extend(slot.end())
        for kind in call.repair.repairs:
            slot.note(kind)
        if opened := _opener_note(call.opener, self.calls_in_block):
            slot.note(opened)
        self.notes.extend(slot.notes)


def _opener_note(opener: Opener, calls_in_block: int) -> str:
    if not opener.close:
        return "JSON object outside a ```tool_call block"
    if opener.close == _TAG_END:
        return "<tool_call> tags instead of a ```tool_call block"
    label = opener.label.lower()
    if label != "tool_call":
        return f"block labelled {opener.label or '(nothing)'!r} instead of tool_call"
    return "several calls in one block" if calls_in_block > 1 else ""
