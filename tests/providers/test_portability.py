"""The portability check on a corpus of schemas: for each target what it refuses, what the translation changes,
and what is fine; the previews are what the real translation sends."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from providers.portability import TARGETS, TargetReport, check_portability, portability_notes

STRING = {"type": "string"}


def obj(properties: dict[str, Any], *, required: list[str] | None = None, closed: bool = True) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    schema["required"] = list(properties) if required is None else required
    if closed:
        schema["additionalProperties"] = False
    return schema


def nested(depth: int) -> dict[str, Any]:
    return obj({"leaf": STRING}) if depth == 1 else obj({"child": nested(depth - 1)})


# id -> (schema, options, {target: (level, a finding of that level contains this text)})
CORPUS: dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, tuple[str, str]]]] = {
    "nested objects, strict-ready": (
        obj({"customer": obj({"name": STRING, "address": obj({"city": STRING})})}),
        {},
        {
            "openai-chat": ("ok", "unchanged"),
            "openai-strict": ("ok", "unchanged"),
            "openai-responses": ("change", "strict: false sent"),
            "anthropic": ("ok", "unchanged"),
            "gemini": ("change", "`additionalProperties` dropped (at $.customer.address, $.customer, $)"),
            "prompted": ("ok", "sent as text in the system prompt"),
        },
    ),
    "$ref and $defs": (
        {**obj({"home": {"$ref": "#/$defs/Address"}}), "$defs": {"Address": obj({"city": STRING})}},
        {},
        {"gemini": ("change", "`$ref` inlined (at $.home)"), "openai-strict": ("ok", ""), "anthropic": ("ok", "")},
    ),
    "recursion": (
        {
            **obj({"root": {"$ref": "#/$defs/Node"}}),
            "$defs": {"Node": obj({"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}})},
        },
        {},
        {"gemini": ("change", "a recursive `$ref` cut to an object (at $.root.kids[])"), "openai-strict": ("ok", "")},
    ),
    "anyOf": (
        obj({"id": {"anyOf": [STRING, {"type": "integer"}]}}),
        {},
        {"openai-strict": ("ok", ""), "gemini": ("change", "additionalProperties"), "anthropic": ("ok", "")},
    ),
    "oneOf": (
        obj({"id": {"oneOf": [STRING, {"type": "integer"}]}}),
        {},
        {"openai-strict": ("change", "oneOf sent as anyOf"), "gemini": ("change", "`oneOf` sent as `anyOf`")},
    ),
    "format email": (
        obj({"to": {"type": "string", "format": "email"}}),
        {},
        {
            "gemini": ("change", '`format: "email"` dropped, a format Gemini does not take (at $.to)'),
            "openai-strict": ("ok", ""),
            "anthropic": ("ok", ""),
        },
    ),
    "format uri": (
        obj({"site": {"type": "string", "format": "uri"}}),
        {},
        {"gemini": ("change", '`format: "uri"` dropped'), "openai-strict": ("change", "format 'uri' removed")},
    ),
    "a format of another type": (
        obj({"count": {"type": "string", "format": "int64"}}),
        {},
        {"gemini": ("error", "`$.count`: format 'int64' is refused (only 'enum' and 'date-time' for STRING)")},
    ),
    "format date-time": (
        obj({"at": {"type": "string", "format": "date-time"}}),
        {},
        {"gemini": ("change", "additionalProperties"), "openai-strict": ("ok", "")},
    ),
    "pattern": (
        obj({"sku": {"type": "string", "pattern": "^[A-Z]-[0-9]+$"}}),
        {},
        {"openai-strict": ("ok", ""), "openai-chat": ("ok", ""), "anthropic": ("ok", "")},
    ),
    "a map (additionalProperties schema)": (
        obj({"tags": {"type": "object", "additionalProperties": STRING}}, closed=False),
        {},
        {
            "openai-strict": ("change", "`tags` can no longer hold keys beyond its properties"),
            "gemini": ("change", "`additionalProperties` dropped (at $.tags)"),
            "openai-chat": ("ok", ""),
        },
    ),
    "enum of mixed types": (
        obj({"value": {"enum": ["auto", 1, True, None]}}),
        {},
        {"gemini": ("change", "an `enum` with non-string values dropped"), "anthropic": ("ok", "")},
    ),
    "tuple array": (
        obj({"point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}]}}),
        {},
        {"openai-strict": ("change", "prefixItems removed"), "gemini": ("change", "`prefixItems` dropped")},
    ),
    "optional field, tool strict": (
        obj({"city": STRING, "unit": {"type": "string", "enum": ["c", "f"]}}, required=["city"]),
        {"strict": True},
        {
            "openai-chat": ("error", "'required' is required to be supplied"),
            "openai-responses": ("error", "Missing 'unit'"),
            "openai-strict": ("change", "`unit` made nullable and required"),
            "anthropic": ("ok", ""),
            "gemini": ("change", "strict dropped"),
        },
    ),
    "optional field, not strict": (
        obj({"city": STRING, "unit": STRING}, required=["city"], closed=False),
        {},
        {
            "openai-chat": ("ok", ""),
            "openai-responses": ("change", "strict: false sent"),
            "openai-strict": ("change", "additionalProperties: false set on 1 object(s)"),
        },
    ),
    "empty object": (
        {"type": "object", "properties": {}},
        {},
        {
            "gemini": ("change", "parameters left out"),
            "openai-strict": ("change", "additionalProperties: false set on 1 object(s)"),
            "anthropic": ("ok", ""),
        },
    ),
    "huge enum": (
        obj({"country": {"type": "string", "enum": [f"c{n}" for n in range(1200)]}}),
        {},
        {"openai-strict": ("error", "1200 enum values in all"), "openai-chat": ("ok", ""), "anthropic": ("ok", "")},
    ),
    "long string enum": (
        obj({"word": {"type": "string", "enum": [f"{n:04d}-" + "x" * 55 for n in range(300)]}}),
        {},
        {"openai-strict": ("error", "300 string values of 18000 characters")},
    ),
    "deep nesting": (
        nested(12),
        {},
        {"openai-strict": ("error", "12 levels of nesting"), "openai-chat": ("ok", "")},
    ),
    "not an object at the root": (
        {"type": "array", "items": STRING},
        {},
        {
            "openai-chat": ("error", 'needs "type": "object" at the root'),
            "anthropic": ("error", 'Anthropic needs "type": "object"'),
        },
    ),
    "a name Gemini refuses": (
        obj({"q": STRING}),
        {"name": "3d-render"},
        {"gemini": ("error", "Invalid function name"), "openai-chat": ("ok", ""), "anthropic": ("ok", "")},
    ),
}


def reports(schema: dict[str, Any], **options: Any) -> dict[str, TargetReport]:
    return {report.target.id: report for report in check_portability(schema, **options)}


@pytest.mark.parametrize("case", list(CORPUS))
def test_the_corpus(case: str) -> None:
    schema, options, expected = CORPUS[case]
    found = reports(schema, **options)
    assert list(found) == [target.id for target in TARGETS]
    for target, (level, text) in expected.items():
        report = found[target]
        assert report.level == level, (target, report.findings)
        messages = [f.message for f in report.findings if f.level == level]
        assert any(text in message for message in messages), (target, messages)
        assert all(f.target == target for f in report.findings)


def test_every_report_has_at_least_one_finding_and_ok_only_alone() -> None:
    for schema, options, _ in CORPUS.values():
        for report in check_portability(schema, **options):
            levels = [f.level for f in report.findings]
            assert levels and ("ok" not in levels or levels == ["ok"])


def test_the_previews_are_what_each_translation_sends() -> None:
    schema = obj({"city": STRING, "unit": {"type": "string", "enum": ["c", "f"]}}, required=["city"])
    found = reports(schema, name="get_weather", description="Weather.")
    assert found["openai-chat"].sent == {
        "type": "function",
        "function": {"name": "get_weather", "description": "Weather.", "parameters": schema},
    }
    strict = found["openai-strict"].sent
    assert strict["function"]["strict"] is True
    assert strict["function"]["parameters"]["required"] == ["city", "unit"]
    assert strict["function"]["parameters"]["properties"]["unit"]["enum"] == ["c", "f", None]
    assert found["openai-responses"].sent["strict"] is False and found["openai-responses"].sent["name"] == "get_weather"
    assert found["anthropic"].sent["input_schema"] == schema
    gemini = found["gemini"].sent
    assert gemini["parameters"]["properties"]["city"] == {"type": "STRING"}
    assert "additionalProperties" not in gemini["parameters"]
    assert found["prompted"].sent.startswith("### get_weather\nWeather.\nParameters (JSON Schema):")
    assert json.loads(found["gemini"].sent_text) == gemini
    # Properties go out in the order they are written (Gemini and the models read them in that order).
    assert list(gemini["parameters"]["properties"]) == ["city", "unit"]
    assert list(reports(obj({"b": STRING, "a": STRING}))["anthropic"].sent["input_schema"]["properties"]) == ["b", "a"]


def test_the_input_schema_is_never_changed() -> None:
    for schema, options, _ in CORPUS.values():
        before = copy.deepcopy(schema)
        check_portability(schema, **options)
        assert schema == before


def test_notes_for_a_chat_about_to_start() -> None:
    tools: list[Any] = [
        {"type": "function", "function": {"name": "send", "parameters": CORPUS["format email"][0]}},
        {"type": "function", "function": {"name": "ok", "parameters": {"type": "object", "properties": {"q": STRING}}}},
    ]
    notes = portability_notes(tools, "gemini")
    assert notes == [
        'tool `send`: for Gemini, `format: "email"` dropped, a format Gemini does not take (at $.to)',
        "tool `send`: for Gemini, `additionalProperties` dropped (at $)",
    ]
    wrong = [{"type": "function", "function": {"name": "count", "parameters": CORPUS["a format of another type"][0]}}]
    assert portability_notes(wrong, "gemini")[0] == (
        "tool `count`: Gemini will refuse it: `$.count`: format 'int64' is refused "
        "(only 'enum' and 'date-time' for STRING)"
    )
    assert portability_notes(tools, "anthropic") == []
    assert portability_notes(tools, "openai-responses")[0].startswith(
        "tool `send`: for OpenAI Responses, strict: false"
    )
    assert portability_notes(tools, "openai-chat", strategy="prompted") == []  # text: nothing refused or changed
    assert portability_notes(tools, "openai-chat", strategy="strict") == [
        "tool `ok`: for OpenAI strict, `q` made nullable and required",
        "tool `ok`: for OpenAI strict, additionalProperties: false set on 1 object(s)",
    ]
    assert portability_notes(tools, "some-other-format") == []


def test_a_strict_tool_is_judged_strictly_where_strict_is_sent() -> None:
    tools: list[Any] = [
        {
            "type": "function",
            "function": {"name": "w", "strict": True, "parameters": {"type": "object", "properties": {"a": STRING}}},
        }
    ]
    notes = portability_notes(tools, "openai-chat")
    assert notes and notes[0].startswith("tool `w`: OpenAI Chat will refuse it: Invalid schema for function 'w'")
