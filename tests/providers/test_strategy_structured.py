"""structured_request, parse_structured and StructuredStream: tools through a JSON response format and back."""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from providers import events as ev
from providers import openai_chat
from providers.strategies import (
    ENVELOPE_NAME,
    StructuredReplyError,
    StructuredStream,
    parse_structured,
    structured_request,
)
from providers.streaming import MessageAccumulator
from tests.providers.test_strategy_strict import strict_violations

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

WEATHER: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
            "required": ["city"],
        },
    },
}
ADD: Any = {
    "type": "function",
    "function": {
        "name": "add",
        "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
    },
}


def _request(**extra: Any) -> Any:
    return {
        "model": "gpt-4o",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris?"}],
        "tools": [WEATHER, ADD],
        "tool_choice": "auto",
        "parallel_tool_calls": True,
        **extra,
    }


def _reply_schema(request: Any) -> dict[str, Any]:
    return request["response_format"]["json_schema"]["schema"]["properties"]["reply"]


def _fold(events: list[ev.Event]) -> Any:
    accumulator = MessageAccumulator()
    accumulator.extend(events)
    return accumulator.message()


# --- the request ---------------------------------------------------------------------------------------------------


def test_request_drops_tools_and_adds_one_response_format() -> None:
    request = _request()
    before = copy.deepcopy(request)
    result = structured_request(request)
    out = result.value
    assert request == before
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(out)
    assert out["model"] == "gpt-4o"
    response_format = out["response_format"]  # type: ignore[typeddict-item]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == ENVELOPE_NAME
    assert response_format["json_schema"]["strict"] is True
    schema = response_format["json_schema"]["schema"]
    assert schema["type"] == "object" and schema["required"] == ["reply"]
    assert strict_violations(schema) == []
    calls_variant, final_variant = schema["properties"]["reply"]["anyOf"]
    assert calls_variant["properties"]["type"] == {"type": "string", "enum": ["tool_call"]}
    assert list(calls_variant["properties"]) == ["type", "calls"]
    assert final_variant["properties"]["type"] == {"type": "string", "enum": ["final"]}
    assert final_variant["properties"]["text"]["type"] == "string"
    weather, add = calls_variant["properties"]["calls"]["items"]["anyOf"]
    assert list(weather["properties"]) == ["name", "arguments"]  # the name streams first
    assert weather["properties"]["name"] == {"type": "string", "enum": ["get_weather"]}
    assert weather["description"] == "Current weather in a city."
    assert weather["properties"]["arguments"]["properties"]["unit"]["type"] == ["string", "null"]
    assert add["properties"]["arguments"]["required"] == ["a", "b"]
    assert "maxItems" not in calls_variant["properties"]["calls"]
    assert "tools[get_weather]: `unit` made nullable and required" in result.notes
    assert any("response format" in note for note in result.notes)


def test_instructions_join_the_existing_system_message() -> None:
    messages = structured_request(_request()).value["messages"]
    assert messages[0]["role"] == "system"
    assert isinstance(messages[0]["content"], str)
    assert messages[0]["content"].startswith("Be brief.\n\nAlways reply with one JSON object")
    assert "- get_weather: Current weather in a city." in messages[0]["content"]
    assert "- add: (no description)" in messages[0]["content"]
    assert messages[1] == {"role": "user", "content": "Weather in Paris?"}
    without_system = structured_request({**_request(), "messages": [{"role": "user", "content": "hi"}]}).value
    assert without_system["messages"][0]["role"] == "system"


@pytest.mark.parametrize(
    ("choice", "variants", "tools"),
    [
        ("none", ["final"], []),
        ("required", ["tool_call"], ["get_weather", "add"]),
        ({"type": "function", "function": {"name": "add"}}, ["tool_call"], ["add"]),
        ({"type": "function", "function": {"name": "nope"}}, ["tool_call", "final"], ["get_weather", "add"]),
        ("auto", ["tool_call", "final"], ["get_weather", "add"]),
    ],
)
def test_tool_choice_narrows_the_envelope(choice: Any, variants: list[str], tools: list[str]) -> None:
    reply = _reply_schema(structured_request(_request(tool_choice=choice)).value)
    branches = reply["anyOf"] if "anyOf" in reply else [reply]
    assert [b["properties"]["type"]["enum"][0] for b in branches] == variants
    offered = [
        item["properties"]["name"]["enum"][0]
        for b in branches
        if "calls" in b["properties"]
        for item in b["properties"]["calls"]["items"]["anyOf"]
    ]
    assert offered == tools


def test_no_parallel_calls_means_at_most_one_call() -> None:
    reply = _reply_schema(structured_request(_request(parallel_tool_calls=False)).value)
    assert reply["anyOf"][0]["properties"]["calls"]["maxItems"] == 1


def test_defs_move_to_the_envelope_and_references_follow() -> None:
    tool: Any = {
        "type": "function",
        "function": {
            "name": "plan",
            "parameters": {
                "type": "object",
                "properties": {"stop": {"$ref": "#/$defs/Stop"}, "next": {"$ref": "#"}},
                "required": ["stop", "next"],
                "$defs": {"Stop": {"type": "object", "properties": {"city": {"type": "string"}}}},
            },
        },
    }
    result = structured_request({"messages": [{"role": "user", "content": "go"}], "tools": [tool]})
    schema = result.value["response_format"]["json_schema"]["schema"]  # type: ignore[typeddict-item]
    branch = schema["properties"]["reply"]["anyOf"][0]["properties"]["calls"]["items"]["anyOf"][0]
    assert branch["properties"]["arguments"] == {"$ref": "#/$defs/plan__root"}
    root = schema["$defs"]["plan__root"]
    assert root["properties"]["stop"] == {"$ref": "#/$defs/plan__Stop"}
    assert root["properties"]["next"] == {"$ref": "#/$defs/plan__root"}
    assert schema["$defs"]["plan__Stop"]["required"] == ["city"]
    assert strict_violations(schema) == []


def test_history_calls_become_envelopes_and_results_one_user_message() -> None:
    messages: Any = [
        {"role": "user", "content": "Weather in Paris and 2+3?"},
        {
            "role": "assistant",
            "content": "Checking both.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                },
                {"id": "call_2", "type": "function", "function": {"name": "add", "arguments": '{"a":2,"b":3}'}},
            ],
            "provider_data": {"format": "anthropic", "blocks": [{"type": "thinking"}]},
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "Sunny, 21C"},
        {"role": "tool", "tool_call_id": "call_2", "content": "boom", "is_error": True},
        {"role": "assistant", "content": "Sunny; the adder failed."},
    ]
    result = structured_request({"messages": messages, "tools": [WEATHER, ADD]})
    out = result.value["messages"]
    assert [m["role"] for m in out] == ["system", "user", "assistant", "user", "assistant"]
    assert json.loads(out[2]["content"]) == {  # type: ignore[arg-type]
        "reply": {
            "type": "tool_call",
            "calls": [
                {"name": "get_weather", "arguments": {"city": "Paris"}},
                {"name": "add", "arguments": {"a": 2, "b": 3}},
            ],
        }
    }
    assert "provider_data" not in out[2]
    assert (
        out[3]["content"]
        == "Result of get_weather (call_1): Sunny, 21C\n\nResult of add (call_2) (the tool failed): boom"
    )
    assert out[4] == messages[4]
    notes = "\n".join(result.notes)
    assert "message 1: 2 tool call(s) sent as assistant text (structured envelope form)" in notes
    assert "message 1: assistant text beside tool calls dropped" in notes
    assert 'messages 2-3: tool result(s) sent as one user message ("Result of NAME (CALL_ID): ...")' in notes
    assert "message 1: provider data dropped" in notes
    openai_chat.encode_request(result.value)  # no tool message is left for the codec to refuse


# --- parsing a whole reply -----------------------------------------------------------------------------------------


def test_parse_final_answer() -> None:
    parsed = parse_structured('{"reply": {"type": "final", "text": "Sunny in Paris."}}')
    assert parsed.message() == {"role": "assistant", "content": "Sunny in Paris."}


def test_parse_parallel_calls_with_stable_ids() -> None:
    text = json.dumps(
        {
            "reply": {
                "type": "tool_call",
                "calls": [
                    {"name": "get_weather", "arguments": {"city": "Paris", "unit": None}},
                    {"name": "get_weather", "arguments": {"city": "Rome", "unit": "c"}},
                ],
            }
        }
    )
    first = parse_structured(text, "resp_1")
    calls = first.tool_calls
    assert [c["function"]["name"] for c in calls] == ["get_weather", "get_weather"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [
        {"city": "Paris", "unit": None},
        {"city": "Rome", "unit": "c"},
    ]
    assert calls[0]["id"] != calls[1]["id"] and all(c["id"].startswith("call_") and len(c["id"]) == 29 for c in calls)
    assert [c["id"] for c in parse_structured(text, "resp_1").tool_calls] == [c["id"] for c in calls]
    assert parse_structured(text, "resp_2").tool_calls[0]["id"] != calls[0]["id"]
    assert first.message()["content"] is None


def test_parse_is_tolerant_of_a_bare_variant_a_fence_and_string_arguments() -> None:
    bare = parse_structured('{"type": "tool_call", "calls": [{"name": "add", "arguments": "{\\"a\\": 1}"}]}')
    assert bare.tool_calls[0]["function"]["arguments"] == '{"a": 1}'
    assert "call 0: arguments given as a JSON string, decoded" in bare.notes
    fenced = parse_structured('```json\n{"reply": {"type": "final", "text": "ok"}}\n```')
    assert fenced.content == "ok" and fenced.notes


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Sure, calling it now", "the reply is not JSON"),
        ("[1, 2]", "the reply is not a JSON object"),
        ('{"reply": 3}', '"reply" is not a JSON object'),
        ('{"reply": {"type": "maybe"}}', '"type" must be "tool_call" or "final", not "maybe"'),
        ('{"reply": {"type": "final"}}', 'a "final" reply needs "text" as a string'),
        ('{"reply": {"type": "tool_call", "calls": []}}', '"calls" as a non-empty array'),
        ('{"reply": {"type": "tool_call", "calls": [3]}}', "calls[0] is not an object"),
        ('{"reply": {"type": "tool_call", "calls": [{"arguments": {}}]}}', 'calls[0] needs "name"'),
        ('{"reply": {"type": "tool_call", "calls": [{"name": "add"}]}}', 'calls[0] needs "arguments"'),
        ('{"reply": {"type": "tool_call", "calls": [{"name": "add", "arguments": [1]}]}}', "is not a JSON object"),
        ('{"reply": {"type": "tool_call", "calls": [{"name": "add", "arguments": "nope"}]}}', "string that is not"),
    ],
)
def test_invalid_envelopes_raise_clear_errors(text: str, message: str) -> None:
    with pytest.raises(StructuredReplyError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_structured(text)


# --- streaming ------------------------------------------------------------------------------------------------------


def _stream(pieces: list[str], response_id: str = "resp_1") -> tuple[list[ev.Event], StructuredStream]:
    stream = StructuredStream(response_id=response_id)
    events: list[ev.Event] = []
    for piece in pieces:
        events.extend(stream.feed(piece))
    events.extend(stream.close())
    return events, stream


def test_stream_announces_calls_and_streams_arguments_before_the_end() -> None:
    text = '{"reply": {"type": "tool_call", "calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}}'
    stream = StructuredStream(response_id="r")
    head = stream.feed(text[: text.index("Par") + 3])
    assert isinstance(head[0], ev.ToolCallStart) and head[0].name == "get_weather"
    assert "".join(e.arguments for e in head if isinstance(e, ev.ToolCallDelta)) == '{"city": "Par'
    rest = stream.feed(text[text.index("Par") + 3 :]) + stream.close()
    assert "".join(e.arguments for e in rest if isinstance(e, ev.ToolCallDelta)) == 'is"}'
    assert isinstance(rest[-1], ev.ToolCallEnd)
    assert _fold(head + rest) == parse_structured(text, "r").message()


def test_stream_final_text_arrives_as_text_deltas() -> None:
    text = '{"reply": {"type": "final", "text": "Caf\\u00e9 \\"ok\\"\\n\\ud83d\\ude00"}}'
    events, _ = _stream(list(text))
    assert all(isinstance(e, ev.TextDelta) for e in events)
    assert _fold(events) == {"role": "assistant", "content": 'Café "ok"\n😀'}


def test_a_cut_envelope_ends_its_open_call_and_says_so() -> None:
    events, stream = _stream(['{"reply": {"type": "tool_call", "calls": [{"name": "add", "arguments": {"a": 1, "b"'])
    assert isinstance(events[-1], ev.ToolCallEnd)
    assert _fold(events)["tool_calls"][0]["function"]["arguments"] == '{"a": 1}'
    assert "the envelope was cut off before its end" in stream.notes()


json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.floats(allow_nan=False, allow_infinity=False), st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
call_objects = st.builds(
    lambda name, arguments: {"name": name, "arguments": arguments},
    st.sampled_from(["get_weather", "add", "search_web"]),
    st.dictionaries(st.text(max_size=8), json_values, max_size=4),
)
envelopes = st.one_of(
    st.builds(lambda calls: {"type": "tool_call", "calls": calls}, st.lists(call_objects, min_size=1, max_size=3)),
    st.builds(lambda text: {"type": "final", "text": text}, st.text(min_size=1)),
)
layouts = st.sampled_from([{}, {"indent": 2}, {"separators": (",", ":")}, {"ensure_ascii": False}])


@st.composite
def fragmented(draw: st.DrawFn) -> tuple[str, list[str]]:
    body = draw(envelopes)
    wrapped = draw(st.booleans())
    text = json.dumps({"reply": body} if wrapped else body, **draw(layouts))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    return text, [text[a:b] for a, b in itertools.pairwise(bounds)]


@SETTINGS
@given(fragmented())
def test_property_streamed_envelope_folds_to_the_whole_parse(case: tuple[str, list[str]]) -> None:
    text, pieces = case
    events, stream = _stream(pieces)
    assert _fold(events) == parse_structured(text, "resp_1").message()
    assert stream.text == text
    started: set[int] = set()
    for event in events:  # a call is announced before its fragments, ended after them, once
        if isinstance(event, ev.ToolCallStart):
            assert event.index not in started
            started.add(event.index)
        elif isinstance(event, ev.ToolCallDelta | ev.ToolCallEnd):
            assert event.index in started


FUZZ_TOKENS = [
    "{",
    "}",
    "[",
    "]",
    '"',
    ",",
    ":",
    " ",
    '"reply"',
    '"type"',
    '"calls"',
    '"name"',
    '"arguments"',
    '"text"',
    '"tool_call"',
    '"final"',
    '"add"',
    "1",
    "1.5e3",
    "true",
    "null",
    "\\",
    "\\u00e9",
    "\\ud83d",
    "é",
    "x",
]
tokens = st.sampled_from(FUZZ_TOKENS)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(tokens, max_size=50).map("".join), st.data())
def test_property_any_text_streams_the_same_in_any_fragments(text: str, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=10)))
    pieces = [text[a:b] for a, b in itertools.pairwise([0, *cuts, len(text)])]
    assert _fold(_stream(pieces)[0]) == _fold(_stream([text])[0])


def test_without_tools_the_envelope_only_allows_a_final_answer() -> None:
    result = structured_request({"messages": [{"role": "user", "content": "hi"}]})
    reply = _reply_schema(result.value)
    assert reply["properties"]["type"]["enum"] == ["final"]
    assert "Tools:" not in result.value["messages"][0]["content"]  # type: ignore[operator]


def test_instructions_join_a_developer_message_with_content_parts() -> None:
    request: Any = {
        "messages": [{"role": "developer", "content": [{"type": "text", "text": "Rules."}]}],
        "tools": [ADD],
    }
    first = structured_request(request).value["messages"][0]
    assert first["role"] == "developer"
    assert first["content"][0] == {"type": "text", "text": "Rules."}  # type: ignore[index]
    assert first["content"][1]["text"].startswith("Always reply with one JSON object")  # type: ignore[index]
