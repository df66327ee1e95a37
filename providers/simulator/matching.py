"""Which tools a user message asks for, and what it offers to fill their arguments with.

A tool named verbatim ("add", "get_weather", "get weather") or by a word of its name ("weather") matches strongly;
words of its description ("temperature" for "Current temperature in a city") match weakly and count only when no
tool matched by name, so "add the numbers 2 and 3" calls ``add`` and not also ``multiply`` ("Multiply two numbers").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from providers.simulator.values import CITIES, Hints, name_words
from providers.types import ToolSpec

_NAME_SCORE = 10
_WORD_SCORE = 3

_STOP = frozenset(
    """a an the and or of to in on at for from with by about into over under this that these those it its is are be
    was were will would can could should may might do does did get gets set sets fetch retrieve list create update
    delete make run call use tool tools info information data current given specified return returns provide
    provides value values function some any all each which what when who how why please me my you your our their
    there here then than also just only very more most much many two one three number numbers""".split()
)
_CONNECTORS = frozenset({"in", "at", "for", "to", "from", "near", "and", "or", "of", "between", "vs", "versus", ","})
# Sentence punctuation is a token of its own so that a name ends where its sentence does ("Paris? Then ..." names
# Paris, not "Paris Then").
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*|[,.?!;:]")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")


@dataclass(frozen=True)
class ToolMatch:
    name: str
    score: int
    mentioned_at: int  # where the message first names the tool: calls follow the order the user asked in
    position: int  # declaration order breaks the remaining ties, so the plan is stable

    def order(self) -> tuple[int, int, int, int]:
        strong = self.score >= _WORD_SCORE
        return (0 if strong else 1, self.mentioned_at if strong else 0, -self.score, self.position)


def stem(word: str) -> str:
    word = word.lower().replace("\u2019", "'").removesuffix("'s")
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def message_words(text: str) -> set[str]:
    return {stem(w) for w in re.findall(r"[A-Za-z][A-Za-z0-9'\u2019]*", text)}


def tool_name(tool: ToolSpec) -> str:
    return str(tool.get("function", {}).get("name", ""))


def match_tools(text: str, tools: list[ToolSpec]) -> list[str]:
    """Names of the tools the message asks for, best first; [] when none fits."""
    found = [m for m in (_score(text, tool, i) for i, tool in enumerate(tools)) if m.score > 0]
    if any(m.score >= _WORD_SCORE for m in found):
        found = [m for m in found if m.score >= _WORD_SCORE]
    found.sort(key=ToolMatch.order)
    return [m.name for m in found]


def _score(text: str, tool: ToolSpec, position: int) -> ToolMatch:
    name = tool_name(tool)
    lowered = text.lower()
    words = message_words(text)
    score = 0
    spoken = " ".join(sorted(name_words(name), key=name.lower().find))
    if name and any(_said(form, lowered) >= 0 for form in (name.lower(), spoken)):
        score += _NAME_SCORE
    keywords = {w for w in name_words(name) if w not in _STOP and len(w) > 2}
    score += _WORD_SCORE * len({stem(w) for w in keywords} & words)
    description = str(tool.get("function", {}).get("description", ""))
    score += len({w for w in message_words(description) if len(w) > 3 and w not in _STOP} & words)
    spots = [_said(form, lowered) for form in (name.lower(), spoken, *keywords)]
    mentioned_at = min((at for at in spots if at >= 0), default=len(text))
    return ToolMatch(name, score, mentioned_at, position)


def _said(phrase: str, lowered: str) -> int:
    """Where ``phrase`` appears as whole words (plural allowed), or -1."""
    found = re.search(rf"(?<!\w){re.escape(phrase)}s?(?!\w)", lowered) if phrase else None
    return found.start() if found else -1


def extract_hints(text: str) -> Hints:
    numbers = tuple(float(n) if "." in n else int(n) for n in _NUMBER.findall(text))
    return Hints(text=text, numbers=numbers, places=_places(text))


def _place_word(token: str) -> bool:
    """A capitalised word of two letters or more: a lone capital is a unit or a variable ("20 C to F"), or "I"."""
    return len(token) > 1 and token[0].isupper()


def _places(text: str) -> tuple[str, ...]:
    """Capitalised names after "in", "and", "between"... plus well-known cities anywhere."""
    tokens = _TOKEN.findall(text)
    places: list[str] = []
    i = 0
    while i < len(tokens):
        start = i
        while i < len(tokens) and _place_word(tokens[i]):
            i += 1
        if i > start:
            name = " ".join(tokens[start:i])
            after_connector = start > 0 and tokens[start - 1].lower() in _CONNECTORS
            if (after_connector or name in CITIES) and name not in places:
                places.append(name)
        else:
            i += 1
    return tuple(places)
