"""The scripted model on internal requests: directives, tool matching, tool_choice, parallel calls, tool loops."""

from __future__ import annotations

import json
from typing import Any

from providers.simulator.directives import parse_directives
from providers.simulator.faults import FAULTS, break_arguments
from providers.simulator.matching import match_tools
from providers.simulator.model import Reply, respond
from tests.providers.simulator_fixtures import ADD, WEATHER

MULTIPLY = {
    "type": "function",
    "function": {
        "name": "multiply",
        "description": "Multiply two numbers",
        "parameters": ADD["function"]["parameters"],
    },
}
TOOLS = [WEATHER, ADD, MULTIPLY]


def ask(text: str, *, tools: list[Any] | None = None, seed: int = 1, **extra: Any) -> Reply:
    request: Any = {"model": "sim-1", "messages": [{"role": "user", "content": text}], **extra}
    request["tools"] = TOOLS if tools is None else tools
    return respond(request, seed=seed)


def calls(reply: Reply) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, json.loads(c.arguments)) for c in reply.calls]


def test_directives_are_parsed_line_by_line() -> None:
    parsed = parse_directives('Hi\n/call get_weather {"city":"Paris"}\n  /CALL add\n/text one\n/text two\n/think why')
    assert [(c.name, c.arguments) for c in parsed.calls] == [("get_weather", '{"city":"Paris"}'), ("add", None)]
    assert parsed.text == "one\ntwo"
    assert parsed.think and parsed.reasoning == "why"
    assert parsed.prose == "Hi"
    assert not parse_directives("a /call in the middle is prose").any


def test_call_directive_uses_exact_arguments_and_generates_missing_ones() -> None:
    reply = ask('/call get_weather {"city":"Paris"}\n/call add')
    assert reply.calls[0].arguments == '{"city":"Paris"}'
    name, arguments = calls(reply)[1]
    assert name == "add" and set(arguments) == {"a", "b"}


def test_call_directive_keeps_invalid_json_verbatim() -> None:
    assert ask("/call get_weather {city: Paris").calls[0].arguments == "{city: Paris"


def test_text_and_think_directives() -> None:
    reply = ask("/text Just this.\n/think Thinking it over.")
    assert reply == Reply("Thinking it over.", "Just this.", ())


def test_a_named_tool_is_called_with_the_message_values() -> None:
    assert calls(ask("add 2 and 3")) == [("add", {"a": 2, "b": 3})]


def test_several_matching_tools_give_parallel_calls_in_the_order_asked() -> None:
    assert calls(ask("multiply 4 by 5, then add 2 and 3")) == [
        ("multiply", {"a": 4, "b": 5}),
        ("add", {"a": 2, "b": 3}),
    ]


def test_one_call_per_place_for_a_tool_taking_a_city() -> None:
    cities = [arguments["city"] for _, arguments in calls(ask("What's the weather in Paris and Tokyo?"))]
    assert cities == ["Paris", "Tokyo"]


def test_description_words_match_when_no_name_does() -> None:
    assert match_tools("How warm is it? Check the current weather", TOOLS) == ["get_weather"]
    assert match_tools("Multiply these numbers", TOOLS) == ["multiply"]
    assert match_tools("hello there", TOOLS) == []


def test_no_match_gives_a_text_reply_naming_the_tools() -> None:
    reply = ask("hello there")
    assert not reply.calls
    assert reply.text is not None and all(name in reply.text for name in ("get_weather", "add", "multiply"))


def test_without_tools_the_reply_says_so() -> None:
    reply = ask("hello", tools=[])
    assert not reply.calls and reply.text is not None and "no tools" in reply.text


def test_tool_choice_none_never_calls() -> None:
    reply = ask("/call add {}\nadd 2 and 3", tool_choice="none")
    assert not reply.calls and reply.text is not None and "tool_choice none" in reply.text


def test_tool_choice_required_always_calls() -> None:
    assert [name for name, _ in calls(ask("hello there", tool_choice="required"))] == ["get_weather"]


def test_a_named_tool_choice_calls_that_tool_only() -> None:
    choice = {"type": "function", "function": {"name": "multiply"}}
    assert [name for name, _ in calls(ask("add 2 and 3", tool_choice=choice))] == ["multiply"]


def test_parallel_disabled_calls_one_per_turn_in_order() -> None:
    messages: list[Any] = [{"role": "user", "content": "weather in Paris and Tokyo"}]
    seen = []
    for turn in range(3):
        reply = respond({"model": "sim-1", "messages": messages, "tools": TOOLS, "parallel_tool_calls": False}, seed=9)
        if not reply.calls:
            break
        assert len(reply.calls) == 1
        call = reply.calls[0]
        seen.append(json.loads(call.arguments)["city"])
        call_id = f"call_{turn}"
        messages.append({"role": "assistant", "content": None, "tool_calls": [_call(call_id, call)]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": f"{20 + turn} degrees"})
    assert seen == ["Paris", "Tokyo"]
    assert reply.text is not None and "20 degrees" in reply.text and "21 degrees" in reply.text


def test_after_tool_results_the_answer_quotes_them() -> None:
    messages: list[Any] = [
        {"role": "user", "content": "add 2 and 3"},
        {"role": "assistant", "content": None, "tool_calls": [_call("c1", ask("add 2 and 3").calls[0])]},
        {"role": "tool", "tool_call_id": "c1", "content": "5"},
    ]
    reply = respond({"model": "sim-1", "messages": messages, "tools": TOOLS}, seed=1)
    assert not reply.calls and reply.text is not None and "“5”" in reply.text


def test_a_failed_tool_is_reported_as_failed() -> None:
    messages: list[Any] = [
        {"role": "user", "content": "add 2 and 3"},
        {"role": "assistant", "content": None, "tool_calls": [_call("c1", ask("add 2 and 3").calls[0])]},
        {"role": "tool", "tool_call_id": "c1", "content": "division by zero", "is_error": True},
    ]
    reply = respond({"model": "sim-1", "messages": messages, "tools": TOOLS}, seed=1)
    assert reply.text is not None and "failed with “division by zero”" in reply.text


def test_reasoning_comes_when_enabled() -> None:
    reply = ask("add 2 and 3", reasoning={"enabled": True})
    assert reply.reasoning is not None and "add" in reply.reasoning
    assert ask("add 2 and 3").reasoning is None


def test_same_request_and_seed_give_the_same_reply() -> None:
    assert ask("hello", tool_choice="required", seed=4) == ask("hello", tool_choice="required", seed=4)


def test_faults_break_the_first_call() -> None:
    reply = ask("add 2 and 3")
    broken = break_arguments(reply, FAULTS["sim-badjson"]).calls[0].arguments
    assert not _parses(broken)
    assert break_arguments(reply, FAULTS["sim-empty-args"]).calls[0].arguments == ""
    assert break_arguments(reply, FAULTS["sim-429"]) == reply


def test_force_call_makes_a_call_whatever_the_message() -> None:
    request: Any = {"model": "sim-1", "messages": [{"role": "user", "content": "hi"}], "tools": TOOLS}
    assert respond(request, seed=1, force_call=True).calls


def _call(call_id: str, planned: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": planned.name, "arguments": planned.arguments}}


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
