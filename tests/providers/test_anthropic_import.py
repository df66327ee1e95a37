"""Anthropic request body -> internal request, and back: nothing a provider sent is lost on the same format."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from providers.anthropic import encode_request, import_request
from providers.translation import TranslationError

FIXTURES = Path(__file__).parent / "fixtures" / "anthropic"


def _fixture() -> dict[str, Any]:
    return json.loads((FIXTURES / "request_tool_loop.json").read_text())


def _body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-20250514", "max_tokens": 1024, "messages": list(messages), **extra}


def test_a_recorded_tool_loop_imports_to_internal_messages() -> None:
    request = import_request(_fixture()).value
    roles = [m["role"] for m in request["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "tool", "assistant", "tool", "user"]
    assert request["messages"][0] == {"role": "system", "content": "You are a helpful assistant"}
    first_turn = request["messages"][2]
    assert first_turn["content"] == "I'll check both."
    assert first_turn["tool_calls"][0] == {
        "id": "toolu_015cXyPjM8bMjQ1vUu3wQ3Yv",
        "type": "function",
        "function": {"name": "secret_retrieval_tool", "arguments": '{"password":"mellon"}'},
        "provider_data": {"format": "anthropic", "fields": {"caller": {"type": "direct"}}},
    }
    assert first_turn["provider_data"] == {
        "format": "anthropic",
        "blocks": [
            {"type": "thinking", "thinking": "Two lookups, in parallel.", "signature": "EtYDCkYIBxgCKkBsignatureOne"}
        ],
        "reasoning": "Two lookups, in parallel.",
    }


def test_tool_results_become_tool_messages_with_is_error() -> None:
    messages = import_request(_fixture()).value["messages"]
    assert messages[3] == {
        "role": "tool",
        "tool_call_id": "toolu_015cXyPjM8bMjQ1vUu3wQ3Yv",
        "content": "Welcome to Moria!",
    }
    assert messages[4] == {
        "role": "tool",
        "tool_call_id": "toolu_01XZqDh9bQ4Z2X7rGzGLtV3m",
        "content": [{"type": "text", "text": "Life before Death"}],
        "is_error": False,
    }
    assert messages[6]["is_error"] is True
    assert messages[7] == {"role": "user", "content": "Try once more, please."}


def test_a_no_argument_call_and_redacted_thinking() -> None:
    turn = import_request(_fixture()).value["messages"][5]
    assert turn["content"] is None
    assert turn["tool_calls"][0]["function"] == {"name": "list_doors", "arguments": "{}"}
    assert turn["provider_data"] == {
        "format": "anthropic",
        "blocks": [{"type": "redacted_thinking", "data": "EqkECkYIBxgCKkCredacted"}],
    }


def test_request_settings_come_back_as_internal_fields() -> None:
    request = import_request(_fixture()).value
    assert request["max_tokens"] == 8000
    assert request["stream"] is True
    assert request["tool_choice"] == "auto"
    assert request["parallel_tool_calls"] is True
    assert request["reasoning"] == {"enabled": True, "budget_tokens": 4000}
    assert request["tools"][1] == {
        "type": "function",
        "function": {
            "name": "list_doors",
            "description": "No arguments",
            "parameters": {"type": "object", "properties": {}},
        },
    }


def test_unknown_and_cache_fields_are_kept_for_the_same_format() -> None:
    fixture = _fixture()
    data = import_request(fixture).value["provider_data"]
    assert data["format"] == "anthropic"
    assert data["fields"]["metadata"] == {"user_id": "user-42"}
    assert data["fields"]["top_k"] == 5
    assert data["fields"]["system"] == fixture["system"]  # cache_control has no internal slot
    assert data["fields"]["tools"] == fixture["tools"]


def test_import_then_encode_gives_back_the_same_request() -> None:
    fixture = _fixture()
    assert encode_request(import_request(copy.deepcopy(fixture)).value).value == fixture


def test_import_notes() -> None:
    notes = import_request(_fixture()).notes
    assert notes == [
        "top-level `system` became 1 system message at the start",
        "message 1: 1 thinking block kept unchanged in provider_data, to be sent back first",
        "message 2: 2 tool_result blocks became 2 tool messages",
        "message 3: 1 redacted_thinking block kept unchanged in provider_data, to be sent back first",
        "request fields kept in provider_data for anthropic: metadata, top_k",
        "`tools` kept whole in provider_data for anthropic (it has fields with no internal equivalent)",
        "`system` kept whole in provider_data for anthropic (it has fields with no internal equivalent)",
    ]


def test_input_objects_become_argument_strings_exactly_once() -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"q": 'say "hi"', "n": 1.5, "u": "été"}}
    body = _body({"role": "user", "content": "go"}, {"role": "assistant", "content": [call]})
    arguments = import_request(body).value["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert arguments == '{"q":"say \\"hi\\"","n":1.5,"u":"été"}'
    assert json.loads(arguments) == call["input"]


def test_raw_arguments_come_back_verbatim() -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"_raw_arguments": '{"a": 1,'}}
    body = _body({"role": "user", "content": "go"}, {"role": "assistant", "content": [call]})
    arguments = import_request(body).value["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert arguments == '{"a": 1,'


def test_a_raw_arguments_parameter_holding_json_is_an_ordinary_argument() -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"_raw_arguments": "{}"}}
    body = _body({"role": "user", "content": "go"}, {"role": "assistant", "content": [call]})
    arguments = import_request(body).value["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert arguments == '{"_raw_arguments":"{}"}'


def test_text_before_results_is_placed_after_them() -> None:
    user = {
        "role": "user",
        "content": [
            {"type": "text", "text": "here:"},
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "5"},
        ],
    }
    call = {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}}
    translation = import_request(
        _body({"role": "user", "content": "go"}, {"role": "assistant", "content": [call]}, user)
    )
    assert [m["role"] for m in translation.value["messages"]] == ["user", "assistant", "tool", "user"]
    assert "message 2: tool results placed before the user text (internal order)" in translation.notes


def test_content_representation_is_kept() -> None:
    blocks = [{"type": "text", "text": "hi"}]
    messages = import_request(_body({"role": "user", "content": "hi"}, {"role": "user", "content": blocks})).value
    assert messages["messages"] == [{"role": "user", "content": "hi"}, {"role": "user", "content": blocks}]


def test_citations_are_kept_and_resent_until_the_text_is_edited() -> None:
    content = [
        {"type": "text", "text": "The grass is "},
        {"type": "text", "text": "green", "citations": [{"type": "char_location", "cited_text": "green grass"}]},
        {"type": "text", "text": "."},
    ]
    body = _body({"role": "user", "content": "colour?"}, {"role": "assistant", "content": content})
    translation = import_request(body)
    turn = translation.value["messages"][1]
    assert turn["content"] == "The grass is green."
    assert turn["provider_data"]["fields"]["content"] == content
    assert (
        "message 1: assistant content kept whole for anthropic (block fields or an order the internal message "
        "cannot hold)"
    ) in translation.notes
    assert encode_request(translation.value).value == body
    turn["content"] = "The grass is blue."
    edited = encode_request(translation.value)
    assert edited.value["messages"][1]["content"] == [{"type": "text", "text": "The grass is blue."}]
    assert (
        "message 1 (assistant): the assistant turn was edited since import; its extra Anthropic blocks are not sent"
    ) in edited.notes


def test_user_blocks_without_an_internal_equivalent_are_kept() -> None:
    document = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "Grass is green."}}
    content = [document, {"type": "text", "text": "Summarise.", "cache_control": {"type": "ephemeral"}}]
    body = _body({"role": "user", "content": content})
    request = import_request(body).value
    assert request["messages"][0]["content"] == [{"type": "text", "text": "Summarise."}]
    assert encode_request(request).value == body
    request["messages"][0]["content"] = [{"type": "text", "text": "Translate."}]
    edited = encode_request(request)
    assert edited.value["messages"][0]["content"] == [{"type": "text", "text": "Translate."}]
    assert "message 0 (user): edited since import; its Anthropic-only content fields are not sent" in edited.notes


def test_tool_result_blocks_without_an_internal_equivalent_are_kept() -> None:
    result = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [{"type": "search_result", "source": "s", "title": "t", "content": []}],
        "cache_control": {"type": "ephemeral"},
    }
    call = {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "x"}}
    body = _body(
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [result]},
    )
    assert encode_request(import_request(body).value).value == body


@pytest.mark.parametrize(
    ("wire", "choice", "parallel"),
    [
        ({"type": "auto"}, "auto", None),
        ({"type": "none"}, "none", None),
        ({"type": "any", "disable_parallel_tool_use": True}, "required", False),
        ({"type": "tool", "name": "add"}, {"type": "function", "function": {"name": "add"}}, None),
    ],
)
def test_tool_choice_import(wire: dict[str, Any], choice: Any, parallel: bool | None) -> None:
    request = import_request(_body({"role": "user", "content": "hi"}, tool_choice=wire)).value
    assert request["tool_choice"] == choice
    assert request.get("parallel_tool_calls") == parallel
    assert encode_request(request).value["tool_choice"] == wire


def test_adaptive_thinking_and_server_tools_survive_the_round_trip() -> None:
    body = _body(
        {"role": "user", "content": "hi"},
        thinking={"type": "adaptive"},
        tools=[{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}],
    )
    request = import_request(body).value
    assert request["reasoning"] == {"enabled": True}
    assert request["tools"] == []
    assert encode_request(request).value == body


def test_a_body_without_messages_is_refused() -> None:
    with pytest.raises(TranslationError, match="needs a `messages` list"):
        import_request({"model": "x"})


def test_an_unknown_role_is_refused() -> None:
    with pytest.raises(TranslationError, match="role 'system' is neither user nor assistant"):
        import_request(_body({"role": "system", "content": "x"}))
