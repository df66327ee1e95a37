from __future__ import annotations

import pytest

from playground.tools.schema import (
    check_arguments,
    check_schema,
    check_tool_name,
    field_states,
    parse_schema_text,
    portability,
    schema_from_example,
)


@pytest.mark.parametrize("name", ["get_weather", "a", "x-y_1", "A" * 64])
def test_valid_tool_names(name: str) -> None:
    assert check_tool_name(name) == []


@pytest.mark.parametrize("name", ["", "has space", "dot.name", "A" * 65, "ünï"])
def test_invalid_tool_names_say_what_is_allowed(name: str) -> None:
    [problem] = check_tool_name(name)
    assert problem.path == "name"
    assert "1 to 64" in problem.message


def test_schema_with_unknown_type_points_at_the_field() -> None:
    [problem] = check_schema({"type": "object", "properties": {"a": {"type": "strin"}}})
    assert problem.path == "/properties/a/type"
    assert "'strin' is not a JSON Schema type" in problem.message


def test_schema_must_be_an_object_at_the_root() -> None:
    problems = check_schema({"type": "array", "items": {"type": "string"}})
    assert [p.path for p in problems] == ["/type"]
    assert check_schema(["not", "a", "dict"])[0].message == "The parameters schema must be a JSON object."


def test_schema_text_reports_json_syntax_with_position() -> None:
    schema, problems = parse_schema_text('{"type": "object",}')
    assert schema is None
    assert "line 1" in problems[0].message and "column" in problems[0].message


def test_empty_schema_text_means_no_parameters() -> None:
    schema, problems = parse_schema_text("  ")
    assert schema == {"type": "object", "properties": {}}
    assert problems == []


def test_arguments_checked_against_schema_with_paths() -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
        "required": ["city"],
    }
    check = check_arguments(schema, '{"days": 0}')
    assert not check.ok
    assert [str(p) for p in check.problems] == [
        "'city' is a required property",
        "/days: 0 is less than the minimum of 1",
    ]
    assert check_arguments(schema, '{"city": "Oslo", "days": 2}').ok


def test_arguments_that_are_not_json_are_reported_not_raised() -> None:
    check = check_arguments({"type": "object"}, '{"city": "Par')
    assert not check.ok and check.value is None
    assert check.summary() == "Arguments are not valid JSON: Unterminated string starting at (line 1, column 10)."
    check = check_arguments({"type": "object"}, '{"city": "Paris",\n "days": }')
    assert check.summary() == "Arguments are not valid JSON: Expecting value (line 2, column 10)."


def test_empty_arguments_are_an_empty_object() -> None:
    assert check_arguments({"type": "object", "properties": {}}, "").value == {}


def test_non_object_arguments_are_rejected() -> None:
    check = check_arguments(None, "[1, 2]")
    assert not check.ok and check.problems[0].message == "Arguments must be a JSON object."


def test_schema_from_example_types_nested_values() -> None:
    schema = schema_from_example({"city": "Paris", "days": [1, 2], "opts": {"metric": True}})
    assert schema["required"] == ["city", "days", "opts"]
    assert schema["properties"]["days"] == {"type": "array", "items": {"type": "integer"}}
    assert schema["properties"]["opts"]["properties"]["metric"] == {"type": "boolean"}
    assert check_schema(schema) == []


def test_strict_portability_lists_missing_required_and_additional_properties() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}}}
    messages = [str(p) for p in portability(schema, strict=True)]
    assert "strict mode needs every property in `required` (missing: a)." in messages
    assert "/properties/a: strict mode needs `additionalProperties: false`." in messages
    strict_ok = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    assert portability(strict_ok, strict=True) == []


SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer", "maximum": 7},
        "opts": {"type": "object", "properties": {"metric": {"type": "boolean"}}},
    },
    "required": ["city", "days"],
    "additionalProperties": False,
}


def states(text: str) -> dict[str, str]:
    return {f.name: f.state for f in field_states(SCHEMA, text)}


def test_field_states_follow_arguments_as_they_stream() -> None:
    assert states('{"ci') == {"city": "missing", "days": "missing"}
    assert states('{"city": "Pa') == {"city": "streaming", "days": "missing"}
    assert states('{"city": "Paris", "da') == {"city": "ok", "days": "missing"}
    assert states('{"city": "Paris", "days": 1') == {"city": "ok", "days": "streaming"}
    partial_nested = '{"city": "Paris", "days": 3, "opts": {"metric": tr'
    assert states(partial_nested) == {"city": "ok", "days": "ok", "opts": "streaming"}
    assert states(partial_nested + "ue}}") == {"city": "ok", "days": "ok", "opts": "ok"}


def test_field_states_point_at_invalid_values_before_the_call_ends() -> None:
    [_, days] = field_states(SCHEMA, '{"city": "Oslo", "days": 12,')
    assert (days.state, days.message) == ("invalid", "12 is greater than the maximum of 7")
    extra = {f.name: f for f in field_states(SCHEMA, '{"city": "Oslo", "days": 1, "mood": "x"}')}
    assert (extra["mood"].state, extra["mood"].message) == ("invalid", "not in the schema")


def test_field_states_of_text_that_is_not_json_are_empty() -> None:
    assert field_states(SCHEMA, "not json") == []
    assert field_states(SCHEMA, "[1, 2") == []


def test_a_nested_object_still_being_written_is_not_judged_yet() -> None:
    schema = {
        "type": "object",
        "properties": {
            "loc": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "country": {"type": "string"}},
                "required": ["city", "country"],
            }
        },
        "required": ["loc"],
    }
    assert {f.name: f.state for f in field_states(schema, '{"loc": {"city": "Paris", ')} == {"loc": "streaming"}
    assert {f.name: f.state for f in field_states(schema, '{"loc": {"city": "a}\\"b", ')} == {"loc": "streaming"}
    [loc] = field_states(schema, '{"loc": {"city": "Paris"}}')
    assert (loc.state, loc.message) == ("invalid", "'country' is a required property")
