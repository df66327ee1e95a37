"""Compact JSON text for the hot paths: orjson where it can, the standard library where it cannot, one result.

Every frame a socket gets and every raw event saved is encoded here, thousands of times a second while chats
stream; orjson writes a message of frames in about a seventh of ``json.dumps``'s time (docs/performance.md).

What it writes reads back as ``json.dumps(value, separators=(",", ":"))`` would, in a slightly different form:
characters outside ASCII as UTF-8 rather than ``\\u`` escapes, a float in its shortest form (``1e-7``, not
``1e-07``). What orjson would write its own way or refuses (dataclasses, dates, subclasses of ``dict`` and
``list``, integers beyond 64 bits, keys that are not text, lone surrogates, nesting over 254) goes to ``json``,
which writes it as it always did or refuses it with ``TypeError``. Three kinds of value differ from ``json``
alone, alike whichever of the two writes them: a float that is not finite is written ``null`` (``json`` wrote
``NaN``, which is not JSON: a browser refuses the whole message), a UUID as its text and an ``Enum`` member as its
value (``json`` refused both, but for ``str`` and ``int`` enums, which it wrote the same way).

``loads`` reads each chunk of a provider's stream: the value ``json.loads`` gives, types included, or its error, in
a little over half its time for a chunk of a few hundred bytes. Text that orjson would read otherwise (an integer
beyond 64 bits, nesting deeper than json's recursion allows, ``NaN``, a lone surrogate) is json's to read.
"""

from __future__ import annotations

import enum
import json
import math
import uuid
from typing import Any

import orjson

_OPTIONS = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS
_COMPACT = (",", ":")
# Text that orjson would read otherwise than json goes to json. Two kinds, found by the text's shape: every byte
# mapped to "0" (a digit), "[" (an opening bracket or brace) or " ", in a fraction of a regex's time.
# - A run of 19 digits: it may hold an integer beyond 64 bits, which orjson reads as a float, silently.
# - Many containers: orjson reads 1,024 levels deep, json only as deep as the interpreter's recursion limit allows
#   from where it is called (RecursionError). Fewer than _FEW_CONTAINERS nest too shallow for either to refuse.
_SHAPE = bytes(48 if 48 <= byte <= 57 else 91 if byte in b"[{" else 32 for byte in range(256))
_LONG_RUN = b"0" * 19
_FEW_CONTAINERS = 256


def dumps(value: Any) -> str:
    """``value`` as compact JSON text; ``TypeError`` for what neither writes (``ValueError`` for a circular one)."""
    try:
        return orjson.dumps(value, option=_OPTIONS).decode()
    except TypeError:  # orjson.JSONEncodeError: json writes it, or refuses it as it always did
        return _with_json(value)


def loads(text: str) -> Any:
    """``json.loads(text)``: the same value, or the same error, read by orjson when it can."""
    encoded = text.encode("utf-8", "surrogatepass")
    shape = encoded.translate(_SHAPE)
    few = len(encoded) < 2 * _FEW_CONTAINERS or shape.count(b"[") < _FEW_CONTAINERS  # each container takes 2 bytes
    if _LONG_RUN not in shape and few:
        try:
            # The bytes, not the text: given a str, orjson keeps its UTF-8 copy on it for as long as it lives, and a
            # stream's texts live as long as their round trip (its raw events).
            return orjson.loads(encoded)
        except orjson.JSONDecodeError:
            pass  # NaN, 1e999, a lone surrogate, invalid JSON: json reads it as it always did, or says why not
    return json.loads(text)


def _with_json(value: Any) -> str:
    try:
        return json.dumps(value, separators=_COMPACT, default=_as_orjson_writes, allow_nan=False)
    except ValueError as exc:
        if "float" not in str(exc):  # "Circular reference detected"
            raise
    # A NaN or an infinity somewhere, beside what orjson refused: null, as orjson writes it. Rare enough to walk for.
    return json.dumps(_finite(value), separators=_COMPACT, default=_as_orjson_writes)


def _as_orjson_writes(value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


class CompactEncoder(json.JSONEncoder):
    """``dumps`` as a ``json.JSONEncoder``, for code that takes an encoder class (a Django ``JSONField``, which
    gives it no options). Asked to indent, sort, skip keys, refuse ``NaN`` or extend ``default``, it is ``json``'s."""

    def encode(self, o: Any) -> str:
        if self._plain():
            return dumps(o)
        return super().encode(o)

    def _plain(self) -> bool:
        extended = "default" in vars(self) or type(self).default is not json.JSONEncoder.default
        return self.indent is None and not (self.sort_keys or self.skipkeys or extended) and self.allow_nan
