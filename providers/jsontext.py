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

``loads`` reads each chunk of a provider's stream: the value ``json.loads`` gives, or its error, in about half its
time for a chunk of a few hundred bytes.
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
# orjson reads an integer beyond 64 bits as a float, silently: such text goes to json, which keeps it exact. Only a
# run of 19 digits can hold one; mapping every byte to "0" (a digit) or " " finds a run in a fraction of a regex's time.
_DIGITS = bytes(48 if 48 <= byte <= 57 else 32 for byte in range(256))
_LONG_RUN = b"0" * 19


def dumps(value: Any) -> str:
    """``value`` as compact JSON text; ``TypeError`` for what neither writes (``ValueError`` for a circular one)."""
    try:
        return orjson.dumps(value, option=_OPTIONS).decode()
    except TypeError:  # orjson.JSONEncodeError: json writes it, or refuses it as it always did
        return _with_json(value)


def loads(text: str) -> Any:
    """``json.loads(text)``: the same value, or the same ``json.JSONDecodeError``, read by orjson when it can."""
    if _LONG_RUN not in text.encode("utf-8", "surrogatepass").translate(_DIGITS):
        try:
            return orjson.loads(text)
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
