"""Tool definitions alone, both ways: what the Tools page exports and imports in Anthropic's format."""

from __future__ import annotations

from typing import Any

from providers.anthropic import encode_request, encode_tools, import_tools
from providers.types import ToolSpec

WEATHER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    "required": ["city"],
}


def _spec(name: str, **function: Any) -> ToolSpec:
    return {"type": "function", "function": {"name": name, **function}}  # type: ignore[typeddict-item]


def test_encode_gives_name_description_and_input_schema() -> None:
    wire = encode_tools([_spec("get_weather", description="Weather for a city.", parameters=WEATHER_SCHEMA)])
    assert wire == [{"name": "get_weather", "description": "Weather for a city.", "input_schema": WEATHER_SCHEMA}]


def test_encode_keeps_strict_and_gives_a_parameterless_tool_an_empty_object_schema() -> None:
    wire = encode_tools([_spec("now", strict=True)])
    assert wire == [{"name": "now", "input_schema": {"type": "object", "properties": {}}, "strict": True}]


def test_encode_leaves_out_tools_that_are_not_named_functions() -> None:
    nameless: Any = {"type": "function", "function": {"description": "no name"}}
    wire = encode_tools([nameless, _spec("kept", parameters=WEATHER_SCHEMA)])
    assert [tool["name"] for tool in wire] == ["kept"]


def test_encode_matches_what_a_request_sends() -> None:
    specs = [_spec("get_weather", description="Weather.", parameters=WEATHER_SCHEMA, strict=False)]
    request: Any = {"model": "claude", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}
    sent = encode_request({**request, "tools": specs}).value["tools"]
    assert encode_tools(specs) == sent


def test_import_gives_internal_specs() -> None:
    specs = import_tools([{"name": "get_weather", "description": "Weather.", "input_schema": WEATHER_SCHEMA}])
    assert specs == [_spec("get_weather", description="Weather.", parameters=WEATHER_SCHEMA)]


def test_import_skips_server_tools_and_nameless_entries() -> None:
    wire: list[dict[str, Any]] = [
        {"type": "web_search_20250305", "name": "web_search"},
        {"description": "no name", "input_schema": WEATHER_SCHEMA},
        {"type": "custom", "name": "lookup", "input_schema": WEATHER_SCHEMA},
    ]
    assert [spec["function"]["name"] for spec in import_tools(wire)] == ["lookup"]


def test_round_trip_keeps_every_field() -> None:
    specs = [
        _spec("get_weather", description="Weather.", parameters=WEATHER_SCHEMA, strict=True),
        _spec("ping", description="", parameters={"type": "object", "properties": {}}),
    ]
    assert import_tools(encode_tools(specs)) == specs
