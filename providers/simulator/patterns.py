"""A string matching a JSON Schema ``pattern``, for string properties whose realistic value does not fit it.

Walks the parse tree of Python's own regex parser (the same approach as hypothesis' ``from_regex``), covering
literals, classes, ranges, categories, repeats, groups and alternation. Anything unusual (lookarounds,
backreferences) gives None, and the caller keeps its own value: a pattern is a constraint to honour where possible,
never a reason to fail a request.
"""

from __future__ import annotations

import random
import re
import string
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

_MAX_REPEAT = 4  # open-ended repeats (*, +, {2,}) stop a few past their minimum
_CATEGORIES = {
    sre_constants.CATEGORY_DIGIT: string.digits,
    sre_constants.CATEGORY_NOT_DIGIT: string.ascii_letters,
    sre_constants.CATEGORY_WORD: string.ascii_letters + string.digits + "_",
    sre_constants.CATEGORY_NOT_WORD: "-.,",
    sre_constants.CATEGORY_SPACE: " ",
    sre_constants.CATEGORY_NOT_SPACE: string.ascii_letters,
}
_PRINTABLE = string.ascii_letters + string.digits


class _Unsupported(Exception):
    """A construct this sampler does not generate (lookarounds, backreferences...)."""


def sample_pattern(pattern: str, rng: random.Random) -> str | None:
    try:
        tree = sre_parse.parse(pattern)
        text = _sequence(list(tree), rng)
    except (_Unsupported, re.error, RecursionError, ValueError, TypeError, IndexError):
        return None
    return text if re.search(pattern, text) else None


def _sequence(items: list[tuple[Any, Any]], rng: random.Random) -> str:
    return "".join(_item(op, arg, rng) for op, arg in items)


def _item(op: Any, arg: Any, rng: random.Random) -> str:
    if op == sre_constants.LITERAL:
        return chr(arg)
    if op == sre_constants.NOT_LITERAL:
        return next(c for c in _PRINTABLE if ord(c) != arg)
    if op == sre_constants.ANY:
        return rng.choice(_PRINTABLE)
    if op == sre_constants.IN:
        return _class(arg, rng)
    if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, getattr(sre_constants, "POSSESSIVE_REPEAT", None)):
        low, high, body = arg
        upper = low + _MAX_REPEAT if high == sre_constants.MAXREPEAT else high
        return "".join(_sequence(list(body), rng) for _ in range(rng.randint(low, max(low, min(upper, low + 3)))))
    if op == sre_constants.SUBPATTERN:
        return _sequence(list(arg[-1]), rng)
    if op == getattr(sre_constants, "ATOMIC_GROUP", None):
        return _sequence(list(arg), rng)
    if op == sre_constants.BRANCH:
        return _sequence(list(rng.choice(arg[1])), rng)
    if op == sre_constants.AT:
        return ""
    raise _Unsupported(str(op))


def _class(items: list[tuple[Any, Any]], rng: random.Random) -> str:
    if items and items[0][0] == sre_constants.NEGATE:
        excluded = {c for op, arg in items[1:] for c in _members(op, arg)}
        return next(c for c in _PRINTABLE if c not in excluded)
    choices = [c for op, arg in items for c in _members(op, arg)]
    if not choices:
        raise _Unsupported("empty class")
    return rng.choice(choices)


def _members(op: Any, arg: Any) -> str:
    if op == sre_constants.LITERAL:
        return chr(arg)
    if op == sre_constants.RANGE:
        low, high = arg
        return "".join(chr(c) for c in range(low, min(high, low + 200) + 1))
    if op == sre_constants.CATEGORY:
        return _CATEGORIES.get(arg, "")
    raise _Unsupported(str(op))
