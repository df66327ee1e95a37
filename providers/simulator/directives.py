"""Directives: lines of the last user message that script the simulated model exactly.

``/call NAME [JSON]``  call tool NAME; with JSON, exactly those arguments (kept verbatim, so invalid JSON is sent
                       as typed); without, arguments generated from the tool's schema. Several lines, several calls
                       (parallel unless parallel calls are disabled, then one per turn, in order).
``/text REPLY``        reply with exactly REPLY (several lines join with newlines); with ``/call`` lines, the text
                       comes before the calls in the same message.
``/think [REASONING]`` reason first (REASONING, or a generated summary of the plan), even if the request did not
                       ask for reasoning.

A directive is a line that starts with one of these words (leading spaces ignored, case-insensitive); every other
line is ordinary prose that tool matching and the reply read as usual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DIRECTIVE = re.compile(r"^\s*/(call|text|think)\b[ \t]*(.*)$", re.IGNORECASE)
_CALL = re.compile(r"^([A-Za-z0-9_.:-]+)\s*(.*)$", re.DOTALL)


@dataclass(frozen=True)
class CallDirective:
    name: str
    arguments: str | None  # verbatim text after the name; None means "generate from the schema"


@dataclass(frozen=True)
class Directives:
    calls: tuple[CallDirective, ...] = ()
    text: str | None = None
    think: bool = False
    reasoning: str | None = None
    prose: str = ""  # the message without its directive lines

    @property
    def any(self) -> bool:
        return bool(self.calls) or self.text is not None or self.think


def parse_directives(message: str) -> Directives:
    calls: list[CallDirective] = []
    texts: list[str] = []
    reasoning: list[str] = []
    think = False
    prose: list[str] = []
    for line in message.splitlines():
        match = _DIRECTIVE.match(line)
        if match is None:
            prose.append(line)
            continue
        word, rest = match.group(1).lower(), match.group(2).strip()
        if word == "call":
            call = _call(rest)
            if call is not None:
                calls.append(call)
        elif word == "text":
            texts.append(rest)
        else:
            think = True
            if rest:
                reasoning.append(rest)
    return Directives(
        calls=tuple(calls),
        text="\n".join(texts) if texts else None,
        think=think,
        reasoning="\n".join(reasoning) or None,
        prose="\n".join(prose).strip(),
    )


def _call(rest: str) -> CallDirective | None:
    match = _CALL.match(rest)
    if match is None:
        return None
    arguments = match.group(2).strip()
    return CallDirective(match.group(1), arguments or None)
