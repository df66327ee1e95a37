"""Refusals the simulator's validators do not model, checked on the schema a target is sent.

Each rule has a source; each returns the problems it finds, worded for a person (where, then what):

* OpenAI (Chat, Responses, strict or not): the parameters must be ``"type": "object"`` at the root ("Invalid schema
  for function ...: schema must be a JSON Schema of 'type: "object"'").
* OpenAI strict mode (Structured Outputs, "Supported schemas" in OpenAI's guide, as quoted in artifactize-core's
  ``limits.rs``): at most 10 levels of nesting, 5,000 object properties, 1,000 enum values in all, and 15,000
  characters across the values of one string enum that has more than 250 of them.
* Anthropic: ``input_schema`` must be ``"type": "object"`` ("tools.0.custom.input_schema.type: Input should be
  'object'").
* Gemini: ``format`` only where the API takes it: ``enum`` and ``date-time`` on strings, ``int32``/``int64`` on
  integers, ``float``/``double`` on numbers ("...format: only 'enum' and 'date-time' are supported for STRING type",
  google-gemini/gemini-cli#3178; the codec drops the formats Gemini takes on no type, so what is left to refuse
  is a format on the wrong type, such as ``int64`` on a string).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

MAX_DEPTH = 10
MAX_PROPERTIES = 5000
MAX_ENUM_VALUES = 1000
LARGE_ENUM = 250  # a string enum with more values than this has a length budget
MAX_LARGE_ENUM_CHARS = 15000

GEMINI_FORMATS: dict[str, tuple[str, ...]] = {
    "STRING": ("enum", "date-time"),
    "INTEGER": ("int32", "int64"),
    "NUMBER": ("float", "double"),
}

_CHILD_MAPS = ("properties", "$defs", "definitions")
_CHILD_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


def walk(node: Any, path: str = "$", depth: int = 0) -> Iterator[tuple[str, dict[str, Any], int]]:
    """Every subschema with its path (``$.address.city``, ``$.tags[]``) and how many objects hold it (itself too)."""
    if not isinstance(node, dict):
        return
    if str(node.get("type", "")).lower() == "object" or "properties" in node:
        depth += 1
    yield path, node, depth
    for key in _CHILD_MAPS:
        children = node.get(key)
        for name, child in children.items() if isinstance(children, dict) else ():
            where = f"{path}.{name}" if key == "properties" else f"{path}.{key}.{name}"
            yield from walk(child, where, depth if key == "properties" else 0)
    items = node.get("items")
    for number, child in enumerate(items if isinstance(items, list) else [items]):
        yield from walk(child, f"{path}[]" if not isinstance(items, list) else f"{path}[{number}]", depth)
    for key in _CHILD_LISTS:
        branches = node.get(key)
        for number, child in enumerate(branches if isinstance(branches, list) else []):
            yield from walk(child, f"{path}<{key} {number}>", depth)


def root_object(schema: Any, who: str) -> list[str]:
    kind = schema.get("type") if isinstance(schema, dict) else None
    if kind == "object":
        return []
    return [f'{who} needs "type": "object" at the root of the parameters (got {kind!r})']


def strict_limits(schema: Any) -> list[str]:
    nodes = list(walk(schema))
    problems = []
    deepest = max((depth for _, _, depth in nodes), default=0)
    if deepest > MAX_DEPTH:
        problems.append(f"{deepest} levels of nesting: strict mode allows at most {MAX_DEPTH}")
    properties = sum(len(node.get("properties") or {}) for _, node, _ in nodes)
    if properties > MAX_PROPERTIES:
        problems.append(f"{properties} object properties: strict mode allows at most {MAX_PROPERTIES}")
    enums = [(path, node["enum"]) for path, node, _ in nodes if isinstance(node.get("enum"), list)]
    values = sum(len(values) for _, values in enums)
    if values > MAX_ENUM_VALUES:
        problems.append(f"{values} enum values in all: strict mode allows at most {MAX_ENUM_VALUES}")
    for path, enum in enums:
        strings = [value for value in enum if isinstance(value, str)]
        length = sum(len(value) for value in strings)
        if len(strings) > LARGE_ENUM and length > MAX_LARGE_ENUM_CHARS:
            problems.append(
                f"`{path}`: {len(strings)} string values of {length} characters in all: strict mode allows "
                f"{MAX_LARGE_ENUM_CHARS} characters in an enum of more than {LARGE_ENUM} values"
            )
    return problems


def gemini_formats(schema: Any) -> list[str]:
    """On the schema as sent to Gemini (types in upper case)."""
    problems = []
    for path, node, _ in walk(schema):
        fmt, kind = node.get("format"), str(node.get("type", "")).upper()
        if fmt is None:
            continue
        allowed = GEMINI_FORMATS.get(kind, ())
        if fmt not in allowed:
            takes = f"only {' and '.join(repr(a) for a in allowed)}" if allowed else "none"
            problems.append(f"`{path}`: format {fmt!r} is refused ({takes} for {kind or 'an untyped schema'})")
    return problems
