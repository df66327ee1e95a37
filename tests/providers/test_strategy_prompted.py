"""prompted_request, extract_calls and PromptedStream: tools in the system prompt, calls found in the reply text."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from providers import events as ev
from providers import openai_chat
from providers.strategies import PROTOCOL, PromptedStream, extract_calls, prompted_request
from providers.strategies.prompted import render_calls
from providers.streaming import MessageAccumulator

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CORPUS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "fixtures" / "strategies" / "prompted_replies.json").read_text(encoding="utf-8")
)
KNOWN = {"get_weather", "search", "add", "multiply", "note", "get_time", "write_file"}
WEATHER: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
PING: Any = {"type": "function", "function": {"name": "ping"}}


def _fold(events: list[ev.Event]) -> Any:
    accumulator = MessageAccumulator()
    accumulator.extend(events)
    return accumulator.message()


def _stream(pieces: list[str]) -> tuple[list[ev.Event], PromptedStream]:
    stream = PromptedStream(tools=KNOWN, response_id="resp_1")
    events: list[ev.Event] = []
    for piece in pieces:
        events.extend(stream.feed(piece))
    return events + stream.close(), stream


# --- the request ---------------------------------------------------------------------------------------------------


def test_request_moves_the_tools_into_the_system_prompt() -> None:
    request: Any = {
        "model": "llama3",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather?"}],
        "tools": [WEATHER, PING],
        "tool_choice": "auto",
        "parallel_tool_calls": True,
        "temperature": 0.2,
    }
    before = copy.deepcopy(request)
    result = prompted_request(request)
    out = result.value
    assert request == before
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(out)
    assert out["temperature"] == 0.2
    system = out["messages"][0]["content"]
    assert isinstance(system, str)
    assert system.startswith("Be brief.\n\n" + PROTOCOL)
    assert "### get_weather\nCurrent weather in a city.\nParameters (JSON Schema):\n```json\n" in system
    assert json.dumps(WEATHER["function"]["parameters"]) in system
    assert "### ping\n(no description)" in system
    assert '```tool_call\n{"name": "TOOL_NAME", "arguments": {"ARGUMENT": "VALUE"}}\n```' in system
    assert out["messages"][1] == {"role": "user", "content": "Weather?"}
    assert "2 tool(s) described in the system prompt (prompted strategy); tools not sent" in result.notes


@pytest.mark.parametrize(
    ("extra", "present", "absent"),
    [
        ({"tool_choice": "required"}, "You must call at least one tool", "at most one"),
        (
            {"tool_choice": {"type": "function", "function": {"name": "ping"}}},
            "You must call the tool ping",
            "at least one",
        ),
        ({"parallel_tool_calls": False}, "Call at most one tool per reply.", "You must"),
    ],
)
def test_tool_choice_and_parallel_rules_are_stated(extra: dict[str, Any], present: str, absent: str) -> None:
    request: Any = {"messages": [{"role": "user", "content": "hi"}], "tools": [WEATHER], **extra}
    system = prompted_request(request).value["messages"][0]["content"]
    assert isinstance(system, str) and present in system and absent not in system


def test_tool_choice_none_describes_no_tools() -> None:
    request: Any = {"messages": [{"role": "user", "content": "hi"}], "tools": [WEATHER], "tool_choice": "none"}
    result = prompted_request(request)
    assert result.value["messages"] == [{"role": "user", "content": "hi"}]
    assert "no tools described in the prompt (tool_choice none, or no tools)" in result.notes


def test_history_is_rewritten_in_the_protocol_form() -> None:
    messages: Any = [
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {
            "role": "assistant",
            "content": "Checking both.",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}},
                {"id": "c2", "type": "function", "function": {"name": "get_weather", "arguments": ""}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "Sunny\nwarm"}]},
        {"role": "tool", "tool_call_id": "c2", "content": "Rain"},
    ]
    result = prompted_request({"messages": messages, "tools": [WEATHER]})
    out = result.value["messages"]
    assert out[2]["content"] == (
        "Checking both.\n\n"
        '```tool_call\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```\n\n'
        '```tool_call\n{"name": "get_weather", "arguments": {}}\n```'
    )
    assert out[3] == {
        "role": "user",
        "content": "Result of get_weather (c1):\nSunny\nwarm\n\nResult of get_weather (c2): Rain",
    }
    assert "message 1: 2 tool call(s) sent as assistant text (prompted tool_call form)" in result.notes
    openai_chat.encode_request(result.value)


def test_rendered_history_reads_back_as_the_same_calls() -> None:
    message: Any = {
        "role": "assistant",
        "content": "On it.",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": [2, "x"]}'}},
            {"id": "c2", "type": "function", "function": {"name": "note", "arguments": '{"text": "it\'s \\"q\\""}'}},
        ],
    }
    extraction = extract_calls(render_calls(message, 0, []))
    assert extraction.content == "On it."
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in extraction.tool_calls] == [
        ("add", {"a": 1, "b": [2, "x"]}),
        ("note", {"text": 'it\'s "q"'}),
    ]
    assert extraction.notes == []


# --- the corpus of malformed replies ------------------------------------------------------------------------------


def test_the_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 20
    assert len({case["name"] for case in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("case", CORPUS, ids=[case["name"] for case in CORPUS])
def test_corpus_reply_extracts_as_expected(case: dict[str, Any]) -> None:
    extraction = extract_calls(case["reply"], tools=KNOWN, response_id="resp_1")
    assert extraction.content == case["content"]
    calls = [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in extraction.tool_calls]
    assert calls == [(c["name"], c["arguments"]) for c in case["calls"]]
    for repair in case["repairs"]:
        assert any(repair in note for note in extraction.notes), (repair, extraction.notes)
    if not case["repairs"]:
        assert not [note for note in extraction.notes if "call" in note and "unknown" not in note], extraction.notes
    assert extraction.unknown == case["unknown"]
    assert len({c["id"] for c in extraction.tool_calls}) == len(extraction.tool_calls)


@pytest.mark.parametrize("case", CORPUS, ids=[case["name"] for case in CORPUS])
@SETTINGS
@given(data=st.data())
def test_property_corpus_streams_to_the_whole_extraction(case: dict[str, Any], data: st.DataObject) -> None:
    reply = case["reply"]
    cuts = sorted(data.draw(st.lists(st.integers(0, len(reply)), max_size=15)))
    pieces = [reply[a:b] for a, b in itertools.pairwise([0, *cuts, len(reply)])]
    events, stream = _stream(pieces)
    whole = extract_calls(reply, tools=KNOWN, response_id="resp_1")
    assert _fold(events) == whole.message()
    assert stream.notes == whole.notes


# --- streaming behaviour ------------------------------------------------------------------------------------------


def test_text_streams_before_the_call_and_arguments_grow_live() -> None:
    stream = PromptedStream(response_id="r")
    first = stream.feed("Let me check.\n```tool_")
    assert first == [ev.TextDelta("Let me check.")]
    second = stream.feed('call\n{"name": "get_weather", "arguments": {"city": "Par')
    assert isinstance(second[0], ev.ToolCallStart) and second[0].name == "get_weather"
    assert "".join(e.arguments for e in second if isinstance(e, ev.ToolCallDelta)) == '{"city": "Par'
    third = stream.feed('is"}}\n```\nDone.') + stream.close()
    assert [type(e).__name__ for e in third] == ["ToolCallDelta", "ToolCallEnd", "TextDelta"]
    assert third[-1] == ev.TextDelta("\n\nDone.")


def test_an_unfinished_opener_is_held_back_then_released_as_text() -> None:
    stream = PromptedStream()
    assert stream.feed("Costs {") == [ev.TextDelta("Costs")]
    assert stream.feed("5} or ``") == [ev.TextDelta(" {5} or")]
    assert stream.close() == [ev.TextDelta(" ``")]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
prose = st.text(st.characters(blacklist_characters="`{<"), max_size=20)


@st.composite
def protocol_replies(draw: st.DrawFn) -> tuple[str, list[tuple[str, Any]]]:
    calls = draw(
        st.lists(
            st.tuples(st.sampled_from(sorted(KNOWN)), st.dictionaries(st.text(max_size=6), json_values, max_size=3)),
            max_size=3,
        )
    )
    blocks = [
        f"```tool_call\n{json.dumps({'name': n, 'arguments': a}, ensure_ascii=draw(st.booleans()))}\n```"
        for n, a in calls
    ]
    text = draw(prose) + "\n" + "\n".join(blocks) + "\n" + draw(prose)
    return text, calls


@SETTINGS
@given(protocol_replies(), st.data())
def test_property_well_formed_replies_stream_like_they_parse(
    case: tuple[str, list[tuple[str, Any]]], data: st.DataObject
) -> None:
    text, calls = case
    whole = extract_calls(text, tools=KNOWN, response_id="resp_1")
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in whole.tool_calls] == calls
    assert whole.notes == []
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=20)))
    events, _ = _stream([text[a:b] for a, b in itertools.pairwise([0, *cuts, len(text)])])
    assert _fold(events) == whole.message()


FUZZ_TOKENS = [
    "```",
    "```tool_call\n",
    "```json\n",
    "<tool_call>",
    "</tool_call>",
    "{",
    "}",
    "[",
    "]",
    '"',
    "'",
    ",",
    ":",
    " ",
    "\n",
    '"name"',
    "'name'",
    '"arguments"',
    '"parameters"',
    "True",
    "None",
    "x",
    "1",
    "1.5e3",
    "\\",
    "\\u00e9",
    "\\ud83d",
    '"get_weather"',
    "é",
    "`",
]
tokens = st.sampled_from(FUZZ_TOKENS)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(tokens, max_size=40).map("".join), st.data())
def test_property_any_text_is_read_the_same_in_any_fragments(text: str, data: st.DataObject) -> None:
    whole = extract_calls(text, tools=KNOWN, response_id="resp_1")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=10)))
    events, stream = _stream([text[a:b] for a, b in itertools.pairwise([0, *cuts, len(text)])])
    assert _fold(events) == whole.message()
    assert stream.notes == whole.notes


def test_a_cut_name_leaves_the_object_as_text() -> None:
    extraction = extract_calls('Try {"name": "get_wea')
    assert extraction.tool_calls == []
    assert extraction.content == 'Try\n\n{"name": "get_wea'
    assert "a JSON object without a tool name kept as text" in extraction.notes
