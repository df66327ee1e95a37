"""Compact JSON text for the hot paths: orjson where it writes what ``json`` would, the standard library otherwise.

Every frame a socket gets and every raw event saved is encoded here, thousands of times a second while chats
stream; orjson does it in about a seventh of the time (docs/performance.md). Its text reads back to the same value
as ``json.dumps(value, separators=(",", ":"))`` would, with two differences a reader cannot tell apart: characters
outside ASCII are written as UTF-8 rather than as ``\\u`` escapes, and a float is written in its shortest form
(``1e-7``, not ``1e-07``). What orjson would write its own way goes to ``json`` instead, so it is encoded, or
refused, as before: dataclasses, dates, subclasses of ``dict``, ``list``, ``str`` and ``int``, integers beyond 64
bits, keys that are not strings, lone surrogates and nesting over orjson's limit. ``NaN`` and the infinities are
the one change: orjson writes ``null`` where ``json`` wrote ``NaN``, which is not JSON and which a browser refuses.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS


def dumps(value: Any) -> str:
    """``value`` as compact JSON text; raises ``TypeError`` or ``ValueError`` where ``json.dumps`` would."""
    try:
        return orjson.dumps(value, option=_OPTIONS).decode()
    except TypeError:  # orjson.JSONEncodeError: what it will not write, json writes or refuses as it always did
        return json.dumps(value, separators=(",", ":"))


class CompactEncoder(json.JSONEncoder):
    """``dumps`` as a ``json.JSONEncoder``, for code that takes an encoder class (a Django ``JSONField``). Asked
    for an indented, sorted or ``default``-extended text, it writes what ``json`` writes."""

    def encode(self, o: Any) -> str:
        if self.indent is None and not self.sort_keys and "default" not in self.__dict__:
            return dumps(o)
        return super().encode(o)
