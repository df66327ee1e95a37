"""Tool parameter schemas: JSON Schema (internal) <-> Gemini's ``Schema``, an OpenAPI 3.0 subset.

``functionDeclarations[].parameters`` takes only the OpenAPI subset Gemini documents (``SUPPORTED``), so sending a
JSON Schema changes it, and every change is reported in one note per tool:

* ``type`` is written in Gemini's enum case (``OBJECT``, ``STRING``...); a type array ``["string", "null"]`` becomes
  ``type: STRING`` with ``nullable: true``; several non-null types become an ``anyOf`` of one schema per type.
* ``$ref`` is not supported: local references (``#/$defs/X``, ``#/definitions/X``) are inlined; a recursive one is
  cut to ``{"type": "OBJECT"}`` where it recurses; any other reference is replaced by an unconstrained string.
* ``oneOf`` becomes ``anyOf`` (Gemini has no exclusive choice); ``allOf`` is merged into one schema (properties and
  required lists joined, the first value of any other keyword kept); ``const`` becomes a one-value ``enum``.
* ``enum`` takes strings only: an enum with other values is dropped.
* ``format`` takes only what Gemini documents (``FORMATS``: ``enum`` and ``date-time`` for strings, ``float``,
  ``double``, ``int32``, ``int64`` for numbers); the API refuses a request with any other (``email``, ``uri``,
  ``date``...), so those are dropped.
* Everything else outside the subset (``additionalProperties``, ``$schema``, ``$defs``, ``patternProperties``,
  ``exclusiveMinimum``, ``multipleOf``, ``uniqueItems``, ``not``, ``if``/``then``/``else``...) is dropped.

Importing goes the other way: types in lower case, ``nullable: true`` on a single type back to a type array, the
rest as it is (Gemini keywords such as ``propertyOrdering`` or ``example`` stay; they are harmless in a JSON Schema).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

SUPPORTED = frozenset(
    {"type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties"}
    | {"required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf"}
    | {"propertyOrdering", "default", "items", "minimum", "maximum"}
)
FORMATS = frozenset({"enum", "date-time", "float", "double", "int32", "int64"})
_LOCAL_REF_ROOTS = ("#/$defs/", "#/definitions/")
_MAX_INLINE_DEPTH = 16  # a chain of references deeper than this is cut like a recursive one


@dataclass
class SchemaContext:
    """What one tool's conversion needs: its definitions, the references being inlined, and what changed."""

    definitions: dict[str, Any]
    inlining: list[str] = field(default_factory=list)
    changes: dict[str, list[str]] = field(default_factory=dict)  # change -> the paths where it happened

    def change(self, what: str, path: str) -> None:
        paths = self.changes.setdefault(what, [])
        if path not in paths:
            paths.append(path)

    def summary(self) -> str:
        return "; ".join(f"{what} (at {_paths(paths)})" for what, paths in self.changes.items())


def _paths(paths: list[str]) -> str:
    shown = ", ".join(paths[:4])
    return f"{shown}, …" if len(paths) > 4 else shown


# --- JSON Schema -> Gemini ---------------------------------------------------------------------------------------


def to_gemini(schema: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The Gemini schema for a JSON Schema, and a summary of what had to change ("" when nothing did)."""
    definitions: dict[str, Any] = {}
    for key in ("definitions", "$defs"):
        if isinstance(schema.get(key), dict):
            definitions.update({f"#/{key}/{name}": value for name, value in schema[key].items()})
    context = SchemaContext(definitions)
    return _convert(schema, "$", context), context.summary()


def _convert(node: Any, path: str, context: SchemaContext) -> dict[str, Any]:
    if node is True or node == {}:
        return {}
    if not isinstance(node, dict):
        context.change(f"a non-object schema ({json.dumps(node)[:20]}) dropped", path)
        return {}
    if "$ref" in node:
        return _reference(node, path, context)
    out: dict[str, Any] = {}
    for key, value in node.items():
        _keyword(out, key, value, path, context)
    return out


def _keyword(out: dict[str, Any], key: str, value: Any, path: str, context: SchemaContext) -> None:
    if key == "type":
        out.update(_type(value, path, context))
    elif key == "properties" and isinstance(value, dict):
        out["properties"] = {name: _convert(sub, f"{path}.{name}", context) for name, sub in value.items()}
    elif key == "items":
        if isinstance(value, list):
            context.change("tuple `items` reduced to its first schema", path)
            value = value[0] if value else {}
        out["items"] = _convert(value, f"{path}[]", context)
    elif key in ("anyOf", "oneOf") and isinstance(value, list):
        if key == "oneOf":
            context.change("`oneOf` sent as `anyOf`", path)
        out["anyOf"] = [*out.get("anyOf", []), *(_convert(sub, f"{path}|{n}", context) for n, sub in enumerate(value))]
    elif key == "allOf" and isinstance(value, list):
        context.change("`allOf` merged into one schema", path)
        for n, sub in enumerate(value):
            _merge(out, _convert(sub, f"{path}&{n}", context))
    elif key == "const":
        _const(out, value, path, context)
    elif key == "enum":
        _enum(out, value, path, context)
    elif key == "format" and value not in FORMATS:
        context.change(f"`format: {json.dumps(value)}` dropped, a format Gemini does not take", path)
    elif key in SUPPORTED:
        out[key] = value
    else:
        context.change(f"`{key}` dropped", path)


def _type(value: Any, path: str, context: SchemaContext) -> dict[str, Any]:
    if isinstance(value, str):
        return {"type": value.upper()}
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        context.change("an unreadable `type` dropped", path)
        return {}
    kinds = [item.upper() for item in value if item != "null"]
    out: dict[str, Any] = {}
    if len(kinds) == 1:
        out["type"] = kinds[0]
    elif kinds:
        out["anyOf"] = [{"type": kind} for kind in kinds]
    else:
        out["type"] = "NULL"
    if "null" in value and kinds:
        out["nullable"] = True
    context.change(f"type {json.dumps(value)} sent as " + ("`nullable`" if len(kinds) == 1 else "`anyOf`"), path)
    return out


def _reference(node: dict[str, Any], path: str, context: SchemaContext) -> dict[str, Any]:
    ref = node["$ref"]
    siblings = {key: value for key, value in node.items() if key != "$ref"}
    if not isinstance(ref, str) or ref not in context.definitions:
        context.change("an unresolvable `$ref` replaced by a string", path)
        return {"type": "STRING", **_convert(siblings, path, context)} if siblings else {"type": "STRING"}
    if ref in context.inlining or len(context.inlining) >= _MAX_INLINE_DEPTH:
        context.change("a recursive `$ref` cut to an object", path)
        return {"type": "OBJECT"}
    context.change("`$ref` inlined", path)
    context.inlining.append(ref)
    try:
        resolved = _convert(context.definitions[ref], path, context)
    finally:
        context.inlining.pop()
    return {**resolved, **_convert(siblings, path, context)} if siblings else resolved


def _merge(out: dict[str, Any], extra: dict[str, Any]) -> None:
    for key, value in extra.items():
        if key == "properties" and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        elif key == "required" and isinstance(out.get(key), list):
            out[key] = [*out[key], *(name for name in value if name not in out[key])]
        else:
            out.setdefault(key, value)


def _const(out: dict[str, Any], value: Any, path: str, context: SchemaContext) -> None:
    if isinstance(value, str):
        out["enum"] = [value]
        context.change("`const` sent as a one-value `enum`", path)
    else:
        context.change("a non-string `const` dropped", path)


def _enum(out: dict[str, Any], value: Any, path: str, context: SchemaContext) -> None:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        out["enum"] = value
    else:
        context.change("an `enum` with non-string values dropped (Gemini enums are strings)", path)


# --- Gemini -> JSON Schema ---------------------------------------------------------------------------------------


def from_gemini(node: Any) -> Any:
    """A Gemini schema as JSON Schema: types in lower case, ``nullable: true`` on one type as a type array."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, str):
            out["type"] = value.lower()
        elif key == "properties" and isinstance(value, dict):
            out["properties"] = {name: from_gemini(sub) for name, sub in value.items()}
        elif key == "items":
            out["items"] = from_gemini(value)
        elif key == "anyOf" and isinstance(value, list):
            out["anyOf"] = [from_gemini(sub) for sub in value]
        else:
            out[key] = value
    if out.get("nullable") is True and isinstance(out.get("type"), str) and out["type"] != "null":
        del out["nullable"]
        out["type"] = [out["type"], "null"]
    return out
