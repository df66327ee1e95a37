"""Responses request body -> internal request, and back: nothing a client sent is lost on the same format."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from providers.openai_responses import encode_request, import_request
from providers.translation import TranslationError

FIXTURES = Path(__file__).parent / "fixtures" / "openai_responses"
NAME = "openai-responses"


def _fixture() -> dict[str, Any]:
    return json.loads((FIXTURES / "request_tool_loop.json").read_text())


def _body(*items: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "gpt-5", "input": list(items), **extra}


def _call(call_id: str, item_id: str | None = None, name: str = "add", arguments: str = "{}") -> dict[str, Any]:
    item: dict[str, Any] = {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}
    return {**item, "id": item_id} if item_id else item


def _output(call_id: str, output: Any = "5") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


USER = {"role": "user", "content": "go"}


def test_a_recorded_tool_loop_imports_to_internal_messages() -> None:
    request = import_request(_fixture()).value
    roles = [m["role"] for m in request["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "tool", "assistant", "user"]
    assert request["messages"][0] == {"role": "system", "content": "You are a helpful assistant."}
    turn = request["messages"][2]
    assert turn["content"] is None
    assert turn["tool_calls"][0] == {
        "id": "call_Wx9",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":"Zürich"}'},
        "provider_data": {"format": NAME, "fields": {"id": "fc_07e3", "status": "completed"}},
    }
    assert turn["provider_data"]["blocks"] == [_fixture()["input"][1]]
    assert turn["provider_data"]["reasoning"] == "**Checking the weather**\n\nThe user wants Paris.\n\nCall the tool."


def test_outputs_become_tool_messages_in_their_order() -> None:
    messages = import_request(_fixture()).value["messages"]
    assert messages[3:5] == [
        {"role": "tool", "tool_call_id": "call_Yz0", "content": "front, back"},
        {"role": "tool", "tool_call_id": "call_Wx9", "content": "18C, sunny"},
    ]


def test_an_output_message_keeps_its_item_without_the_text() -> None:
    turn = import_request(_fixture()).value["messages"][5]
    assert turn["content"] == "It is 18C and sunny; there are two doors."
    assert turn["provider_data"]["fields"]["message"] == {
        "id": "msg_07e5",
        "type": "message",
        "status": "completed",
        "content": [{"type": "output_text", "annotations": [], "logprobs": []}],
        "role": "assistant",
        "phase": "final_answer",
    }


def test_request_settings_come_back_as_internal_fields() -> None:
    request = import_request(_fixture()).value
    assert (request["max_tokens"], request["stream"], request["parallel_tool_calls"]) == (4000, True, True)
    assert request["tool_choice"] == "auto"
    assert request["reasoning"] == {"enabled": True, "effort": "medium"}
    assert [tool["function"]["name"] for tool in request["tools"]] == ["get_weather", "list_doors"]
    assert request["tools"][0]["function"]["strict"] is True


def test_unknown_fields_and_hosted_tools_are_kept_for_the_same_format() -> None:
    fixture = _fixture()
    fields = import_request(fixture).value["provider_data"]["fields"]
    assert fields == {"metadata": {"user_id": "user-42"}, "text": {"verbosity": "low"}, "tools": fixture["tools"]}


def test_import_then_encode_gives_back_the_same_request() -> None:
    fixture = _fixture()
    assert encode_request(import_request(copy.deepcopy(fixture)).value).value == fixture


def test_import_notes() -> None:
    assert import_request(_fixture()).notes == [
        "`instructions` became a system message at the start",
        "input items 1-3: 1 reasoning item kept unchanged in provider_data, to be resent",
        "request fields kept in provider_data for openai-responses: metadata, text",
        "`tools` kept whole in provider_data for openai-responses (it has entries with no internal equivalent)",
    ]


def test_a_string_input_is_one_user_message_and_goes_back_as_a_string() -> None:
    body = {"model": "gpt-5", "input": "Hello"}
    translation = import_request(body)
    assert translation.value["messages"] == [{"role": "user", "content": "Hello"}]
    assert "`input` was a string: one user message" in translation.notes
    assert encode_request(translation.value).value == body


def test_a_leading_system_item_stays_an_item() -> None:
    body = _body({"role": "system", "content": "Be brief."}, USER)
    request = import_request(body).value
    assert request["messages"][0] == {"role": "system", "content": "Be brief."}
    assert encode_request(request).value == body


def test_item_fields_and_parts_without_an_internal_equivalent_are_kept_until_edited() -> None:
    pdf = {"type": "input_file", "file_id": "file-abc"}
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Summarise."}, pdf]}
    body = _body(user)
    request = import_request(body).value
    assert request["messages"][0]["content"] == [{"type": "text", "text": "Summarise."}]
    assert encode_request(request).value == body
    request["messages"][0]["content"] = [{"type": "text", "text": "Translate."}]
    edited = encode_request(request)
    assert edited.value["input"][0] == {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "Translate."}],
    }
    assert "message 0 (user): edited since import; its Responses-only content parts are not sent" in edited.notes


def test_a_run_out_of_the_internal_order_is_kept_whole_until_edited() -> None:
    call = _call("call_1", "fc_1")
    text = {"role": "assistant", "content": "Done."}
    body = _body(USER, call, text, _output("call_1"))
    translation = import_request(body)
    turn = translation.value["messages"][1]
    assert (turn["content"], turn["tool_calls"][0]["id"]) == ("Done.", "call_1")
    assert turn["provider_data"]["fields"]["items"] == [call, text]
    assert (
        "input items 1-2: assistant items kept whole for openai-responses (item fields or an order the internal "
        "message cannot hold)"
    ) in translation.notes
    assert encode_request(translation.value).value == body
    turn["content"] = "Changed."
    edited = encode_request(translation.value)
    assert [item.get("type") for item in edited.value["input"][1:3]] == [None, "function_call"]
    assert (
        "message 1 (assistant): the assistant turn was edited since import; its kept items are not sent"
    ) in edited.notes


def test_hosted_tool_items_are_opaque_items_of_the_assistant_turn() -> None:
    search = {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "x"},
    }
    body = _body(USER, search, {"role": "assistant", "content": "Found it."})
    translation = import_request(body)
    assert translation.value["messages"][1]["provider_data"]["blocks"] == [search]
    assert "input items 1-2: web_search_call kept as opaque items of the assistant turn (no internal slot)" in (
        translation.notes
    )
    assert encode_request(translation.value).value == body


def test_tool_output_parts_are_imported_and_resent() -> None:
    output = [
        {"type": "input_text", "text": "see"},
        {"type": "input_image", "image_url": "https://x/y.png", "detail": "high"},
    ]
    body = _body(USER, _call("c1"), _output("c1", output))
    request = import_request(body).value
    assert request["messages"][2]["content"] == [
        {"type": "text", "text": "see"},
        {"type": "image_url", "image_url": {"url": "https://x/y.png", "detail": "high"}},
    ]
    assert encode_request(request).value == body


@pytest.mark.parametrize(
    ("wire", "choice"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ({"type": "function", "name": "add"}, {"type": "function", "function": {"name": "add"}}),
    ],
)
def test_tool_choice_import(wire: Any, choice: Any) -> None:
    request = import_request(_body(USER, tool_choice=wire)).value
    assert request["tool_choice"] == choice
    assert encode_request(request).value["tool_choice"] == wire


def test_a_tool_choice_without_internal_equivalent_is_kept() -> None:
    allowed = {"type": "allowed_tools", "mode": "required", "tools": [{"type": "function", "name": "add"}]}
    body = _body(USER, tool_choice=allowed)
    request = import_request(body).value
    assert "tool_choice" not in request
    assert encode_request(request).value == body


def test_reasoning_settings_without_internal_equivalent_are_kept() -> None:
    body = _body(
        USER, reasoning={"effort": "low", "summary": "detailed"}, store=False, include=["reasoning.encrypted_content"]
    )
    request = import_request(body).value
    assert request["reasoning"] == {"enabled": True, "effort": "low"}
    assert encode_request(request).value == body


def test_stored_reasoning_requests_keep_store() -> None:
    body = _body(USER, reasoning={"summary": "auto"}, store=True)
    assert encode_request(import_request(body).value).value == body


def test_reasoning_without_store_false_comes_back_with_it() -> None:
    translation = import_request(_body(USER, reasoning={"summary": "auto"}))
    assert "reasoning is on without `store: false`: encoding will send `store: false`" in translation.notes
    body = encode_request(translation.value).value
    assert (body["store"], body["include"]) == (False, ["reasoning.encrypted_content"])


def test_a_body_without_a_list_or_string_input_is_refused() -> None:
    with pytest.raises(TranslationError, match="must be a string or a list"):
        import_request({"model": "x", "input": {"role": "user"}})
    with pytest.raises(TranslationError, match="JSON object"):
        import_request([])  # type: ignore[arg-type]


def test_items_that_cannot_be_paired_are_refused() -> None:
    with pytest.raises(TranslationError, match=r"input item 1 \(function_call_output\): call_id is empty"):
        import_request(_body(USER, {"type": "function_call_output", "output": "5"}))
    with pytest.raises(TranslationError, match=r"input item 0 \(function_call\): call_id is empty"):
        import_request(_body({"type": "function_call", "name": "f", "arguments": "{}"}))
    with pytest.raises(TranslationError, match="role 'robot'"):
        import_request(_body({"role": "robot", "content": "x"}))


def test_odd_values_of_derived_fields_come_back_as_they_came() -> None:
    for body in (_body(USER, tools=False), _body(USER, reasoning="high"), _body(USER, tool_choice=7)):
        assert encode_request(import_request(copy.deepcopy(body)).value).value == body
