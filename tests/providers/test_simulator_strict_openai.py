"""OpenAI strictness: each bad history is refused with api.openai.com's error shape, and its fix is accepted."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from tests.providers.simulator_fixtures import ADD, WEATHER, openai_client, post_openai, user

CALL = {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": '{"a":1,"b":2}'}}
CALL_2 = {"id": "call_2", "type": "function", "function": {"name": "add", "arguments": '{"a":3,"b":4}'}}
ASSISTANT = {"role": "assistant", "content": None, "tool_calls": [CALL]}
RESULT = {"role": "tool", "tool_call_id": "call_1", "content": "3"}


def body(messages: list[Any], **extra: Any) -> dict[str, Any]:
    return {"model": "sim-1", "messages": messages, "tools": [ADD], **extra}


def renamed(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {**ADD["function"], "name": name}}


CASES: list[tuple[str, dict[str, Any], dict[str, Any], str, str | None, str | None]] = [
    (
        "tool without a preceding call",
        body([user("hi"), RESULT]),
        body([user("hi"), ASSISTANT, RESULT]),
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        "messages.[1].role",
        None,
    ),
    (
        "result for an unknown call id",
        body([user("hi"), ASSISTANT, {**RESULT, "tool_call_id": "call_9"}]),
        body([user("hi"), ASSISTANT, RESULT]),
        "Invalid parameter: 'tool_call_id' of 'call_9' not found in 'tool_calls' of previous message.",
        "messages.[2].tool_call_id",
        None,
    ),
    (
        "content null without tool_calls",
        body([user("hi"), {"role": "assistant", "content": None}, user("again")]),
        body([user("hi"), {"role": "assistant", "content": "hello"}, user("again")]),
        "Invalid value for 'content': expected a string, got null.",
        "messages.[1].content",
        None,
    ),
    (
        "a call left unanswered before the next user message",
        body([user("hi"), {**ASSISTANT, "tool_calls": [CALL, CALL_2]}, RESULT, user("next")]),
        body(
            [
                user("hi"),
                {**ASSISTANT, "tool_calls": [CALL, CALL_2]},
                RESULT,
                {"role": "tool", "tool_call_id": "call_2", "content": "7"},
                user("next"),
            ]
        ),
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        "'tool_call_id'. The following tool_call_ids did not have response messages: call_2",
        "messages.[1].role",
        None,
    ),
    (
        "a tool name outside the pattern",
        {**body([user("hi")]), "tools": [renamed("get weather")]},
        {**body([user("hi")]), "tools": [renamed("get_weather")]},
        "Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the "
        "pattern '^[a-zA-Z0-9_-]+$'.",
        "tools[0].function.name",
        "invalid_value",
    ),
    (
        "a tool name over 64 characters",
        {**body([user("hi")]), "tools": [renamed("t" * 65)]},
        {**body([user("hi")]), "tools": [renamed("t" * 64)]},
        "Invalid 'tools[0].function.name': string too long. Expected a string with maximum length 64, but got a "
        "string with length 65 instead.",
        "tools[0].function.name",
        "string_above_max_length",
    ),
    (
        "a tool call id over 40 characters",
        body(
            [user("hi"), {**ASSISTANT, "tool_calls": [{**CALL, "id": "c" * 41}]}, {**RESULT, "tool_call_id": "c" * 41}]
        ),
        body(
            [user("hi"), {**ASSISTANT, "tool_calls": [{**CALL, "id": "c" * 40}]}, {**RESULT, "tool_call_id": "c" * 40}]
        ),
        "Invalid 'messages[1].tool_calls[0].id': string too long. Expected a string with maximum length 40, but got "
        "a string with length 41 instead.",
        "messages[1].tool_calls[0].id",
        "string_above_max_length",
    ),
    (
        "tool_choice without tools",
        {"model": "sim-1", "messages": [user("hi")], "tool_choice": "auto"},
        {"model": "sim-1", "messages": [user("hi")]},
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
        "tool_choice",
        None,
    ),
    (
        "stream_options without stream",
        body([user("hi")], stream_options={"include_usage": True}),
        body([user("hi")], stream_options={"include_usage": True}, stream=True),
        "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
        "stream_options",
        None,
    ),
    (
        "empty messages",
        body([]),
        body([user("hi")]),
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        "messages",
        "empty_array",
    ),
    (
        "an unknown tool_choice value",
        body([user("hi")], tool_choice="always"),
        body([user("hi")], tool_choice="required"),
        "Invalid value: 'always'. Supported values are: 'none', 'auto', and 'required'.",
        "tool_choice",
        "invalid_value",
    ),
    (
        "tool_calls that are not an array",
        body([user("hi"), {"role": "assistant", "content": None, "tool_calls": CALL}, RESULT]),
        body([user("hi"), ASSISTANT, RESULT]),
        "Invalid type for 'messages[1].tool_calls': expected an array of objects, but got an object instead.",
        "messages[1].tool_calls",
        "invalid_type",
    ),
    (
        "DeepSeek wants its reasoning back in a tool loop",
        {**body([user("hi"), ASSISTANT, RESULT]), "model": "sim-deepseek"},
        {**body([user("hi"), {**ASSISTANT, "reasoning_content": "I add."}, RESULT]), "model": "sim-deepseek"},
        "Missing `reasoning_content` field in the assistant message at message index 1",
        None,
        None,
    ),
]


@pytest.mark.parametrize(("bad", "good", "message", "param", "code"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_rule_rejects_then_accepts(
    bad: dict[str, Any], good: dict[str, Any], message: str, param: str | None, code: str | None
) -> None:
    refused = await post_openai(bad)
    assert refused.status_code == 400
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    assert refused.json() == {"error": error}
    accepted = await post_openai(good)
    assert accepted.status_code == 200, accepted.text


async def test_the_sdk_raises_bad_request_with_the_body() -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        await openai_client().chat.completions.create(model="sim-1", messages=[user("hi"), RESULT], tools=[WEATHER])
    assert caught.value.status_code == 400 and caught.value.param == "messages.[1].role"
