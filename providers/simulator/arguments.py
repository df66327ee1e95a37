"""Tool arguments generated from a tool's JSON Schema: always valid, and realistic where the names allow.

Covers what tool schemas use in practice: ``type`` (or a list of types, null skipped), ``enum``/``const``,
``examples``, nested objects and arrays, ``required`` (always filled; optional properties included at random),
``minimum``/``maximum`` (exclusive too) and ``multipleOf``, ``minLength``/``maxLength``, ``minItems``/``maxItems``,
``uniqueItems``, ``pattern``, ``format`` (date, date-time, time, email, uri, uuid, ipv4, ipv6, hostname, duration),
``anyOf``/``oneOf`` (first non-null option), ``allOf`` (merged) and local ``$ref`` (``#/$defs/...``).
Deterministic for a given ``random.Random`` state.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass
from typing import Any

from providers.simulator import values
from providers.simulator.patterns import sample_pattern
from providers.simulator.values import Cursor, Hints

_MAX_DEPTH = 6  # recursive schemas ($ref to itself) stop here with the smallest valid value

_FORMATS: dict[str, Any] = {
    "date": lambda rng: values.iso_date(rng),
    "date-time": lambda rng: values.iso_datetime(rng),
    "time": lambda rng: f"{rng.randrange(7, 20):02d}:30:00Z",
    "email": lambda rng: values.email(rng),
    "idn-email": lambda rng: values.email(rng),
    "uri": lambda rng: f"https://example.com/{rng.choice(values.WORDS)}",
    "url": lambda rng: f"https://example.com/{rng.choice(values.WORDS)}",
    "iri": lambda rng: "https://example.com/",
    "uri-reference": lambda rng: f"/{rng.choice(values.WORDS)}",
    "hostname": lambda rng: f"{rng.choice(values.WORDS)}.example.com",
    "idn-hostname": lambda rng: "example.com",
    "ipv4": lambda rng: f"192.0.2.{rng.randrange(1, 255)}",
    "ipv6": lambda rng: f"2001:db8::{rng.randrange(1, 65535):x}",
    "uuid": lambda rng: values.uuid4(rng),
    "duration": lambda rng: f"PT{rng.randrange(1, 9)}H",
    "json-pointer": lambda rng: f"/{rng.choice(values.WORDS)}",
    "regex": lambda rng: "^[a-z]+$",
}


def generate_arguments(
    schema: dict[str, Any] | None, rng: random.Random, hints: Hints | None = None, cursor: Cursor | None = None
) -> dict[str, Any]:
    """A JSON object valid against ``schema`` (a tool's parameters); ``{}`` for a tool without parameters.

    ``cursor`` (else a fresh one over ``hints``) records which of the user's numbers were used, so the next call
    of the same reply continues with the following ones.
    """
    if not schema:
        return {}
    generator = _Generator(schema, rng, cursor or Cursor(hints or Hints()))
    value = generator.value(schema, "", 0)
    return value if isinstance(value, dict) else {}


@dataclass
class _Generator:
    root: dict[str, Any]
    rng: random.Random
    cursor: Cursor

    def value(self, schema: Any, name: str, depth: int) -> Any:
        schema = self.resolve(schema)
        if not isinstance(schema, dict):
            return None if schema is False else self.string({}, name)
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return values.pick_enum(list(schema["enum"]), self.rng, self.cursor.hints)
        if isinstance(schema.get("examples"), list) and schema["examples"]:
            return schema["examples"][0]
        option = _first_option(schema)
        if option is not None:
            return self.value({**_without_options(schema), **self.resolve(option)}, name, depth)
        return self.typed(schema, _pick_type(schema), name, depth)

    def typed(self, schema: dict[str, Any], kind: str, name: str, depth: int) -> Any:
        if kind == "object":
            return self.object(schema, depth)
        if kind == "array":
            return self.array(schema, name, depth)
        if kind in ("integer", "number"):
            return self.number(schema, name, integer=kind == "integer")
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null":
            return None
        return self.string(schema, name)

    def resolve(self, schema: Any) -> Any:
        seen = 0
        while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and seen < _MAX_DEPTH:
            target = _follow_ref(self.root, schema["$ref"])
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **rest} if isinstance(target, dict) else rest
            seen += 1
        if isinstance(schema, dict) and isinstance(schema.get("allOf"), list):
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                merged = _merge(merged, self.resolve(part))
            schema = merged
        return schema

    def object(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        properties: dict[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        out: dict[str, Any] = {}
        for key, sub in properties.items():
            include = key in required or (depth < _MAX_DEPTH and self.rng.random() < 0.5)
            if include:
                out[key] = self.value(sub, key, depth + 1)
        extra = schema.get("additionalProperties")
        if not properties and isinstance(extra, dict) and depth < _MAX_DEPTH:
            out[values.filler("", self.rng)] = self.value(extra, "", depth + 1)
        return out

    def array(self, schema: dict[str, Any], name: str, depth: int) -> list[Any]:
        low = int(schema.get("minItems", 0))
        high = int(schema.get("maxItems", max(low, 3)))
        count = low if depth >= _MAX_DEPTH else min(high, max(low, self.rng.randint(1, 3)))
        prefix = schema.get("prefixItems") or []
        items = schema.get("items", {})
        out: list[Any] = []
        attempts = 0
        while len(out) < count and attempts < count * 8:
            attempts += 1
            sub = prefix[len(out)] if len(out) < len(prefix) else items
            item = self.value(sub, _singular(name), depth + 1)
            if schema.get("uniqueItems") and item in out:
                continue
            out.append(item)
        return out

    def number(self, schema: dict[str, Any], name: str, *, integer: bool) -> int | float:
        bounds = _Bounds.of(schema, integer)
        picked = self.cursor.take_number(lambda n: bounds.accepts(n) and (not integer or float(n).is_integer()))
        if picked is None:
            low, high = values.number_range_for(name) or (1, 20)
            whole = integer or (float(low).is_integer() and float(high).is_integer())
            picked = (
                self.rng.randint(math.ceil(low), math.floor(high)) if whole else round(self.rng.uniform(low, high), 4)
            )
        result = bounds.fit(picked)
        return int(result) if integer else result

    def string(self, schema: dict[str, Any], name: str) -> str:
        fmt = schema.get("format")
        hinted = values.string_for(name, self.rng, self.cursor.hints, self.cursor) if name else None
        if isinstance(fmt, str) and fmt in _FORMATS:
            text = str(_FORMATS[fmt](self.rng))
        else:
            text = hinted or values.filler(name, self.rng)
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and not _matches(pattern, text):
            text = sample_pattern(pattern, self.rng) or text
        return _fit_length(text, schema, self.rng)


@dataclass(frozen=True)
class _Bounds:
    low: float | None
    high: float | None
    low_open: bool
    high_open: bool
    step: float | None
    integer: bool

    @classmethod
    def of(cls, schema: dict[str, Any], integer: bool) -> _Bounds:
        low, high = schema.get("minimum"), schema.get("maximum")
        x_low, x_high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
        low_open = isinstance(x_low, (int, float)) and not isinstance(x_low, bool)
        high_open = isinstance(x_high, (int, float)) and not isinstance(x_high, bool)
        return cls(
            x_low if low_open else low,
            x_high if high_open else high,
            low_open,
            high_open,
            schema.get("multipleOf"),
            integer,
        )

    def accepts(self, n: float) -> bool:
        if self.low is not None and (n < self.low or (self.low_open and n == self.low)):
            return False
        if self.high is not None and (n > self.high or (self.high_open and n == self.high)):
            return False
        return self.step is None or math.isclose(n / self.step, round(n / self.step))

    def fit(self, n: float) -> float:
        if self.accepts(n):
            return n
        unit = self.step or (1 if self.integer else 0.5)
        low = self.low if self.low is not None else (self.high - 10 * unit if self.high is not None else 0)
        start = math.ceil(low / unit) * unit
        candidate = start if start != low or not self.low_open else start + unit
        if self.high is not None and not self.accepts(candidate):
            candidate = math.floor(self.high / unit) * unit
            if self.high_open and candidate == self.high:
                candidate -= unit
        return round(candidate, 10)


def _pick_type(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        concrete = [k for k in kind if k != "null"]
        return str(concrete[0]) if concrete else "null"
    if isinstance(kind, str):
        return kind
    if "properties" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    if any(k in schema for k in ("minimum", "maximum", "multipleOf")):
        return "number"
    return "string"


def _first_option(schema: dict[str, Any]) -> Any:
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            concrete = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
            return (concrete or options)[0]
    return None


def _without_options(schema: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}


def _follow_ref(root: dict[str, Any], ref: str) -> Any:
    if not ref.startswith("#"):
        return {}  # remote references are never fetched: the simulator stays offline
    node: Any = root
    for part in ref.lstrip("#").strip("/").split("/"):
        if not part:
            continue
        key = part.replace("~1", "/").replace("~0", "~")
        node = node.get(key) if isinstance(node, dict) else None
    return node if node is not None else {}


def _merge(left: dict[str, Any], right: Any) -> dict[str, Any]:
    if not isinstance(right, dict):
        return left
    merged = {**left, **right}
    if "properties" in left or "properties" in right:
        merged["properties"] = {**(left.get("properties") or {}), **(right.get("properties") or {})}
    if "required" in left or "required" in right:
        merged["required"] = [*(left.get("required") or []), *(right.get("required") or [])]
    return merged


def _singular(name: str) -> str:
    return name[:-1] if name.endswith("s") and len(name) > 3 else name


def _matches(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return True  # a pattern Python cannot read is not ours to enforce


def _fit_length(text: str, schema: dict[str, Any], rng: random.Random) -> str:
    low = int(schema.get("minLength", 0))
    high = schema.get("maxLength")
    while len(text) < low:
        text += rng.choice(values.WORDS)
    if isinstance(high, int) and len(text) > high:
        text = text[:high]
    return text
