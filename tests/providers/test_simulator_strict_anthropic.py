"""Anthropic strictness: each bad history is refused with api.anthropic.com's error shape, and its fix is accepted."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from providers.simulator.strict_anthropic import thinking_signature
from tests.providers.simulator_fixtures import A_ADD, anthropic_client, post_anthropic, user

TOOL_USE = {"type": "tool_use", "id": "toolu_01A", "name": "add", "input": {"a": 1, "b": 2}}
TOOL_USE_2 = {"type": "tool_use", "id": "toolu_01B", "name": "add", "input": {"a": 3, "b": 4}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "3"}
RESULT_2 = {"type": "tool_result", "tool_use_id": "toolu_01B", "content": "7"}
TEXT = {"type": "text", "text": "Thanks."}
THOUGHT = "I should add the numbers."
THINKING_BLOCK = {"type": "thinking", "thinking": THOUGHT, "signature": thinking_signature(THOUGHT)}
THINKING = {"type": "enabled", "budget_tokens": 1024}


def body(messages: list[Any], **extra: Any) -> dict[str, Any]:
    return {"model": "sim-1", "max_tokens": 2048, "messages": messages, "tools": [A_ADD], **extra}


def assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


def results(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def renamed_call(call_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    return {**TOOL_USE, "id": call_id}, {**RESULT, "tool_use_id": call_id}


BAD_ID_CALL, BAD_ID_RESULT = renamed_call("functions.add:0")
GOOD_ID_CALL, GOOD_ID_RESULT = renamed_call("functions_add_0")

CASES: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    (
        "tool_use without its tool_result",
        body([user("add"), assistant(TOOL_USE, TOOL_USE_2), results(RESULT)]),
        body([user("add"), assistant(TOOL_USE, TOOL_USE_2), results(RESULT, RESULT_2)]),
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01B. Each "
        "`tool_use` block must have a corresponding `tool_result` block in the next message.",
    ),
    (
        "results not first in the next message",
        body([user("add"), assistant(TOOL_USE), results(TEXT, RESULT)]),
        body([user("add"), assistant(TOOL_USE), results(RESULT, TEXT)]),
        "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. Messages following "
        "`tool_use` blocks must begin with a matching number of `tool_result` blocks.",
    ),
    (
        "a result for no call of the previous message",
        body([user("add"), assistant(TOOL_USE), results(RESULT, RESULT_2)]),
        body([user("add"), assistant(TOOL_USE), results(RESULT)]),
        "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01B. Each "
        "`tool_result` block must have a corresponding `tool_use` block in the previous message.",
    ),
    (
        "an empty text block",
        body([{"role": "user", "content": [{"type": "text", "text": ""}]}]),
        body([{"role": "user", "content": [{"type": "text", "text": "hi"}]}]),
        "messages: text content blocks must be non-empty",
    ),
    (
        "an empty message",
        body([user(""), assistant(TEXT), user("hi")]),
        body([user("hello"), assistant(TEXT), user("hi")]),
        "messages.0: all messages must have non-empty content except for the optional final assistant message",
    ),
    (
        "missing max_tokens",
        {"model": "sim-1", "messages": [user("hi")]},
        {"model": "sim-1", "messages": [user("hi")], "max_tokens": 64},
        "max_tokens: Field required",
    ),
    (
        "a tool id outside the pattern",
        body([user("add"), assistant(BAD_ID_CALL), results(BAD_ID_RESULT)]),
        body([user("add"), assistant(GOOD_ID_CALL), results(GOOD_ID_RESULT)]),
        "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
    ),
    (
        "a system message in messages",
        body([{"role": "system", "content": "Be brief."}, user("hi")]),
        body([user("hi")], system="Be brief."),
        'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" '
        "as an input message role.",
    ),
    (
        "thinking enabled but the tool loop's assistant turn does not start with it",
        body([user("add"), assistant(TOOL_USE), results(RESULT)], thinking=THINKING),
        body([user("add"), assistant(THINKING_BLOCK, TOOL_USE), results(RESULT)], thinking=THINKING),
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When "
        "`thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the "
        "lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from "
        "previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at "
        "https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
    ),
    (
        "a thinking block whose signature does not match",
        body([user("add"), assistant({**THINKING_BLOCK, "signature": "Zm9yZ2Vk"}, TOOL_USE), results(RESULT)]),
        body([user("add"), assistant(THINKING_BLOCK, TOOL_USE), results(RESULT)]),
        "messages.1.content.0: Invalid `signature` in `thinking` block",
    ),
    (
        "a thinking budget under 1024",
        body([user("hi")], thinking={"type": "enabled", "budget_tokens": 100}),
        body([user("hi")], thinking=THINKING),
        "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
    ),
    (
        "thinking with a forced tool",
        body([user("hi")], thinking=THINKING, tool_choice={"type": "any"}),
        body([user("hi")], thinking=THINKING, tool_choice={"type": "auto"}),
        "Thinking may not be enabled when tool_choice forces tool use.",
    ),
    (
        "no messages at all",
        body([]),
        body([user("hi")]),
        "messages: at least one message is required",
    ),
    (
        "an unknown tool_choice type",
        body([user("hi")], tool_choice={"type": "required"}),
        body([user("hi")], tool_choice={"type": "any"}),
        "tool_choice: Input tag 'required' found using 'type' does not match any of the expected tags: 'auto', "
        "'any', 'tool', 'none'",
    ),
    (
        "tool_use input that is not an object",
        body([user("add"), assistant({**TOOL_USE, "input": '{"a": 1}'}), results(RESULT)]),
        body([user("add"), assistant(TOOL_USE), results(RESULT)]),
        "messages.1.content.0.tool_use.input: Input should be a valid dictionary",
    ),
    (
        "a tool name outside the pattern",
        {**body([user("hi")]), "tools": [{**A_ADD, "name": "add numbers"}]},
        {**body([user("hi")]), "tools": [{**A_ADD, "name": "add_numbers"}]},
        "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
    ),
]


@pytest.mark.parametrize(("bad", "good", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_rule_rejects_then_accepts(bad: dict[str, Any], good: dict[str, Any], message: str) -> None:
    refused = await post_anthropic(bad)
    assert refused.status_code == 400
    payload = refused.json()
    assert payload["type"] == "error" and payload["request_id"].startswith("req_")
    assert payload["error"] == {"type": "invalid_request_error", "message": message}
    assert refused.headers["request-id"] == payload["request_id"]
    accepted = await post_anthropic(good)
    assert accepted.status_code == 200, accepted.text


async def test_the_sdk_raises_bad_request_with_the_body() -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        await anthropic_client().messages.create(
            model="sim-1", max_tokens=64, messages=[user("add"), assistant(TOOL_USE), user("no results")]
        )
    assert caught.value.status_code == 400 and "toolu_01A" in caught.value.body["error"]["message"]
