"""strict_schema / strict_request: JSON Schema -> OpenAI's strict subset, every change noted, input never touched."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from providers import openai_chat
from providers.strategies import accepts_null, restore_optional, strict_request, strict_schema

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Written out again here (not imported) so the check does not share a mistake with the code under test.
ALLOWED = {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "description",
    "title",
    "pattern",
    "format",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
}
FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}


def strict_violations(node: Any, path: str = "#") -> list[str]:
    """What OpenAI's strict mode would refuse in ``node`` (shared with the structured tests)."""
    if not isinstance(node, dict):
        return [f"{path}: not a schema object"]
    problems = [f"{path}: keyword {key}" for key in node if key not in ALLOWED]
    if "format" in node and node["format"] not in FORMATS:
        problems.append(f"{path}: format {node['format']}")
    if not any(key in node for key in ("type", "anyOf", "$ref", "enum", "const")):
        problems.append(f"{path}: untyped")
    kind = node.get("type")
    if kind == "object" or (isinstance(kind, list) and "object" in kind):
        if node.get("additionalProperties") is not False:
            problems.append(f"{path}: additionalProperties is not false")
        if set(node.get("required", [])) != set(node.get("properties", {})):
            problems.append(f"{path}: required is not every property")
    for name, child in (node.get("properties") or {}).items():
        problems.extend(strict_violations(child, f"{path}/properties/{name}"))
    if "items" in node:
        problems.extend(strict_violations(node["items"], f"{path}/items"))
    for number, branch in enumerate(node.get("anyOf") or []):
        problems.extend(strict_violations(branch, f"{path}/anyOf/{number}"))
    for keyword in ("$defs", "definitions"):
        for name, child in (node.get(keyword) or {}).items():
            problems.extend(strict_violations(child, f"{path}/{keyword}/{name}"))
    return problems


def test_optional_properties_become_nullable_and_required() -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
        "required": ["city"],
    }
    result = strict_schema(schema, where="tools[get_weather]")
    assert result.value == {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": ["string", "null"], "enum": ["c", "f", None]}},
        "required": ["city", "unit"],
        "additionalProperties": False,
    }
    assert "tools[get_weather]: `unit` made nullable and required" in result.notes
    assert "tools[get_weather]: additionalProperties: false set on 1 object(s)" in result.notes


def test_nested_objects_and_arrays_are_made_strict_all_the_way_down() -> None:
    schema = {
        "type": "object",
        "properties": {
            "trip": {
                "type": "object",
                "properties": {
                    "stops": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"name": {"type": "string"}, "days": {"type": "integer"}},
                        },
                    }
                },
                "required": ["stops"],
            }
        },
        "required": ["trip"],
    }
    result = strict_schema(schema)
    stop = result.value["properties"]["trip"]["properties"]["stops"]["items"]
    assert stop["required"] == ["name", "days"]
    assert stop["properties"]["days"]["type"] == ["integer", "null"]
    assert stop["additionalProperties"] is False
    assert result.value["properties"]["trip"]["additionalProperties"] is False
    assert "schema: `trip.stops[].days` made nullable and required" in result.notes
    assert strict_violations(result.value) == []


def test_nullable_forms_for_every_kind_of_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "ref": {"$ref": "#/$defs/Point"},
            "choice": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "fixed": {"const": "x"},
            "listed": {"type": ["string", "integer"]},
            "already": {"type": ["string", "null"]},
            "anything": {"description": "free"},
        },
        "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}},
    }
    result = strict_schema(schema)
    properties = result.value["properties"]
    assert properties["ref"] == {"anyOf": [{"$ref": "#/$defs/Point"}, {"type": "null"}]}
    assert properties["choice"] == {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}
    assert properties["fixed"] == {"anyOf": [{"const": "x"}, {"type": "null"}]}
    assert properties["listed"] == {"type": ["string", "integer", "null"]}
    assert properties["already"] == {"type": ["string", "null"]}
    assert properties["anything"]["anyOf"][-1] == {"type": "null"}
    assert result.value["$defs"]["Point"]["additionalProperties"] is False
    assert "schema: `already` made required (it already accepts null)" in result.notes
    assert "schema: `anything` has no type; sent as string, number, boolean or null (strict mode has no 'any')" in (
        result.notes
    )
    assert all(accepts_null(properties[name]) for name in properties)


def test_any_of_branches_and_defs_are_walked() -> None:
    schema = {
        "type": "object",
        "properties": {
            "target": {"anyOf": [{"type": "object", "properties": {"id": {"type": "string", "minLength": 3}}}]}
        },
        "required": ["target"],
        "definitions": {"Tag": {"type": "object", "properties": {"label": {"type": "string"}}}},
    }
    result = strict_schema(schema)
    branch = result.value["properties"]["target"]["anyOf"][0]
    assert branch["required"] == ["id"] and branch["additionalProperties"] is False
    assert branch["properties"]["id"] == {"type": ["string", "null"]}
    assert result.value["definitions"]["Tag"]["required"] == ["label"]
    assert "schema: `target<anyOf 0>.id` minLength removed (not supported in strict mode)" in result.notes
    assert "schema: `definitions.Tag.label` made nullable and required" in result.notes


def test_unsupported_keywords_are_removed_with_notes_and_supported_ones_kept() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "code": {"type": "string", "pattern": "^[A-Z]{3}$", "minLength": 3, "maxLength": 3, "default": "ABC"},
            "when": {"type": "string", "format": "date"},
            "site": {"type": "string", "format": "uri"},
            "count": {"type": "integer", "minimum": 1, "maximum": 10, "multipleOf": 1, "examples": [2]},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 5, "uniqueItems": True},
            "meta": {"type": "object", "patternProperties": {"^x-": {"type": "string"}}, "minProperties": 1},
        },
        "required": ["code", "when", "site", "count", "tags", "meta"],
    }
    result = strict_schema(schema, where="tools[t]")
    props = result.value["properties"]
    assert props["code"] == {"type": "string", "pattern": "^[A-Z]{3}$"}
    assert props["when"] == {"type": "string", "format": "date"}
    assert props["site"] == {"type": "string"}
    assert props["count"] == {"type": "integer", "minimum": 1, "maximum": 10, "multipleOf": 1}
    assert props["tags"] == {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 5}
    assert "$schema" not in result.value
    assert "tools[t]: `code` minLength, maxLength, default removed (not supported in strict mode)" in result.notes
    assert any(note.startswith("tools[t]: `site` format 'uri' removed") for note in result.notes)
    assert "tools[t]: `tags` uniqueItems removed (not supported in strict mode)" in result.notes
    assert "tools[t]: `meta` patternProperties, minProperties removed (not supported in strict mode)" in result.notes
    assert "tools[t]: `(root)` $schema removed (not supported in strict mode)" in result.notes


def test_one_of_all_of_nullable_and_free_form_maps() -> None:
    schema = {
        "type": "object",
        "properties": {
            "shape": {"oneOf": [{"type": "string"}, {"type": "number"}]},
            "merged": {
                "allOf": [
                    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                    {"properties": {"b": {"type": "integer"}}, "required": ["b"]},
                ]
            },
            "legacy": {"type": "string", "nullable": True},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": ["shape", "merged", "legacy", "labels"],
    }
    result = strict_schema(schema)
    props = result.value["properties"]
    assert props["shape"] == {"anyOf": [{"type": "string"}, {"type": "number"}]}
    assert props["merged"]["properties"].keys() == {"a", "b"} and props["merged"]["required"] == ["a", "b"]
    assert props["legacy"] == {"type": ["string", "null"]}
    assert props["labels"] == {"type": "object", "additionalProperties": False, "properties": {}, "required": []}
    notes = "\n".join(result.notes)
    assert "`shape` oneOf sent as anyOf" in notes and "`merged` allOf merged" in notes
    assert '`legacy` OpenAPI "nullable" sent as a null type' in notes
    assert "`labels` can no longer hold keys beyond its properties" in notes
    assert strict_violations(result.value) == []


def test_empty_and_missing_schemas_become_empty_objects() -> None:
    for schema in ({}, None):
        result = strict_schema(schema, where="tools[ping]")
        assert result.value == {"type": "object", "properties": {}, "additionalProperties": False, "required": []}
        assert result.notes[0] == "tools[ping]: empty schema sent as an object without properties"


def test_input_is_never_mutated_and_the_transform_is_idempotent() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "object", "properties": {"b": {"oneOf": [{"type": "string"}]}}}},
        "$defs": {"X": {"allOf": [{"properties": {"y": {}}}]}},
    }
    before = copy.deepcopy(schema)
    once = strict_schema(schema)
    assert schema == before
    twice = strict_schema(once.value)
    assert twice.value == once.value
    assert twice.notes == []


def test_strict_request_only_touches_tools_that_ask_for_it() -> None:
    loose = {"type": "object", "properties": {"q": {"type": "string"}}}
    request: Any = {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {"type": "function", "function": {"name": "strict_one", "parameters": loose, "strict": True}},
            {"type": "function", "function": {"name": "loose_one", "parameters": loose}},
            {"type": "function", "function": {"name": "off", "parameters": loose, "strict": False}},
        ],
    }
    before = copy.deepcopy(request)
    result = strict_request(request)
    assert request == before
    tools = result.value["tools"]
    assert tools[0]["function"]["parameters"]["required"] == ["q"]
    assert tools[0]["function"]["strict"] is True
    assert tools[1] == request["tools"][1] and tools[2] == request["tools"][2]
    assert "tools[strict_one]: `q` made nullable and required" in result.notes
    assert all(note.startswith("tools[strict_one]") for note in result.notes)
    body = openai_chat.encode_request(result.value).value  # the codec carries strict and the new schema as they are
    assert body["tools"][0] == tools[0]


def test_strict_request_without_tools_is_unchanged() -> None:
    request: Any = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    result = strict_request(request)
    assert result.value == request and result.notes == []


def test_restore_optional_drops_the_nulls_strict_mode_added() -> None:
    original = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string"},
            "note": {"type": ["string", "null"]},
            "stops": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}},
        },
        "required": ["city"],
    }
    arguments = {"city": None, "unit": None, "note": None, "stops": [{"n": None}, {"n": 2}]}
    assert restore_optional(arguments, original) == {"city": None, "note": None, "stops": [{}, {"n": 2}]}


# --- properties ---------------------------------------------------------------------------------------------------

names = st.sampled_from(["a", "b", "city", "unit", "x_1"])
leaf_types = st.sampled_from(["string", "number", "integer", "boolean", "null"])
extras = st.fixed_dictionaries(
    {},
    optional={
        "description": st.just("d"),
        "minLength": st.integers(0, 3),
        "pattern": st.just("^a"),
        "format": st.sampled_from(["date", "uri", "email", "regex"]),
        "default": st.none(),
        "minimum": st.integers(0, 3),
        "uniqueItems": st.booleans(),
        "nullable": st.booleans(),
        "examples": st.just([1]),
    },
)


def _leaf() -> st.SearchStrategy[dict[str, Any]]:
    typed = st.builds(
        lambda kind, extra: {"type": kind, **extra},
        st.one_of(leaf_types, st.lists(leaf_types, min_size=1, max_size=2, unique=True)),
        extras,
    )
    return st.one_of(
        typed,
        st.builds(lambda extra: {"enum": ["x", "y"], **extra}, extras),
        st.builds(lambda extra: {"const": 3, **extra}, extras),
        st.just({"$ref": "#/$defs/Shared"}),
        extras,  # untyped
    )


def _extend(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    properties = st.dictionaries(names, children, max_size=3)
    objects = st.builds(
        lambda props, required, extra, more: {
            "type": "object",
            "properties": props,
            "required": required,
            **({"additionalProperties": extra} if extra is not None else {}),
            **more,
        },
        properties,
        st.lists(names, max_size=3, unique=True),
        st.one_of(st.none(), st.booleans(), st.just({"type": "string"})),
        extras,
    )
    return st.one_of(
        objects,
        st.builds(lambda props: {"properties": props}, properties),
        st.builds(lambda items: {"type": "array", "items": items}, children),
        st.builds(lambda items: {"type": "array", "items": items}, st.lists(children, min_size=1, max_size=2)),
        st.builds(lambda branches: {"anyOf": branches}, st.lists(children, min_size=1, max_size=3)),
        st.builds(lambda branches: {"oneOf": branches}, st.lists(children, min_size=1, max_size=3)),
        st.builds(lambda parts: {"allOf": parts}, st.lists(objects, min_size=1, max_size=2)),
    )


schemas = st.recursive(_leaf(), _extend, max_leaves=12)
roots = st.builds(
    lambda props, required, shared: {
        "type": "object",
        "properties": props,
        "required": required,
        "$defs": {"Shared": shared},
    },
    st.dictionaries(names, schemas, max_size=4),
    st.lists(names, max_size=3, unique=True),
    schemas,
)


@SETTINGS
@given(roots)
def test_property_output_always_satisfies_the_strict_rules(schema: dict[str, Any]) -> None:
    before = json.dumps(schema, sort_keys=True)
    result = strict_schema(schema)
    assert strict_violations(result.value) == []
    assert result.value["type"] == "object"
    assert json.dumps(schema, sort_keys=True) == before  # the input is untouched


@SETTINGS
@given(roots)
def test_property_strict_is_idempotent(schema: dict[str, Any]) -> None:
    once = strict_schema(schema)
    twice = strict_schema(once.value)
    assert twice.value == once.value
    assert twice.notes == []
