"""Schema-based argument generation: always valid against the schema, realistic where the names allow."""

from __future__ import annotations

import random
import re
from typing import Any

import jsonschema
import pytest

from providers.simulator.arguments import generate_arguments
from providers.simulator.matching import extract_hints
from providers.simulator.patterns import sample_pattern
from providers.simulator.values import CITIES, Hints

SCHEMAS: list[dict[str, Any]] = [
    {},
    {"type": "object", "properties": {}},
    {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["fahrenheit", "celsius"]}},
        "required": ["city", "unit"],
    },
    {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 3, "maximum": 7},
            "x": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "step": {"type": "number", "multipleOf": 0.25, "minimum": 1, "maximum": 2},
            "odd": {"type": "integer", "multipleOf": 5, "minimum": 11, "maximum": 19},
            "flag": {"type": "boolean"},
            "nothing": {"type": "null"},
        },
        "required": ["n", "x", "step", "odd", "flag", "nothing"],
        "additionalProperties": False,
    },
    {
        "type": "object",
        "properties": {
            "date": {"type": "string", "format": "date"},
            "when": {"type": "string", "format": "date-time"},
            "email": {"type": "string", "format": "email"},
            "site": {"type": "string", "format": "uri"},
            "id": {"type": "string", "format": "uuid"},
            "ip": {"type": "string", "format": "ipv4"},
            "code": {"type": "string", "pattern": "^[A-Z]{3}-\\d{2,4}$"},
            "short": {"type": "string", "minLength": 4, "maxLength": 6},
        },
        "required": ["date", "when", "email", "site", "id", "ip", "code", "short"],
    },
    {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "uniqueItems": True, "minItems": 2},
            "points": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
                    "required": ["lat", "lon"],
                },
                "maxItems": 2,
            },
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "minItems": 2},
        },
        "required": ["tags", "points", "pair"],
    },
    {
        "type": "object",
        "$defs": {
            "person": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "friend": {"$ref": "#/$defs/person"}},
                "required": ["name"],
            }
        },
        "properties": {
            "owner": {"$ref": "#/$defs/person"},
            "maybe": {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 5, "maximum": 5}]},
            "either": {"oneOf": [{"type": "string", "const": "yes"}, {"type": "integer"}]},
            "merged": {
                "allOf": [
                    {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
                    {"properties": {"y": {"type": "boolean"}}, "required": ["y"]},
                ]
            },
            "optional": {"type": ["string", "null"]},
            "free": {"type": "object", "additionalProperties": {"type": "integer"}},
        },
        "required": ["owner", "maybe", "either", "merged", "optional", "free"],
    },
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_generated_arguments_are_valid_for_many_seeds(schema: dict[str, Any]) -> None:
    hints = extract_hints("What's the weather in Tokyo? add 2 and 3")
    for seed in range(40):
        value = generate_arguments(schema, random.Random(seed), hints)
        jsonschema.validate(value, schema, format_checker=jsonschema.FormatChecker())


def test_same_seed_gives_same_arguments() -> None:
    schema = SCHEMAS[4]
    assert generate_arguments(schema, random.Random(7)) == generate_arguments(schema, random.Random(7))


def test_values_follow_property_names() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "start_date": {"type": "string"},
            "userEmail": {"type": "string"},
            "unit": {"type": "string", "enum": ["kelvin", "celsius", "fahrenheit"]},
            "query": {"type": "string"},
        },
        "required": ["city", "start_date", "userEmail", "unit", "query"],
    }
    value = generate_arguments(schema, random.Random(1), Hints(text="find cheap flights"))
    assert value["city"] in CITIES
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", value["start_date"])
    assert re.fullmatch(r"[a-z]+\.[a-z]+@example\.com", value["userEmail"])
    assert value["unit"] == "celsius"
    assert value["query"] == "find cheap flights"


def test_the_message_wins_over_canned_values() -> None:
    hints = extract_hints("weather in Buenos Aires in fahrenheit, then add 2.5 and -4")
    weather = generate_arguments(SCHEMAS[2], random.Random(3), hints)
    assert weather == {"city": "Buenos Aires", "unit": "fahrenheit"}
    add = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}
    assert generate_arguments(add, random.Random(3), hints) == {"a": 2.5, "b": -4}


def test_a_number_out_of_bounds_is_not_taken_from_the_message() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 10}}, "required": ["n"]}
    value = generate_arguments(schema, random.Random(0), extract_hints("use 500"))
    assert value["n"] <= 10


def test_pattern_sampling() -> None:
    rng = random.Random(5)
    for pattern in ("^[A-Z]{3}$", r"^\d{5}(-\d{4})?$", "^(red|green|blue)-[a-f0-9]+$", r"^[^\s]{2,3}\.txt$"):
        text = sample_pattern(pattern, rng)
        assert text is not None and re.search(pattern, text), pattern
    assert sample_pattern(r"^(a)\1$", rng) is None  # backreferences: the caller keeps its own value


def test_no_parameters_gives_an_empty_object() -> None:
    assert generate_arguments(None, random.Random(0)) == {}


@pytest.mark.parametrize(
    ("text", "places"),
    [
        ("weather in Paris? Then tell me about Tokyo.", ("Paris", "Tokyo")),
        ("flights to Lisbon. Then a hotel near Oslo!", ("Lisbon", "Oslo")),
        ("meet in Buenos Aires; Book it", ("Buenos Aires",)),
        ("weather in New York, and in Sao Paulo", ("New York", "Sao Paulo")),
    ],
)
def test_a_place_ends_where_its_sentence_does(text: str, places: tuple[str, ...]) -> None:
    assert extract_hints(text).places == places


@pytest.mark.parametrize(
    ("text", "places"),
    [
        ("What's the weather in Paris? Then convert 20 C to F.", ("Paris",)),
        ("from X to Y", ()),
        ("and I said: weather in Oslo", ("Oslo",)),
        ("weather in NY and in Rome", ("NY", "Rome")),
    ],
)
def test_a_lone_capital_letter_is_not_a_place(text: str, places: tuple[str, ...]) -> None:
    assert extract_hints(text).places == places
