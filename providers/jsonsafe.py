"""Parsing JSON that anyone may have written, with limits, so no input can crash or stall the code that reads it.

``json.loads`` alone lets through what breaks later: nesting deep enough to hit the recursion limit in whatever walks
the value next (a schema validator, a template), numbers that are not finite (``1e999`` parses to ``inf`` and prints
back as ``Infinity``, which is not JSON), integers too long to convert, and lone surrogates that no UTF-8 encoder
accepts. ``loads`` refuses each with one readable message.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

DEFAULT_MAX_DEPTH = 64
_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONInputError(ValueError):
    """Input that is not acceptable JSON; ``str()`` is a sentence a person can act on."""


def loads(text: str | bytes, *, max_depth: int = DEFAULT_MAX_DEPTH, max_bytes: int | None = None) -> Any:
    """Parse ``text`` as JSON within the limits, or raise ``JSONInputError`` saying what is wrong."""
    size = len(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)
    if max_bytes is not None and size > max_bytes:
        raise JSONInputError(f"The JSON is {size:,} bytes; the limit is {max_bytes:,}.")
    if isinstance(text, bytes):
        # json.loads would guess UTF-16 or UTF-32 from the first bytes; JSON on the web is UTF-8 (RFC 8259).
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONInputError(f"The input is not UTF-8 text (byte {exc.start}).") from None
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:
        raise JSONInputError(_too_deep(max_depth)) from None
    except JSONInputError:
        raise
    except json.JSONDecodeError as exc:
        raise JSONInputError(f"Invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno}).") from None
    except ValueError:
        # The only other ValueError json raises: an integer past Python's digit limit (4,300 by default).
        raise JSONInputError("The JSON holds an integer with too many digits to read.") from None
    check(value, max_depth=max_depth)
    return value


def check(value: Any, *, max_depth: int = DEFAULT_MAX_DEPTH) -> None:
    """Refuse a parsed value nested deeper than ``max_depth`` or holding a lone surrogate. Iterative: no recursion."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            if depth > max_depth:
                raise JSONInputError(_too_deep(max_depth))
            for key, child in item.items():
                _check_text(key)
                stack.append((child, depth + 1))
        elif isinstance(item, list):
            if depth > max_depth:
                raise JSONInputError(_too_deep(max_depth))
            stack.extend((child, depth + 1) for child in item)
        elif isinstance(item, str):
            _check_text(item)


def depth_of(value: Any) -> int:
    """How many containers deep ``value`` goes (a scalar is 0). Iterative."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            stack.extend((child, depth) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _check_text(text: str) -> None:
    if _SURROGATE.search(text):
        raise JSONInputError("The JSON holds a lone surrogate (an unpaired \\ud800-\\udfff escape), which is not text.")


def _too_deep(max_depth: int) -> str:
    return f"The JSON is nested too deeply: at most {max_depth} levels of objects and arrays are accepted."


def _refuse_constant(name: str) -> float:
    raise JSONInputError(f"{name} is not valid JSON; use a number or null.")


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise JSONInputError(f"The number {text[:40]} is too large to represent.")
    return number
