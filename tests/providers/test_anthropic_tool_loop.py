"""Tool loops on the Anthropic wire: call ids, where results go, arguments as input objects, empty content."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from providers.anthropic import encode_request
from providers.translation import TranslationError
from providers.types import Message
from tests.providers.anthropic_builders import call as _call
from tests.providers.anthropic_builders import loop as _loop
from tests.providers.anthropic_builders import request as _request
from tests.providers.anthropic_builders import tool as _tool

# --- ids ---------------------------------------------------------------------------------------------------------


def test_tool_call_ids_are_preserved_on_the_call_and_its_result() -> None:
    body = encode_request(_request(*_loop(_tool("toolu_A"), _tool("toolu_B", "6")))).value
    assert [b["id"] for b in body["messages"][1]["content"]] == ["toolu_A", "toolu_B"]
    assert [b["tool_use_id"] for b in body["messages"][2]["content"]] == ["toolu_A", "toolu_B"]


@pytest.mark.parametrize("bad_id", ["", None])
def test_an_empty_or_missing_call_id_is_refused(bad_id: str | None) -> None:
    call = _call("x")
    call["id"] = bad_id  # type: ignore[typeddict-item]
    with pytest.raises(TranslationError, match="tool call id is empty"):
        encode_request(_request(*_loop(calls=[call])))


def test_an_id_outside_the_anthropic_pattern_is_rewritten_on_the_call_and_its_result() -> None:
    translation = encode_request(_request(*_loop(_tool("functions.add:0"), calls=[_call("functions.add:0")])))
    call_id = translation.value["messages"][1]["content"][0]["id"]
    assert call_id.startswith("functions_add_0_")
    assert translation.value["messages"][2]["content"][0]["tool_use_id"] == call_id
    assert f"tool call id `functions.add:0` rewritten to `{call_id}`" in translation.notes[0]
    again = encode_request(_request(*_loop(_tool("functions.add:0"), calls=[_call("functions.add:0")])))
    assert again.value == translation.value  # deterministic across turns


def test_a_trailing_newline_makes_an_id_invalid() -> None:
    body = encode_request(_request(*_loop(_tool("toolu_1\n"), calls=[_call("toolu_1\n")]))).value
    assert body["messages"][1]["content"][0]["id"].startswith("toolu_1__")


def test_rewritten_ids_do_not_collide() -> None:
    calls = [_call("a.b"), _call("a:b")]
    body = encode_request(_request(*_loop(_tool("a.b"), _tool("a:b"), calls=calls))).value
    first, second = (block["id"] for block in body["messages"][1]["content"])
    assert first != second


# --- tool results ------------------------------------------------------------------------------------------------


def test_parallel_calls_are_one_assistant_message_and_results_one_user_message() -> None:
    translation = encode_request(_request(*_loop(_tool("toolu_A"), _tool("toolu_B", "6"))))
    assistant, results = translation.value["messages"][1:]
    assert [b["type"] for b in assistant["content"]] == ["tool_use", "tool_use"]
    assert results == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_A", "content": "5"},
            {"type": "tool_result", "tool_use_id": "toolu_B", "content": "6"},
        ],
    }
    assert "2 tool results (messages 2, 3) merged into one user message" in translation.notes


def test_user_text_after_the_results_joins_the_same_user_message_after_them() -> None:
    messages = _loop(_tool("toolu_A"), _tool("toolu_B", "6"), {"role": "user", "content": "Now explain."})
    translation = encode_request(_request(*messages))
    last = translation.value["messages"][-1]
    assert len(translation.value["messages"]) == 3
    assert [b["type"] for b in last["content"]] == ["tool_result", "tool_result", "text"]
    assert last["content"][2] == {"type": "text", "text": "Now explain."}
    assert "user text placed after the tool results, in the same user message" in translation.notes


def test_user_text_between_a_call_and_its_results_goes_after_the_results() -> None:
    messages = _loop({"role": "user", "content": "hurry"}, _tool("toolu_A"), _tool("toolu_B", "6"))
    translation = encode_request(_request(*messages))
    last = translation.value["messages"][-1]
    assert [b["type"] for b in last["content"]] == ["tool_result", "tool_result", "text"]
    assert "tool results moved before the user text of their message (Anthropic wants them first)" in translation.notes


def test_a_result_for_a_call_never_made_is_refused() -> None:
    with pytest.raises(TranslationError, match="answers call `toolu_Z`, which no earlier assistant message made"):
        encode_request(_request(*_loop(_tool("toolu_Z"))))


def test_a_result_that_does_not_follow_its_call_is_refused() -> None:
    messages = [*_loop(calls=[_call("toolu_A")]), {"role": "assistant", "content": "Never mind."}, _tool("toolu_A")]
    with pytest.raises(TranslationError, match="does not follow the assistant message that made the call"):
        encode_request(_request(*messages))


def test_a_second_result_for_the_same_call_is_refused() -> None:
    with pytest.raises(TranslationError, match="call `toolu_A` already has a result"):
        encode_request(_request(*_loop(_tool("toolu_A"), _tool("toolu_A"))))


def test_a_call_left_without_a_result_is_reported() -> None:
    translation = encode_request(_request(*_loop(_tool("toolu_A"))))
    assert "call `toolu_B` (multiply) has no tool result; Anthropic will reject the request" in translation.notes


def test_a_conversation_ending_on_the_calls_is_not_reported() -> None:
    translation = encode_request(_request(*_loop()))
    assert not [note for note in translation.notes if "no tool result" in note]


@pytest.mark.parametrize("flag", [True, False])
def test_is_error_travels_on_the_tool_result(flag: bool) -> None:
    messages = _loop(_tool("toolu_A", "boom", is_error=flag), _tool("toolu_B", "6"))
    results = encode_request(_request(*messages)).value["messages"][2]["content"]
    assert results[0]["is_error"] is flag
    assert "is_error" not in results[1]


def test_an_empty_tool_result_has_no_content_field() -> None:
    results = encode_request(_request(*_loop(_tool("toolu_A", ""), _tool("toolu_B", None)))).value["messages"][2]
    assert results["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_A"},
        {"type": "tool_result", "tool_use_id": "toolu_B"},
    ]


# --- arguments ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("arguments", ["", None, "{}", "  "])
def test_empty_arguments_become_an_empty_input_object(arguments: str | None) -> None:
    body = encode_request(_request(*_loop(calls=[_call("toolu_A", arguments=arguments)]))).value
    assert body["messages"][1]["content"][0]["input"] == {}


def test_absent_arguments_become_an_empty_input_object() -> None:
    call: Any = {"id": "toolu_A", "type": "function", "function": {"name": "list_doors"}}
    body = encode_request(_request(*_loop(calls=[call]))).value
    assert body["messages"][1]["content"][0]["input"] == {}


def test_arguments_are_parsed_once_into_the_input_object() -> None:
    arguments = json.dumps({"city": "Zürich", "days": [1, 2], "nested": {"x": None}})
    body = encode_request(_request(*_loop(calls=[_call("toolu_A", arguments=arguments)]))).value
    assert body["messages"][1]["content"][0]["input"] == {"city": "Zürich", "days": [1, 2], "nested": {"x": None}}


@pytest.mark.parametrize("arguments", ['{"a": 2, "b":', "[1, 2]", "plain words"])
def test_arguments_that_are_not_a_json_object_travel_verbatim_and_are_reported(arguments: str) -> None:
    translation = encode_request(_request(*_loop(calls=[_call("toolu_A", arguments=arguments)])))
    assert translation.value["messages"][1]["content"][0]["input"] == {"_raw_arguments": arguments}
    assert (
        'message 1 (assistant) call 0 (add): arguments are not a JSON object; sent verbatim as {"_raw_arguments": …}'
    ) in translation.notes


# --- empty content -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("content", [None, ""])
def test_a_tool_only_turn_sends_no_text_block(content: str | None) -> None:
    assistant: Message = {"role": "assistant", "content": content, "tool_calls": [_call("toolu_A")]}
    body = encode_request(_request({"role": "user", "content": "hi"}, assistant)).value
    assert [b["type"] for b in body["messages"][1]["content"]] == ["tool_use"]


def test_an_assistant_message_with_neither_text_nor_calls_is_dropped() -> None:
    messages: list[Message] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "   "},
        {"role": "user", "content": "hello?"},
    ]
    translation = encode_request(_request(*messages))
    assert [m["role"] for m in translation.value["messages"]] == ["user", "user"]
    assert "message 1 (assistant): empty assistant message dropped (no text and no tool calls)" in translation.notes
    assert "message 1 (assistant): empty text dropped (Anthropic rejects empty text blocks)" in translation.notes


def test_empty_user_content_and_blank_parts_are_dropped() -> None:
    parts = [{"type": "text", "text": ""}, {"type": "text", "text": "real"}]
    messages: list[Message] = [{"role": "user", "content": None}, {"role": "user", "content": parts}]
    translation = encode_request(_request(*messages))
    assert translation.value["messages"] == [{"role": "user", "content": [{"type": "text", "text": "real"}]}]
    assert "message 0 (user): empty user message dropped (Anthropic requires non-empty content)" in translation.notes
    assert "message 1 (user): empty text dropped (Anthropic rejects empty text blocks)" in translation.notes


def test_no_content_is_ever_null() -> None:
    messages = _loop(_tool("toolu_A", None), _tool("toolu_B", ""), {"role": "assistant", "content": None})
    body = encode_request(_request(*messages)).value
    assert "null" not in json.dumps(body)


# --- kept content -----------------------------------------------------------------------------------------------


def test_kept_user_content_is_not_changed_by_merging_results() -> None:
    kept = [{"type": "text", "text": "hurry", "cache_control": {"type": "ephemeral"}}]
    user: Message = {
        "role": "user",
        "content": [{"type": "text", "text": "hurry"}],
        "provider_data": {"format": "anthropic", "fields": {"content": kept}},
    }
    request = _request(*_loop(user, _tool("toolu_A"), _tool("toolu_B", "6")))
    before = copy.deepcopy(request)
    body = encode_request(request).value
    assert [b["type"] for b in body["messages"][2]["content"]] == ["tool_result", "tool_result", "text"]
    assert body["messages"][2]["content"][2] == kept[0]
    assert request == before
