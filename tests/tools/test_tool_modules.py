"""@tool turns a typed function into a tool: its schema from the type hints (through pydantic), its description
and parameter descriptions from the docstring, and the same model validating each call."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from playground.tools.modules import ToolArgumentsError, ToolDefinitionError, describe, described, tools_in
from playground.tools.schema import check_schema
from tests.tools.sample_modules import more, shop

ORDER = described(shop.place_order)
PROPS: dict[str, Any] = ORDER.parameters["properties"]


def test_the_schema_is_an_object_of_the_parameters_with_the_ones_without_default_required() -> None:
    schema = ORDER.parameters
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert list(PROPS) == ["items", "address", "speed", "gift_note", "reference"]
    assert schema["required"] == ["items", "address"]
    assert check_schema(schema) == []  # a valid tool schema, as the editor would check it


def test_nested_models_are_written_in_place_with_their_own_required_fields() -> None:
    item = PROPS["items"]["items"]
    assert PROPS["items"]["type"] == "array"
    assert item["type"] == "object" and item["required"] == ["sku"]
    assert item["properties"]["quantity"] == {"type": "integer", "default": 1}
    address = PROPS["address"]
    assert address["properties"]["country"]["description"] == "ISO 3166 code, e.g. FR"
    assert (address["properties"]["country"]["minLength"], address["properties"]["country"]["maxLength"]) == (2, 2)
    assert "$defs" not in ORDER.parameters and "$ref" not in str(ORDER.parameters)


def test_enums_optional_fields_and_defaults() -> None:
    assert PROPS["speed"]["enum"] == ["standard", "express"] and PROPS["speed"]["default"] == "standard"
    assert PROPS["gift_note"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert PROPS["gift_note"]["default"] is None
    assert PROPS["reference"]["default"] == ""


def test_no_generated_titles_but_a_property_called_title_survives() -> None:
    assert "title" not in str(ORDER.parameters)
    from playground.tools.examples import bar_chart

    assert "title" in described(bar_chart).parameters["properties"]


def test_the_description_and_the_parameter_descriptions_come_from_the_docstring() -> None:
    assert ORDER.description == "Place an order for delivery.\n\nThe order is only simulated."
    assert PROPS["items"]["description"] == "What to send, one entry per product."
    assert PROPS["speed"]["description"] == "How fast it must arrive; express costs more."
    # A wrapped entry reads as one line.
    assert PROPS["gift_note"]["description"] == "A note printed on the packing slip, when the order is a gift."
    assert PROPS["reference"]["description"] == "Your own reference"  # Field(description=...) wins


def test_numpy_docstrings_and_decorator_options() -> None:
    track = described(shop.track_parcel)
    assert (track.name, track.description, track.is_async) == ("track", "Where a parcel is now.", True)
    assert track.parameters["properties"]["parcel_id"]["description"] == "The carrier's id, e.g. PX-1."
    assert described(shop.slow_sync).timeout == 0.2 and described(shop.explode).timeout is None


def test_a_function_without_parameters_takes_an_empty_object() -> None:
    assert described(shop.no_arguments).parameters == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }


def test_the_decorated_function_is_still_the_function() -> None:
    assert shop.refuse.__name__ == "refuse" and more.ping("x") == "pong: x"


def test_validation_gives_typed_values() -> None:
    kwargs = ORDER.validate(
        {"items": [{"sku": "A-1"}, {"sku": "B-2", "quantity": 3}], "address": {"street": "1 rue", "country": "FR"}}
    )
    assert [item.quantity for item in kwargs["items"]] == [1, 3]
    assert kwargs["speed"] is shop.Speed.STANDARD and kwargs["gift_note"] is None
    result = ORDER.call(
        {"items": [{"sku": "A-1"}], "address": {"street": "1 rue", "country": "FR"}, "speed": "express"}
    )
    assert result["speed"] == "express" and result["speed_is_enum"] is True


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"address": {"street": "x", "country": "FR"}}, "items: Field required"),
        ({"items": [{"sku": "A", "quantity": "3"}], "address": {"street": "x", "country": "FR"}}, "items.0.quantity"),
        ({"items": [], "address": {"street": "x", "country": "FRA"}}, "address.country"),
        ({"items": [], "address": {"street": "x", "country": "FR"}, "speed": "teleport"}, "speed"),
        ({"items": [], "address": {"street": "x", "country": "FR"}, "colour": "red"}, "colour: Extra inputs"),
    ],
)
def test_validation_refuses_what_the_schema_refuses(arguments: dict[str, Any], expected: str) -> None:
    # The JSON Schema and the model agree: strict mode, so "3" is no integer here either.
    assert not Draft202012Validator(ORDER.parameters).is_valid(arguments)
    with pytest.raises(ToolArgumentsError, match=expected):
        ORDER.validate(arguments)


def test_a_module_lists_only_the_tools_it_defines_in_order() -> None:
    assert [t.name for t in tools_in(shop)] == [
        "place_order",
        "track",
        "slow_async",
        "slow_sync",
        "explode",
        "refuse",
        "own_timeout",
        "no_arguments",
        "file_under",
    ]
    assert [t.name for t in tools_in(more)] == ["ping"]  # place_order is imported there, not defined


def test_a_recursive_model_stays_a_reference() -> None:
    schema = described(shop.file_under).parameters
    assert schema["properties"]["category"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Category"}
    assert schema["$defs"]["Category"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Category"}
    assert Draft202012Validator(schema).is_valid({"category": {"name": "a", "children": [{"name": "b"}]}})
    assert not Draft202012Validator(schema).is_valid({"category": {"name": "a", "children": [{"nom": "b"}]}})


def untyped(query):  # type: ignore[no-untyped-def]
    return query


def star(*values: int) -> int:
    return sum(values)


@pytest.mark.parametrize(("function", "message"), [(untyped, "needs a type hint"), (star, r"\*args")])
def test_functions_that_cannot_be_described_are_refused_with_their_name(function: Any, message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=message) as caught:
        describe(function)
    assert function.__name__ in str(caught.value)


def test_a_timeout_must_be_positive() -> None:
    with pytest.raises(ToolDefinitionError, match="timeout"):
        describe(more.ping, timeout=0)
