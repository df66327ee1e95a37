"""An incremental, lenient JSON structure scanner: where each value starts and ends, by path, as text arrives.

``partial_json_parser`` turns an unfinished JSON text into the value it holds so far, but says neither *where* a value
sits in the text nor which containers are still open. The streams need both: where a call's ``arguments`` begin (to
parse only that slice as it grows) and how many closers the partial value's serialization got for free (to hold
them back). This scanner gives them, one character at a time, with no backtracking: feeding a text in any fragments
gives the same marks.

It never raises: a character that makes no sense where it is (a stray ``:``, a missing comma) is skipped or read as
the start of the next value, and the decoder that reads the value later reports what is wrong with it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

Path = tuple[str | int, ...]
_WHITESPACE = " \t\r\n"
_CLOSERS = "}]"


@dataclass(frozen=True, slots=True)
class Mark:
    kind: str  # "start" | "end"
    path: Path
    pos: int  # start: index of the value's first character; end: index just past its last character


@dataclass
class _Frame:
    kind: str  # "{" or "["
    path: Path  # the container's own path
    key: str | int | None = None  # the key (object) or index (array) of the value being read
    expect: str = "value"  # object: "key" | "colon" | "value" | "comma"; array: "value" | "comma"


@dataclass
class _String:
    start: int
    is_key: bool
    escaped: bool = False
    chars: list[str] = field(default_factory=list)  # a key's raw characters (values are sliced by the caller)


@dataclass
class JsonScanner:
    """Feed characters; read ``marks``. ``done`` once the root value is complete; ``consumed`` counts what was read."""

    offset: int = 0  # position of the first character fed, so marks index the caller's buffer
    stack: list[_Frame] = field(default_factory=list)
    string: _String | None = None
    scalar: int | None = None  # start of a number or literal being read
    started: bool = False
    done: bool = False
    consumed: int = 0
    marks: list[Mark] = field(default_factory=list)

    def feed(self, text: str) -> int:
        """Read ``text`` up to the end of the root value; return how many of its characters were read."""
        read = 0
        for char in text:
            if self.done:
                break
            self._char(char, self.offset + self.consumed)
            self.consumed += 1
            read += 1
        return read

    def finish(self) -> None:
        """End of input: a number or literal still open at the very end is complete (``{"a": 12`` then EOF)."""
        if self.scalar is not None:
            self._end_scalar(self.offset + self.consumed)

    def take(self) -> list[Mark]:
        marks, self.marks = self.marks, []
        return marks

    def open_depth(self) -> int:
        return len(self.stack)

    def in_value_string(self) -> bool:
        return self.string is not None and not self.string.is_key

    def _char(self, char: str, pos: int) -> None:
        if self.string is not None:
            self._string_char(char, pos)
            return
        if self.scalar is not None:
            if char not in _WHITESPACE and char not in ",:" + _CLOSERS + '{["':
                return
            self._end_scalar(pos)
        self._structural(char, pos)

    def _string_char(self, char: str, pos: int) -> None:
        string = self.string
        assert string is not None
        if string.escaped:
            string.escaped = False
        elif char == "\\":
            string.escaped = True
        elif char == '"':
            self.string = None
            if string.is_key:
                self._set_key(string)
            else:
                self._end_value(self._value_path(), pos + 1)
            return
        if string.is_key:
            string.chars.append(char)

    def _structural(self, char: str, pos: int) -> None:
        if char in _WHITESPACE:
            return
        top = self.stack[-1] if self.stack else None
        if char in _CLOSERS:
            if top is not None:
                self.stack.pop()
                self._end_value(top.path, pos + 1)
        elif char == ":":
            if top is not None and top.kind == "{" and top.expect == "colon":
                top.expect = "value"
        elif char == ",":
            self._comma(top)
        elif char == '"' and top is not None and top.kind == "{" and top.expect in ("key", "comma"):
            self.string = _String(pos, is_key=True)
        elif self._expects_value(top):
            self._start_value(char, pos)

    def _comma(self, top: _Frame | None) -> None:
        if top is None:
            return
        if top.kind == "{":
            top.expect = "key"
        else:
            top.key = int(top.key or 0) + (1 if top.expect == "comma" else 0)
            top.expect = "value"

    def _expects_value(self, top: _Frame | None) -> bool:
        if top is None:
            return not self.started
        if top.kind == "[" and top.expect == "comma":  # a missing comma: read it as the next element
            top.key = int(top.key or 0) + 1
            top.expect = "value"
        return top.expect == "value"

    def _start_value(self, char: str, pos: int) -> None:
        self.started = True
        path = self._value_path()
        self.marks.append(Mark("start", path, pos))
        if char == "{":
            self.stack.append(_Frame(char, path, expect="key"))
        elif char == "[":
            self.stack.append(_Frame(char, path, key=0))
        elif char == '"':
            self.string = _String(pos, is_key=False)
        else:
            self.scalar = pos

    def _end_scalar(self, pos: int) -> None:
        self.scalar = None
        self._end_value(self._value_path(), pos)

    def _end_value(self, path: Path, pos: int) -> None:
        self.marks.append(Mark("end", path, pos))
        if not self.stack:
            self.done = True
            return
        self.stack[-1].expect = "comma"

    def _value_path(self) -> Path:
        if not self.stack:
            return ()
        top = self.stack[-1]
        return (*top.path, top.key if top.key is not None else "")

    def _set_key(self, string: _String) -> None:
        raw = "".join(string.chars)
        try:
            key = json.loads(f'"{raw}"')
        except ValueError:
            key = raw
        top = self.stack[-1]
        top.key, top.expect = key, "colon"
