"""Checking tool definitions and tool-call arguments against JSON Schema, with messages a person can act on."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from genson import SchemaBuilder
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing.exceptions import Unresolvable

from playground.tools import limits
from playground.tools.schema_walk import LOCAL_ONLY, hazards
from providers.jsonsafe import JSONInputError

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@dataclass(frozen=True, slots=True)
class Problem:
    path: str  # JSON Pointer-ish location, "" for the whole document
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


def check_tool_name(name: str) -> list[Problem]:
    if TOOL_NAME.match(name):
        return []
    return [Problem("name", "Use 1 to 64 letters, digits, underscores or hyphens (providers reject anything else).")]


def _pointer(parts: Any) -> str:
    return "/" + "/".join(str(p) for p in parts) if parts else ""


JSON_TYPES = "string, number, integer, boolean, object, array, null"


def _message(error: ValidationError) -> str:
    # The meta-schema's anyOf on "type" gives "... is not valid under any of the given schemas": say what is allowed.
    if error.validator == "anyOf" and error.absolute_path and error.absolute_path[-1] == "type":
        return f"{error.instance!r} is not a JSON Schema type (use one of: {JSON_TYPES})."
    return error.message


def _problems(errors: list[ValidationError]) -> list[Problem]:
    ordered = sorted(errors, key=lambda e: (list(map(str, e.absolute_path)), e.message))
    return [Problem(_pointer(e.absolute_path), _message(e)) for e in ordered]


def check_schema(schema: Any) -> list[Problem]:
    """Validate against the JSON Schema meta-schema, then what tool calling needs on top (an object at the root),
    then what would break checking a call (references that loop or point nowhere, patterns Python cannot read)."""
    if not isinstance(schema, dict):
        return [Problem("", "The parameters schema must be a JSON object.")]
    if too_deep := limits.depth_refusal(schema):
        # First: everything below walks the schema recursively (the validator, portability, json.dumps).
        return [Problem("", too_deep)]
    meta = Draft202012Validator(Draft202012Validator.META_SCHEMA)
    problems = _problems(list(meta.iter_errors(schema)))
    # The walk reads keywords as the meta-schema shapes them, so only a schema that passed it is walked.
    walked = [] if problems else [Problem(f.path, f.message) for f in hazards(schema)]
    if schema.get("type") != "object":
        problems.append(Problem("/type", 'Tool parameters must be "type": "object" at the top level.'))
    return problems + walked


def check_schema_limits(schema: Any) -> list[Problem]:
    """The depth and size limits for a schema that arrived already parsed (inside an import), before check_schema."""
    if too_deep := limits.depth_refusal(schema):
        return [Problem("", too_deep)]
    size = len(json.dumps(schema, ensure_ascii=False, separators=(",", ":")).encode())
    refusal = limits.size_refusal("The schema", size, limits.schema_bytes())
    return [Problem("", refusal)] if refusal else []


def parse_schema_text(text: str) -> tuple[Any, list[Problem]]:
    """The schema typed in the editor, refused by size before it is parsed and by depth before it is walked."""
    if not text.strip():
        return {"type": "object", "properties": {}}, []
    try:
        schema = limits.read_json(text, what="The schema", limit=limits.schema_bytes())
    except JSONInputError as exc:
        return None, [Problem("", str(exc))]
    return schema, check_schema(schema)


@dataclass(frozen=True, slots=True)
class ArgumentCheck:
    ok: bool
    value: Any  # the parsed arguments, or None when they are not JSON
    problems: list[Problem]

    def summary(self) -> str:
        return "; ".join(str(p) for p in self.problems)


# What a schema saved before check_schema refused these can still raise while validating, caught so a conversation
# gets a problem to show instead of an exception.
_UNUSABLE = (RecursionError, Unresolvable, re.error)


def _validator(schema: Any) -> Draft202012Validator:
    return Draft202012Validator(schema, registry=LOCAL_ONLY)


def _unusable(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        reason = "it refers to itself, or nests, too deeply"
    elif isinstance(exc, Unresolvable):
        reason = f"the reference {exc.ref!r} points nowhere in it"
    else:
        reason = f"a pattern is not a regular expression Python can use ({exc})"
    return f"The tool's schema cannot check these arguments: {reason}."


def check_arguments(schema: dict[str, Any] | None, arguments: str) -> ArgumentCheck:
    """Parse a call's argument text and validate it against the tool's schema."""
    try:
        value = json.loads(arguments) if arguments.strip() else {}
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"  # as the schema editor says it (providers.jsonsafe)
        return ArgumentCheck(False, None, [Problem("", f"Arguments are not valid JSON: {exc.msg} ({where}).")])
    except (RecursionError, ValueError):  # nested past the recursion limit, or an integer past the digit limit
        return ArgumentCheck(False, None, [Problem("", "Arguments are JSON too deep or too long to read.")])
    if not isinstance(value, dict):
        return ArgumentCheck(False, value, [Problem("", "Arguments must be a JSON object.")])
    if not schema:
        return ArgumentCheck(True, value, [])
    try:
        problems = _problems(list(_validator(schema).iter_errors(value)))
    except _UNUSABLE as exc:
        problems = [Problem("", _unusable(exc))]
    return ArgumentCheck(not problems, value, problems)


def schema_from_example(example: Any) -> dict[str, Any]:
    """A starting schema from example arguments: every key seen is typed and required, to refine by hand."""
    builder = SchemaBuilder(schema_uri=False)
    builder.add_object(example)
    schema: dict[str, Any] = builder.to_schema()
    return schema


def portability(schema: dict[str, Any], *, strict: bool) -> list[Problem]:
    """What each provider would object to: OpenAI strict mode rules, and keywords some targets ignore."""
    problems: list[Problem] = []
    if strict:
        problems.extend(_strict_problems(schema, ""))
    for keyword in ("$ref", "oneOf", "allOf", "not", "if"):
        if keyword in json.dumps(schema):
            problems.append(Problem("", f"`{keyword}` is not supported by every provider's schema subset."))
    return problems


def _strict_problems(node: dict[str, Any], path: str) -> list[Problem]:
    if node.get("type") != "object":
        items = node.get("items")
        return _strict_problems(items, f"{path}/items") if isinstance(items, dict) else []
    problems: list[Problem] = []
    properties: dict[str, Any] = node.get("properties", {})
    missing = sorted(set(properties) - set(node.get("required", [])))
    if missing:
        problems.append(
            Problem(path, f"strict mode needs every property in `required` (missing: {', '.join(missing)}).")
        )
    if node.get("additionalProperties") is not False:
        problems.append(Problem(path, "strict mode needs `additionalProperties: false`."))
    for name, child in properties.items():
        if isinstance(child, dict):
            problems.extend(_strict_problems(child, f"{path}/properties/{name}"))
    return problems


@dataclass(frozen=True, slots=True)
class FieldState:
    name: str
    state: str  # "ok" | "invalid" | "streaming" | "missing"
    message: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "state": self.state, "message": self.message}


def field_states(schema: dict[str, Any] | None, partial: str) -> list[FieldState]:
    """Top-level fields of arguments still streaming: which are settled and valid, arriving, invalid or missing.

    Two partial parses: one lets any value be unfinished, the other only objects, so a string or number still
    being written is absent from the second. A field whose two values differ is still arriving.
    """
    from partial_json_parser import Allow, loads  # only the live check needs it

    try:
        everything, settled = loads(partial), loads(partial, Allow.OBJ)
    except Exception:  # the text is not a JSON prefix at all; the final check will say why
        return []
    if not isinstance(everything, dict) or not isinstance(settled, dict):
        return []
    schema = schema or {}
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    names = [n for n in properties if n in everything or n in required] + [n for n in everything if n not in properties]
    root = _validator(schema)  # a property's `$ref` resolves against the whole schema, as in the final check
    states = [_field_state(n, everything, settled, properties, root) for n in names]
    if everything and _last_value_open(partial):
        # The last field's object or array is still being written: it cannot be judged yet.
        last = list(everything)[-1]
        states = [FieldState(f.name, "streaming") if f.name == last else f for f in states]
    return states


def _last_value_open(partial: str) -> bool:
    """Whether the text ends inside a nested object or array (depth > 1 outside strings)."""
    depth, in_string, escaped = 0, False, False
    for char in partial:
        if in_string:
            escaped, in_string = (False, in_string) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
    return depth > 1


def _field_state(
    name: str,
    everything: dict[str, Any],
    settled: dict[str, Any],
    properties: dict[str, Any],
    root: Draft202012Validator,
) -> FieldState:
    if name not in everything:
        return FieldState(name, "missing", "required, not sent yet")
    if name not in settled or settled[name] != everything[name]:
        return FieldState(name, "streaming")
    if name not in properties:
        if root.schema.get("additionalProperties") is False:
            return FieldState(name, "invalid", "not in the schema")
        return FieldState(name, "ok")
    try:
        errors = sorted(root.evolve(schema=properties[name]).iter_errors(everything[name]), key=lambda e: e.message)
    except _UNUSABLE as exc:
        return FieldState(name, "invalid", _unusable(exc))
    return FieldState(name, "invalid", errors[0].message) if errors else FieldState(name, "ok")
