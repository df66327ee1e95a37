"""Small, targeted repairs of the JSON a model writes by hand, done character by character as it streams.

Models without tool calling write JSON-ish objects. The usual mistakes, each repaired here and reported once:

* single-quoted strings (``{'city': 'Paris'}``): turned into JSON strings, inner ``"`` escaped, ``\\'`` unescaped;
* Python literals ``True`` / ``False`` / ``None``: turned into ``true`` / ``false`` / ``null``;
* trailing commas (``{"a": 1,}``, ``[1, 2,]``): removed;
* raw newlines and tabs inside strings (code in an argument): escaped.

A missing closing brace at the very end is not repaired here: ``partial_json_parser`` completes what is left open.
Repairs are local and need at most a word or a comma of lookahead, which is held back until the next character
decides; ``flush`` releases it at the end of the input. Feeding the same text in any fragments gives the same output.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_LITERALS = {"True": "true", "False": "false", "None": "null"}
_CONTROL = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_WHITESPACE = " \t\r\n"

SINGLE_QUOTES = "single-quoted strings turned into JSON strings"
TRAILING_COMMA = "trailing comma removed"
CONTROL_CHARACTER = "raw line break or tab inside a string escaped"


def literal_repair(word: str) -> str:
    return f"Python literal {word} read as {_LITERALS[word]}"


@dataclass
class JsonRepair:
    quote: str | None = None  # the quote that opened the string being read
    escaped: bool = False
    word: str = ""  # letters held back until the word ends (True -> true)
    comma: str | None = None  # a comma and the whitespace after it, held back until a closer (drop) or anything else
    repairs: list[str] = field(default_factory=list)  # each kind of repair once, in order of first use

    def feed(self, char: str) -> str:
        if self.quote is not None:
            return self._in_string(char)
        out = ""
        if self.word:
            if char.isalnum() or char == "_":
                self.word += char
                return ""
            out, self.word = self._literal(self.word), ""
        if self.comma is not None:
            if char in _WHITESPACE:
                self.comma += char
                return out
            if char in "}]":
                self._repaired(TRAILING_COMMA)
                out, self.comma = out + self.comma[1:], None
            else:
                out, self.comma = out + self.comma, None
        return out + self._outside(char)

    def flush(self) -> str:
        out = self._literal(self.word) if self.word else ""
        out += self.comma or ""
        self.word, self.comma = "", None
        return out

    def _outside(self, char: str) -> str:
        if char == ",":
            self.comma = ","
            return ""
        if char.isalpha() or char == "_":
            self.word = char
            return ""
        if char == "'":
            self._repaired(SINGLE_QUOTES)
            self.quote = "'"
            return '"'
        if char == '"':
            self.quote = '"'
        return char

    def _in_string(self, char: str) -> str:
        single = self.quote == "'"
        if self.escaped:
            self.escaped = False
            if single:  # the backslash was held back: \' is not a JSON escape
                return "'" if char == "'" else "\\" + char
            return char
        if char == "\\":
            self.escaped = True
            return "" if single else char
        if char == self.quote:
            self.quote = None
            return '"'
        if char in _CONTROL:
            self._repaired(CONTROL_CHARACTER)
            return _CONTROL[char]
        if char == '"' and single:
            return '\\"'
        return char

    def _literal(self, word: str) -> str:
        if word in _LITERALS:
            self._repaired(literal_repair(word))
            return _LITERALS[word]
        return word

    def _repaired(self, kind: str) -> None:
        if kind not in self.repairs:
            self.repairs.append(kind)
