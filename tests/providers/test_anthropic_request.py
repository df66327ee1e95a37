"""Internal request -> Anthropic Messages request body: system, max_tokens, thinking, tools, provider_data."""

from __future__ import annotations

from typing import Any

import pytest

from providers.anthropic import encode_request
from providers.translation import TranslationError
from providers.types import Message
from tests.providers.anthropic_builders import call as _call
from tests.providers.anthropic_builders import loop as _loop
from tests.providers.anthropic_builders import request as _request
from tests.providers.anthropic_builders import tool as _tool

# --- system ------------------------------------------------------------------------------------------------------


def test_one_system_message_becomes_the_top_level_system_string() -> None:
    translation = encode_request(
        _request({"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"})
    )
    assert translation.value["system"] == "Be brief."
    assert translation.value["messages"] == [{"role": "user", "content": "hi"}]
    assert "system message moved to the top-level `system` field" in translation.notes


def test_system_and_developer_messages_are_concatenated_in_order() -> None:
    messages: list[Message] = [
        {"role": "system", "content": "One."},
        {"role": "developer", "content": "Two."},
        {"role": "user", "content": "hi"},
    ]
    translation = encode_request(_request(*messages))
    assert translation.value["system"] == [{"type": "text", "text": "One."}, {"type": "text", "text": "Two."}]
    assert "message 1: developer message sent as system (Anthropic has no developer role)" in translation.notes
    assert "2 system messages sent in order as the top-level `system` field (2 text blocks)" in translation.notes


def test_a_system_message_in_the_middle_is_moved_to_the_top() -> None:
    messages: list[Message] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "system", "content": "Answer in French."},
        {"role": "user", "content": "bye"},
    ]
    translation = encode_request(_request(*messages))
    assert translation.value["system"] == "Answer in French."
    assert [m["role"] for m in translation.value["messages"]] == ["user", "assistant", "user"]
    assert (
        "message 2 (system): moved to the top-level `system` field "
        "(Anthropic has no system message inside the conversation)"
    ) in translation.notes


# --- max_tokens, thinking ----------------------------------------------------------------------------------------


def test_max_tokens_is_supplied_when_missing() -> None:
    request = _request({"role": "user", "content": "hi"})
    del request["max_tokens"]
    translation = encode_request(request)
    assert translation.value["max_tokens"] == 4096
    assert "max_tokens set to 4096 (required by Anthropic)" in translation.notes


def test_a_given_max_tokens_is_kept_without_a_note() -> None:
    translation = encode_request(_request({"role": "user", "content": "hi"}))
    assert translation.value["max_tokens"] == 1024
    assert not [note for note in translation.notes if "max_tokens" in note]


def test_reasoning_becomes_thinking_with_the_default_budget() -> None:
    request = _request({"role": "user", "content": "hi"}, reasoning={"enabled": True}, max_tokens=8000)
    translation = encode_request(request)
    assert translation.value["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert "thinking budget set to 2048 tokens (none given)" in translation.notes


def test_max_tokens_is_raised_above_the_thinking_budget() -> None:
    request = _request({"role": "user", "content": "hi"}, reasoning={"enabled": True, "budget_tokens": 4000})
    translation = encode_request(request)
    assert translation.value["max_tokens"] == 8096
    assert translation.value["thinking"] == {"type": "enabled", "budget_tokens": 4000}
    assert "max_tokens raised from 1024 to 8096: it must exceed the thinking budget (4000)" in translation.notes


def test_a_budget_below_the_minimum_is_raised() -> None:
    request = _request({"role": "user", "content": "hi"}, reasoning={"budget_tokens": 500}, max_tokens=9000)
    translation = encode_request(request)
    assert translation.value["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert "thinking budget raised from 500 to 1024 tokens (Anthropic's minimum)" in translation.notes


def test_a_temperature_other_than_1_with_thinking_is_reported() -> None:
    request = _request({"role": "user", "content": "hi"}, reasoning={"budget_tokens": 2048}, temperature=0.2)
    translation = encode_request(request)
    assert translation.value["temperature"] == 0.2
    assert "temperature 0.2 with thinking enabled: Anthropic accepts only 1" in translation.notes


def test_a_tool_loop_without_a_thinking_block_to_send_back_is_reported() -> None:
    messages = _loop(_tool("toolu_A"), _tool("toolu_B", "6"))
    translation = encode_request(_request(*messages, reasoning={"budget_tokens": 2048}, max_tokens=4000))
    assert (
        "thinking is enabled but the last assistant turn has no thinking block to send back "
        "(from another format, or made without thinking); Anthropic rejects such a tool loop"
    ) in translation.notes
    messages[1]["provider_data"] = {"format": "anthropic", "blocks": [{"type": "redacted_thinking", "data": "E"}]}
    translation = encode_request(_request(*messages, reasoning={"budget_tokens": 2048}, max_tokens=4000))
    assert not [note for note in translation.notes if "no thinking block" in note]


def test_disabled_reasoning_and_effort() -> None:
    request = _request({"role": "user", "content": "hi"}, reasoning={"enabled": False, "effort": "high"})
    translation = encode_request(request)
    assert translation.value["thinking"] == {"type": "disabled"}
    assert "reasoning effort `high` dropped (Anthropic thinking takes a token budget)" in translation.notes


# --- tool_choice and tools ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", {"type": "auto"}),
        ("none", {"type": "none"}),
        ("required", {"type": "any"}),
        ({"type": "function", "function": {"name": "add"}}, {"type": "tool", "name": "add"}),
    ],
)
def test_tool_choice_mapping(choice: Any, wire: dict[str, Any]) -> None:
    assert encode_request(_request({"role": "user", "content": "hi"}, tool_choice=choice)).value["tool_choice"] == wire


def test_parallel_tool_calls_false_disables_parallel_use_on_an_auto_choice() -> None:
    translation = encode_request(_request({"role": "user", "content": "hi"}, parallel_tool_calls=False))
    assert translation.value["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}
    assert "parallel_tool_calls=false sent as tool_choice.disable_parallel_tool_use=true" in translation.notes


def test_parallel_switch_on_a_named_choice() -> None:
    choice = {"type": "function", "function": {"name": "add"}}
    request = _request({"role": "user", "content": "hi"}, tool_choice=choice, parallel_tool_calls=True)
    assert encode_request(request).value["tool_choice"] == {
        "type": "tool",
        "name": "add",
        "disable_parallel_tool_use": False,
    }


def test_parallel_switch_is_dropped_with_tool_choice_none() -> None:
    request = _request({"role": "user", "content": "hi"}, tool_choice="none", parallel_tool_calls=False)
    translation = encode_request(request)
    assert translation.value["tool_choice"] == {"type": "none"}
    assert "parallel_tool_calls dropped: Anthropic takes no parallel switch with tool_choice none" in translation.notes


def test_an_unknown_tool_choice_is_refused() -> None:
    with pytest.raises(TranslationError, match="tool_choice 'sometimes'"):
        encode_request(_request({"role": "user", "content": "hi"}, tool_choice="sometimes"))


def test_forcing_a_tool_with_thinking_is_reported() -> None:
    request = _request({"role": "user", "content": "hi"}, tool_choice="required", reasoning={"budget_tokens": 2048})
    assert (
        "tool_choice `any` with thinking enabled: Anthropic accepts only auto or none" in encode_request(request).notes
    )


def test_tools_carry_an_input_schema() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    tools: Any = [
        {"type": "function", "function": {"name": "add", "description": "Add", "parameters": schema, "strict": True}},
        {"type": "function", "function": {"name": "list_doors"}},
    ]
    body = encode_request(_request({"role": "user", "content": "hi"}, tools=tools)).value
    assert body["tools"] == [
        {"name": "add", "description": "Add", "input_schema": schema, "strict": True},
        {"name": "list_doors", "input_schema": {"type": "object", "properties": {}}},
    ]


# --- provider_data -----------------------------------------------------------------------------------------------


def _thinking_turn(data_format: str) -> Message:
    return {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [_call("toolu_A")],
        "provider_data": {
            "format": data_format,
            "blocks": [
                {"type": "thinking", "thinking": "Add them.", "signature": "EtYDCkYIsig"},
                {"type": "redacted_thinking", "data": "EqkECkYIredacted"},
            ],
            "reasoning": "Add them.",
        },
    }


def test_thinking_blocks_go_back_unchanged_and_first() -> None:
    messages = [{"role": "user", "content": "2+3?"}, _thinking_turn("anthropic"), _tool("toolu_A")]
    translation = encode_request(_request(*messages))  # type: ignore[arg-type]
    content = translation.value["messages"][1]["content"]
    assert content == [
        {"type": "thinking", "thinking": "Add them.", "signature": "EtYDCkYIsig"},
        {"type": "redacted_thinking", "data": "EqkECkYIredacted"},
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_A", "name": "add", "input": {"a": 2, "b": 3}},
    ]
    assert (
        "1 thinking block and 1 redacted_thinking block carried back unchanged, first in their assistant messages"
    ) in translation.notes


def test_reasoning_of_another_format_is_dropped_with_a_note() -> None:
    messages = [{"role": "user", "content": "2+3?"}, _thinking_turn("openai-chat"), _tool("toolu_A")]
    translation = encode_request(_request(*messages))  # type: ignore[arg-type]
    assert [b["type"] for b in translation.value["messages"][1]["content"]] == ["text", "tool_use"]
    assert (
        "reasoning dropped: target format has no equivalent (message 1 (assistant), from openai-chat)"
        in translation.notes
    )


def test_unknown_call_fields_go_back_on_the_same_format_only() -> None:
    same = _call("toolu_A")
    same["provider_data"] = {"format": "anthropic", "fields": {"caller": {"type": "direct"}}}
    other = _call("toolu_B")
    other["provider_data"] = {"format": "openai-chat", "fields": {"index": 0}}
    translation = encode_request(_request(*_loop(calls=[same, other])))
    first, second = translation.value["messages"][1]["content"]
    assert first["caller"] == {"type": "direct"}
    assert "index" not in second
    assert (
        "message 1 (assistant) call 1 (add): openai-chat call fields dropped: target format has no equivalent"
        in translation.notes
    )


def test_unknown_request_fields_go_back_on_the_same_format_only() -> None:
    kept: Any = {"format": "anthropic", "fields": {"metadata": {"user_id": "u1"}, "top_k": 5}}
    translation = encode_request(_request({"role": "user", "content": "hi"}, provider_data=kept))
    assert translation.value["metadata"] == {"user_id": "u1"}
    assert translation.value["top_k"] == 5
    assert "request fields carried back unchanged: metadata, top_k" in translation.notes
    foreign: Any = {"format": "openai-chat", "fields": {"seed": 3}}
    translation = encode_request(_request({"role": "user", "content": "hi"}, provider_data=foreign))
    assert "seed" not in translation.value
    assert "request: openai-chat fields dropped (seed): target format has no equivalent" in translation.notes


# --- other content -----------------------------------------------------------------------------------------------


def test_images_become_image_blocks() -> None:
    parts = [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=", "detail": "high"}},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
        {"type": "text", "text": "What is this?"},
    ]
    translation = encode_request(_request({"role": "user", "content": parts}))
    assert translation.value["messages"][0]["content"] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}},
        {"type": "text", "text": "What is this?"},
    ]
    assert "message 0 (user): image detail `high` dropped (Anthropic has no detail setting)" in translation.notes


def test_message_names_are_dropped_with_a_note() -> None:
    translation = encode_request(_request({"role": "user", "content": "hi", "name": "alice"}))
    assert translation.value["messages"] == [{"role": "user", "content": "hi"}]
    assert "message 0 (user): name `alice` dropped (no Anthropic field)" in translation.notes


def test_an_unknown_role_is_refused() -> None:
    with pytest.raises(TranslationError, match="message 0: unknown role 'function'"):
        encode_request(_request({"role": "function", "content": "x"}))  # type: ignore[typeddict-item]
