"""JSON Schema -> OpenAI's strict (Structured Outputs) subset, with one note per change.

The rules followed are those of OpenAI's "Structured model outputs" guide, section "Supported schemas"
(https://platform.openai.com/docs/guides/structured-outputs#supported-schemas), as quoted in pydantic/pydantic-ai#2420
(Aug 2025) and, for the "not yet supported" keywords, in ai-dynamo/dynamo#15153 and mastra-ai/mastra#23321:

* every object lists all its properties in ``required`` and has ``additionalProperties: false``; an optional property
  is emulated by accepting ``null`` (``"type": ["string", "null"]``, or ``anyOf`` with ``{"type": "null"}``);
* kept: ``type``, ``properties``, ``required``, ``additionalProperties``, ``items``, ``enum``, ``const``, ``anyOf``,
  ``$ref``, ``$defs``/``definitions``, ``description``, ``title``; strings ``pattern`` and ``format`` (only the
  formats listed below); numbers ``multipleOf``, ``minimum``, ``maximum``, ``exclusiveMinimum``,
  ``exclusiveMaximum``; arrays ``minItems``, ``maxItems``;
* everything else is removed: ``minLength``/``maxLength``, ``default``, ``examples``, ``uniqueItems``,
  ``contains``, ``patternProperties``, ``propertyNames``, ``minProperties``/``maxProperties``, ``not``,
  ``if``/``then``/``else``, ``dependentRequired``/``dependentSchemas``, ``unevaluated*``, ``$schema``...;
* ``oneOf`` is refused outright ("'oneOf' is not permitted"), so it becomes ``anyOf``; ``allOf`` is merged.

Fine-tuned models refuse more (string lengths, patterns, formats, numeric and array bounds); that narrower profile is
not applied here. Size limits (100 properties, nesting depth, enum sizes) are not checked either.
"""

from __future__ import annotations

import copy
from typing import Any

from providers.translation import Translation
from providers.types import ChatRequest, ToolSpec

_GENERAL = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref"}
    | {"$defs", "definitions", "description", "title"}
)
_BOUNDS = frozenset(
    {"pattern", "format", "multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
    | {"minItems", "maxItems"}
)
ALLOWED: frozenset[str] = _GENERAL | _BOUNDS
FORMATS: frozenset[str] = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
# What an untyped schema ({} or a description only) becomes: strict mode has no "any value".
_ANY_PRIMITIVE: list[dict[str, Any]] = [
    {"type": "string"},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "null"},
]
_TYPING_KEYS = ("type", "anyOf", "$ref", "enum", "const")


def strict_schema(schema: Any, *, where: str = "schema") -> Translation[dict[str, Any]]:
    """A strict copy of ``schema`` (never mutated); ``where`` prefixes every note (``tools[get_weather]``)."""
    notes: list[str] = []
    root = copy.deepcopy(schema) if isinstance(schema, dict) else {}
    if not isinstance(schema, dict) or not schema:
        notes.append(f"{where}: empty schema sent as an object without properties")
    if "type" not in root and not any(key in root for key in ("anyOf", "$ref", "oneOf", "allOf")):
        root["type"] = "object"
    collected = _Notes(where, notes)
    _walk(root, "(root)", collected)
    if collected.closed:
        notes.append(f"{where}: additionalProperties: false set on {collected.closed} object(s)")
    if root.get("type") != "object":
        notes.append(f"{where}: the root is not an object; strict mode needs one (left as it is)")
    return Translation(root, notes)


def strict_request(request: ChatRequest) -> Translation[ChatRequest]:
    """Every tool that says ``strict: true`` gets a strict schema; the other tools go unchanged."""
    notes: list[str] = []
    tools: list[ToolSpec] = []
    for tool in request.get("tools") or []:
        function = tool.get("function") or {}
        if function.get("strict") is not True:
            tools.append(tool)
            continue
        name = function.get("name", "?")
        translated = strict_schema(function.get("parameters") or {}, where=f"tools[{name}]")
        notes.extend(translated.notes)
        tools.append({**tool, "function": {**function, "parameters": translated.value}})
    out: ChatRequest = dict(request)  # type: ignore[assignment]
    if "tools" in request:
        out["tools"] = tools
    return Translation(out, notes)


def restore_optional(arguments: Any, schema: Any) -> Any:
    """Arguments made under a strict schema, with the nulls dropped that stand for an optional property left out.

    Strict mode makes the model send ``null`` where the original schema had an optional property; a tool that
    validates against its original schema would refuse that null. ``schema`` is the original (non-strict) schema.
    """
    if isinstance(arguments, list) and isinstance(schema, dict) and isinstance(schema.get("items"), dict):
        return [restore_optional(item, schema["items"]) for item in arguments]
    if not isinstance(arguments, dict) or not isinstance(schema, dict):
        return arguments
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        sub = properties.get(key)
        if value is None and key not in required and isinstance(sub, dict) and not accepts_null(sub):
            continue
        out[key] = restore_optional(value, sub)
    return out


def accepts_null(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return "enum" not in schema or None in schema["enum"]
    if "const" in schema:
        return schema["const"] is None
    return any(accepts_null(branch) for branch in schema.get("anyOf") or [])


class _Notes:
    def __init__(self, where: str, notes: list[str]) -> None:
        self.where, self.notes = where, notes
        self.closed = 0  # objects given additionalProperties: false: one summary note, not one per object

    def add(self, path: str, text: str) -> None:
        self.notes.append(f"{self.where}: `{path}` {text}")


def _walk(node: dict[str, Any], path: str, notes: _Notes) -> None:
    """Make ``node`` strict in place (it is already a private copy), then its children."""
    _merge_all_of(node, path, notes)
    if "oneOf" in node:
        node["anyOf"] = [*node.get("anyOf", []), *node.pop("oneOf")]
        notes.add(path, "oneOf sent as anyOf (strict mode refuses oneOf)")
    _openapi_nullable(node, path, notes)
    _drop_unsupported(node, path, notes)
    if "properties" in node and "type" not in node:
        node["type"] = "object"
        notes.add(path, 'typed "object" (it has properties)')
    if not any(key in node for key in _TYPING_KEYS):
        node["anyOf"] = copy.deepcopy(_ANY_PRIMITIVE)
        notes.add(path, "has no type; sent as string, number, boolean or null (strict mode has no 'any')")
    _walk_children(node, path, notes)
    if _is_object(node):  # after the children: a child that became nullable on its own is only made required
        _strict_object(node, path, notes)


def _walk_children(node: dict[str, Any], path: str, notes: _Notes) -> None:
    for name, child in (node.get("properties") or {}).items():
        if isinstance(child, dict):
            _walk(child, _join(path, name), notes)
    items = node.get("items")
    if isinstance(items, list):  # tuple form: strict mode has no prefixItems
        node["items"] = items = {"anyOf": items}
        notes.add(path, "tuple items sent as an anyOf of the item schemas")
    if isinstance(items, dict):
        _walk(items, f"{path}[]", notes)
    for number, branch in enumerate(node.get("anyOf") or []):
        if isinstance(branch, dict):
            _walk(branch, f"{path}<anyOf {number}>", notes)
    for keyword in ("$defs", "definitions"):
        for name, definition in (node.get(keyword) or {}).items():
            if isinstance(definition, dict):
                _walk(definition, f"{keyword}.{name}", notes)


def _strict_object(node: dict[str, Any], path: str, notes: _Notes) -> None:
    properties = node.setdefault("properties", {})
    extra = node.get("additionalProperties")
    if extra is not False:
        if extra is not None:  # said on purpose: worth its own note (an absent one is counted in the summary)
            notes.add(path, "can no longer hold keys beyond its properties (additionalProperties: false)")
        else:
            notes.closed += 1
        node["additionalProperties"] = False
    required = [name for name in node.get("required") or [] if name in properties]
    unknown = [name for name in node.get("required") or [] if name not in properties]
    if unknown:
        notes.add(path, f"required names without a property dropped: {', '.join(map(str, unknown))}")
    for name, child in properties.items():
        if name in required:
            continue
        if isinstance(child, dict) and accepts_null(child):
            notes.add(_join(path, name), "made required (it already accepts null)")
        else:
            properties[name] = _nullable(child if isinstance(child, dict) else {})
            notes.add(_join(path, name), "made nullable and required")
    node["required"] = list(properties)


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """The same schema, also accepting null: a type list where the schema has a plain type, else an anyOf."""
    kind = schema.get("type")
    if "anyOf" in schema and set(schema) <= {"anyOf", "description", "title"}:
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    if kind is None or "const" in schema or "$ref" in schema or "anyOf" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    out = {**schema, "type": [kind, "null"] if isinstance(kind, str) else [*kind, "null"]}
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]  # else the enum itself would refuse the null
    return out


def _merge_all_of(node: dict[str, Any], path: str, notes: _Notes) -> None:
    parts = node.pop("allOf", None)
    if parts is None:
        return
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        _merge_all_of(part, path, notes)
        for key, value in part.items():
            if key == "properties":
                node["properties"] = {**node.get("properties", {}), **value}
            elif key == "required":
                known = node.get("required", [])
                node["required"] = [*known, *(name for name in value if name not in known)]
            else:
                node.setdefault(key, value)  # the schema's own keywords win over its parts'
    notes.add(path, "allOf merged into one schema (strict mode refuses allOf)")


def _openapi_nullable(node: dict[str, Any], path: str, notes: _Notes) -> None:
    if "nullable" not in node:
        return
    if node.pop("nullable") is True and not accepts_null(node):
        node.update(_nullable(dict(node)))
    notes.add(path, 'OpenAPI "nullable" sent as a null type')


def _drop_unsupported(node: dict[str, Any], path: str, notes: _Notes) -> None:
    removed = [key for key in node if key not in ALLOWED]
    fmt = node.get("format")
    if fmt is not None and fmt not in FORMATS:
        removed.append("format")
        notes.add(path, f"format {fmt!r} removed (strict mode supports only {', '.join(sorted(FORMATS))})")
    for key in removed:
        node.pop(key, None)
    dropped = [key for key in removed if key != "format"]
    if dropped:
        notes.add(path, f"{', '.join(dropped)} removed (not supported in strict mode)")


def _is_object(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind)


def _join(path: str, name: str) -> str:
    return name if path == "(root)" else f"{path}.{name}"
