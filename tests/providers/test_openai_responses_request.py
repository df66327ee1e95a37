"""Internal request -> Responses request body: instructions, input items, reasoning items, tools, settings, notes."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from providers.openai_responses import encode_request
from providers.translation import TranslationError
from providers.types import ChatRequest, Message, ToolCall

NAME = "openai-responses"
REASONING_ITEM: dict[str, Any] = {
    "id": "rs_07e1",
    "type": "reasoning",
    "summary": [{"type": "summary_text", "text": "Look it up."}],
    "encrypted_content": "gAAAAABk9x/+encrypted==",
}


def _request(*messages: Message, **extra: Any) -> ChatRequest:
    return {"model": "gpt-5", "messages": list(messages), **extra}  # type: ignore[typeddict-item]


def _call(call_id: str, name: str = "add", arguments: Any = '{"a":2,"b":3}', **data: Any) -> ToolCall:
    call: ToolCall = {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    if data:
        call["provider_data"] = data  # type: ignore[typeddict-item]
    return call


def _tool(call_id: str, content: Any = "5", **extra: Any) -> Message:
    return {"role": "tool", "tool_call_id": call_id, "content": content, **extra}  # type: ignore[typeddict-item]


USER: Message = {"role": "user", "content": "Add and multiply 2 and 3"}


# --- instructions and messages -----------------------------------------------------------------------------------


def test_the_first_system_message_becomes_instructions_and_the_others_stay_in_place() -> None:
    messages: list[Message] = [
        {"role": "system", "content": "Be brief."},
        {"role": "developer", "content": "Use metric units."},
        USER,
        {"role": "system", "content": "Answer in French."},
    ]
    translation = encode_request(_request(*messages))
    assert translation.value["instructions"] == "Be brief."
    assert translation.value["input"] == [
        {"role": "developer", "content": "Use metric units."},
        {"role": "user", "content": "Add and multiply 2 and 3"},
        {"role": "system", "content": "Answer in French."},
    ]
    assert "message 0 (system): sent as `instructions`" in translation.notes


def test_a_system_message_with_parts_stays_an_input_item() -> None:
    system: Message = {"role": "system", "content": [{"type": "text", "text": "Be brief."}]}
    body = encode_request(_request(system, USER)).value
    assert "instructions" not in body
    assert body["input"][0] == {"role": "system", "content": [{"type": "input_text", "text": "Be brief."}]}


def test_content_parts_become_input_parts() -> None:
    content = [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg", "detail": "low"}},
        {"type": "input_audio", "input_audio": {"data": "UklGR", "format": "wav"}},
    ]
    translation = encode_request(_request({"role": "user", "content": content}))
    assert translation.value["input"][0]["content"] == [
        {"type": "input_text", "text": "What is this?"},
        {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=", "detail": "auto"},
        {"type": "input_image", "image_url": "https://example.com/cat.jpg", "detail": "low"},
    ]
    assert "message 0 (user): input_audio content part dropped (no Responses equivalent)" in translation.notes


def test_a_name_on_a_message_is_dropped_with_a_note() -> None:
    translation = encode_request(_request({"role": "user", "content": "hi", "name": "alice"}))
    assert translation.value["input"] == [{"role": "user", "content": "hi"}]
    assert translation.notes == ["message 0 (user): name `alice` dropped (Responses messages have no name)"]


# --- tool calls and outputs --------------------------------------------------------------------------------------


def test_calls_become_function_call_items_paired_on_call_id() -> None:
    messages: list[Message] = [
        USER,
        {"role": "assistant", "content": None, "tool_calls": [_call("call_A"), _call("call_B", "multiply")]},
        _tool("call_B", "6"),
        _tool("call_A", "5"),
        {"role": "assistant", "content": "5 and 6."},
    ]
    translation = encode_request(_request(*messages))
    assert translation.value["input"][1:] == [
        {"type": "function_call", "call_id": "call_A", "name": "add", "arguments": '{"a":2,"b":3}'},
        {"type": "function_call", "call_id": "call_B", "name": "multiply", "arguments": '{"a":2,"b":3}'},
        {"type": "function_call_output", "call_id": "call_B", "output": "6"},
        {"type": "function_call_output", "call_id": "call_A", "output": "5"},
        {"role": "assistant", "content": "5 and 6."},
    ]
    assert translation.notes == []


def test_the_item_id_kept_in_provider_data_goes_back_beside_the_call_id() -> None:
    call = _call("call_sKC7", format=NAME, fields={"id": "fc_0c3b", "status": "completed"})
    body = encode_request(_request(USER, {"role": "assistant", "tool_calls": [call]}, _tool("call_sKC7"))).value
    assert body["input"][1] == {
        "type": "function_call",
        "id": "fc_0c3b",
        "call_id": "call_sKC7",
        "name": "add",
        "arguments": '{"a":2,"b":3}',
        "status": "completed",
    }


def test_arguments_are_always_a_string() -> None:
    calls = [
        _call("c1", arguments=""),
        _call("c2", arguments=None),
        _call("c3", arguments={"a": 1}),
        _call("c4", "f", "{oops"),
    ]
    messages: list[Message] = [USER, {"role": "assistant", "tool_calls": calls}, *(_tool(f"c{i}") for i in range(1, 5))]
    translation = encode_request(_request(*messages))
    assert [item["arguments"] for item in translation.value["input"][1:5]] == ["{}", "{}", '{"a": 1}', "{oops"]
    assert "message 1 (assistant) call 2: arguments were a JSON value, not a string; sent as its JSON text" in (
        translation.notes
    )
    assert "message 1 (assistant) call 3: arguments are not valid JSON; kept verbatim: '{oops'" in translation.notes


def test_a_failed_tool_states_the_failure_in_its_output() -> None:
    messages: list[Message] = [
        USER,
        {"role": "assistant", "tool_calls": [_call("c1"), _call("c2")]},
        _tool("c1", "division by zero", is_error=True),
        _tool("c2", [{"type": "text", "text": "no"}], is_error=True),
    ]
    translation = encode_request(_request(*messages))
    assert translation.value["input"][3]["output"] == "Error: division by zero"
    assert translation.value["input"][4]["output"] == [{"type": "input_text", "text": "Error: no"}]
    assert "message 2 (tool): is_error has no Responses field; the failure is stated in the output" in translation.notes


def test_an_output_for_an_unknown_call_is_refused() -> None:
    with pytest.raises(TranslationError, match="matches no call of an earlier assistant message"):
        encode_request(_request(USER, _tool("call_X")))


def test_an_empty_call_id_is_refused() -> None:
    with pytest.raises(TranslationError, match="tool call 0 has an empty or missing id"):
        encode_request(_request(USER, {"role": "assistant", "tool_calls": [_call("")]}))


def test_an_unanswered_call_is_noted() -> None:
    translation = encode_request(_request(USER, {"role": "assistant", "tool_calls": [_call("call_A")]}))
    assert translation.notes == [
        "message 1: call 'call_A' has no function_call_output; OpenAI rejects an unanswered call"
    ]


def test_outputs_need_not_follow_their_call_directly() -> None:
    messages: list[Message] = [USER, {"role": "assistant", "tool_calls": [_call("c1")]}, USER, _tool("c1")]
    assert [item.get("type") for item in encode_request(_request(*messages)).value["input"]] == [
        None,
        "function_call",
        None,
        "function_call_output",
    ]


# --- reasoning items ---------------------------------------------------------------------------------------------


def _reasoning_turn(**fields: Any) -> Message:
    data: Any = {"format": NAME, "blocks": [copy.deepcopy(REASONING_ITEM)], "reasoning": "Look it up."}
    if fields:
        data["fields"] = fields
    call = _call("call_W", "get_weather", '{"city":"Paris"}', format=NAME, fields={"id": "fc_W"})
    return {"role": "assistant", "content": None, "tool_calls": [call], "provider_data": data}


def test_reasoning_items_are_carried_back_byte_exact_right_before_their_call() -> None:
    translation = encode_request(_request(USER, _reasoning_turn(), _tool("call_W", "18C")))
    items = translation.value["input"]
    assert json.dumps(items[1]) == json.dumps(REASONING_ITEM)
    assert items[2]["type"] == "function_call" and items[2]["id"] == "fc_W"
    assert "1 reasoning item carried back unchanged, each before the item that followed it" in translation.notes


def test_the_message_item_is_rebuilt_around_its_text() -> None:
    meta = {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant", "phase": "final_answer"}
    meta["content"] = [{"type": "output_text", "annotations": [], "logprobs": []}]
    turn: Message = {
        "role": "assistant",
        "content": "Sunny.",
        "provider_data": {"format": NAME, "fields": {"message": meta}},
    }
    body = encode_request(_request(USER, turn)).value
    assert body["input"][1] == {
        **meta,
        "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": "Sunny."}],
    }


def test_reasoning_from_another_format_is_dropped_with_a_note() -> None:
    turn: Message = {
        "role": "assistant",
        "content": "Hi.",
        "provider_data": {"format": "anthropic", "blocks": [{"type": "thinking", "thinking": "t", "signature": "s"}]},
    }
    translation = encode_request(_request(USER, turn))
    assert translation.value["input"][1] == {"role": "assistant", "content": "Hi."}
    assert translation.notes == [
        "reasoning dropped: target format has no equivalent (message 1 (assistant), from anthropic)"
    ]


def test_reasoning_on_asks_for_encrypted_reasoning_and_summaries() -> None:
    request = _request(USER, reasoning={"enabled": True, "effort": "high", "budget_tokens": 4000}, max_tokens=2000)
    translation = encode_request(request)
    body = translation.value
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert (body["store"], body["include"], body["max_output_tokens"]) == (False, ["reasoning.encrypted_content"], 2000)
    assert "reasoning budget of 4000 tokens dropped (Responses takes an effort)" in translation.notes
    assert "max_output_tokens also counts the reasoning tokens" in translation.notes


def test_reasoning_off_sends_no_reasoning() -> None:
    translation = encode_request(_request(USER, reasoning={"enabled": False}))
    assert not {"reasoning", "store", "include"} & set(translation.value)
    assert translation.notes == [
        "reasoning disabled: no `reasoning` sent (not every Responses model accepts effort `none`)"
    ]


def test_temperature_with_reasoning_is_noted() -> None:
    translation = encode_request(_request(USER, reasoning={"enabled": True}, temperature=0.2))
    assert translation.value["temperature"] == 0.2
    assert "temperature with reasoning on: OpenAI reasoning models reject it" in translation.notes


# --- tools and settings ------------------------------------------------------------------------------------------


def test_tools_are_flat_and_say_strict() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    tools: Any = [
        {"type": "function", "function": {"name": "get_weather", "description": "Weather", "parameters": schema}},
        {"type": "function", "function": {"name": "list_doors", "strict": True}},
        {"type": "custom", "custom": {"name": "x"}},
    ]
    translation = encode_request(_request(USER, tools=tools))
    assert translation.value["tools"] == [
        {"type": "function", "name": "get_weather", "description": "Weather", "parameters": schema, "strict": False},
        {"type": "function", "name": "list_doors", "parameters": {"type": "object", "properties": {}}, "strict": True},
    ]
    assert "tool 2 dropped: not a named function tool" in translation.notes
    assert (
        "strict: false sent for `get_weather` (no strict given; Responses would enforce the schema strictly)"
        in translation.notes
    )


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ({"type": "function", "function": {"name": "add"}}, {"type": "function", "name": "add"}),
    ],
)
def test_tool_choice(choice: Any, wire: Any) -> None:
    assert encode_request(_request(USER, tool_choice=choice)).value["tool_choice"] == wire


def test_an_unknown_tool_choice_is_refused() -> None:
    with pytest.raises(TranslationError, match="does not name a function"):
        encode_request(_request(USER, tool_choice={"type": "function", "function": {}}))
    with pytest.raises(TranslationError, match="is not one of"):
        encode_request(_request(USER, tool_choice="any"))


def test_settings_and_their_order() -> None:
    request = _request(USER, parallel_tool_calls=False, temperature=0.5, max_tokens=300, stream=True)
    body = encode_request(request).value
    assert list(body) == ["model", "input", "parallel_tool_calls", "temperature", "max_output_tokens", "stream"]
    assert (body["parallel_tool_calls"], body["temperature"], body["max_output_tokens"]) == (False, 0.5, 300)


def test_unknown_request_fields_come_back_on_this_format_only() -> None:
    request = _request(USER, provider_data={"format": NAME, "fields": {"metadata": {"k": "v"}, "truncation": "auto"}})
    translation = encode_request(request)
    assert (translation.value["metadata"], translation.value["truncation"]) == ({"k": "v"}, "auto")
    assert translation.notes == ["request fields carried back unchanged: metadata, truncation"]
    foreign = encode_request(_request(USER, provider_data={"format": "anthropic", "fields": {"top_k": 5}}))
    assert "top_k" not in foreign.value
    assert foreign.notes == ["request: anthropic fields dropped (top_k): target format has no equivalent"]


def test_an_empty_assistant_message_is_dropped_with_a_note() -> None:
    translation = encode_request(_request(USER, {"role": "assistant", "content": None}))
    assert translation.value["input"] == [{"role": "user", "content": "Add and multiply 2 and 3"}]
    assert translation.notes == [
        "message 1 (assistant): empty assistant message dropped (no text, no tool calls, no items)"
    ]


def test_encoding_never_changes_the_request() -> None:
    request = _request(USER, _reasoning_turn(), _tool("call_W"), reasoning={"enabled": True})
    before = copy.deepcopy(request)
    encode_request(request)
    assert request == before


def test_a_malformed_request_is_refused() -> None:
    with pytest.raises(TranslationError, match="messages must be a list"):
        encode_request({"model": "m"})
    with pytest.raises(TranslationError, match="known role"):
        encode_request(_request({"role": "robot", "content": "x"}))


def test_a_reasoning_item_without_encrypted_content_is_noted_when_nothing_is_stored() -> None:
    item = {key: value for key, value in REASONING_ITEM.items() if key != "encrypted_content"}
    turn = _reasoning_turn()
    turn["provider_data"]["blocks"] = [item]
    translation = encode_request(_request(USER, turn, _tool("call_W"), reasoning={"enabled": True}))
    assert (
        "reasoning items without encrypted_content (rs_07e1): with store: false OpenAI cannot find them and "
        "rejects the request"
    ) in translation.notes
    stored = _request(USER, turn, _tool("call_W"), provider_data={"format": NAME, "fields": {"store": True}})
    assert not [note for note in encode_request(stored).notes if "encrypted_content (" in note]


def test_reasoning_items_left_without_a_following_item_are_noted() -> None:
    turn = _reasoning_turn()
    del turn["tool_calls"]
    translation = encode_request(_request(USER, turn, {"role": "user", "content": "and?"}))
    assert [item.get("type") for item in translation.value["input"]] == [None, "reasoning", None]
    assert (
        "message 1 (assistant): its reasoning items have no item after them (no text, no call); OpenAI rejects a "
        "reasoning item sent without its following item"
    ) in translation.notes


def test_tool_definitions_on_their_own_map_as_requests_map_them() -> None:
    from providers.openai_responses import encode_tools, import_tools

    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    specs: Any = [{"type": "function", "function": {"name": "search", "parameters": schema, "strict": True}}]
    wire = encode_tools(specs)
    assert wire == [{"type": "function", "name": "search", "parameters": schema, "strict": True}]
    assert import_tools([*wire, {"type": "web_search"}]) == specs
