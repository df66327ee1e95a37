"""encode_request / import_request: near pass-through, Crosswire extensions stripped, bad histories rejected."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from providers import openai_chat
from providers.translation import TranslationError
from providers.types import ChatRequest, Message

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two integers",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
                "additionalProperties": False,
            },
            "strict": True,
        },
    }
]


def call(call_id: str, name: str = "add", arguments: Any = '{"a":2,"b":3}') -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def loop(*extra: Message) -> list[Message]:
    return [
        {"role": "system", "content": "You add numbers."},
        {"role": "user", "content": "2+3?"},
        {"role": "assistant", "content": None, "tool_calls": [call("call_1")]},  # type: ignore[list-item]
        {"role": "tool", "tool_call_id": "call_1", "content": "5"},
        *extra,
    ]


def encode(messages: list[Any], **fields: Any) -> tuple[dict[str, Any], list[str]]:
    translation = openai_chat.encode_request({"model": "gpt-4o", "messages": messages, **fields})
    return translation.value, translation.notes


def test_full_request_passes_through() -> None:
    request: ChatRequest = {
        "model": "gpt-4o",
        "messages": loop({"role": "assistant", "content": "5"}),
        "tools": TOOLS,  # type: ignore[typeddict-item]
        "tool_choice": {"type": "function", "function": {"name": "add"}},
        "parallel_tool_calls": False,
        "temperature": 0.2,
        "max_tokens": 512,
    }
    original = copy.deepcopy(request)
    translation = openai_chat.encode_request(request)
    assert translation.value == original
    assert translation.notes == []
    assert request == original  # the input is not mutated


def test_stream_adds_include_usage() -> None:
    body, _ = encode(loop(), stream=True)
    assert (body["stream"], body["stream_options"]) == (True, {"include_usage": True})
    body, _ = encode(loop(), stream=False)
    assert body["stream"] is False and "stream_options" not in body


def test_failed_tool_result_is_stated_in_the_content() -> None:
    messages = loop()
    messages[3] = {"role": "tool", "tool_call_id": "call_1", "content": "division by zero", "is_error": True}
    body, notes = encode(messages)
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "call_1", "content": "Error: division by zero"}
    assert notes == ["message 3 (tool): is_error has no OpenAI Chat field; the failure is stated in the content"]


def test_failed_tool_result_variants() -> None:
    def stated(content: Any) -> Any:
        messages = loop()
        messages[3] = {"role": "tool", "tool_call_id": "call_1", "content": content, "is_error": True}
        return encode(messages)[0]["messages"][3]["content"]

    assert stated("Error: already said") == "Error: already said"
    assert stated("") == "Error"
    assert stated(None) == "Error"
    assert stated([{"type": "text", "text": "boom"}]) == [{"type": "text", "text": "Error: boom"}]
    audio = {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
    assert stated([audio]) == [{"type": "text", "text": "Error: "}, audio]
    # an image leaves the tool message (tests/providers/test_openai_chat_images.py); the failure is still stated
    assert stated([{"type": "image_url", "image_url": {"url": "u"}}]) == [
        {"type": "text", "text": "Error: [image attached in the next message]"}
    ]


def test_successful_tool_result_drops_the_flag_silently() -> None:
    messages = loop()
    messages[3] = {"role": "tool", "tool_call_id": "call_1", "content": "5", "is_error": False}
    body, notes = encode(messages)
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "call_1", "content": "5"}
    assert notes == []


def test_same_format_provider_data_goes_back_on_the_wire() -> None:
    messages = loop()
    messages[2] = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                **call("call_1"),  # type: ignore[typeddict-item]
                "provider_data": {"format": "openai-chat", "fields": {"extra_content": {"google": {"s": "sig"}}}},
            }
        ],
        "provider_data": {"format": "openai-chat", "reasoning": "think", "fields": {"reasoning": "think"}},
    }
    body, notes = encode(messages)
    assert body["messages"][2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [{**call("call_1"), "extra_content": {"google": {"s": "sig"}}}],
        "reasoning": "think",
    }
    assert notes == []


def test_reasoning_without_recorded_key_is_sent_as_reasoning_content() -> None:
    messages = loop()
    messages[2] = {**messages[2], "provider_data": {"format": "openai-chat", "reasoning": "think"}}
    assert encode(messages)[0]["messages"][2]["reasoning_content"] == "think"


def test_other_format_provider_data_is_dropped_with_a_note() -> None:
    messages = loop()
    thinking = {"type": "thinking", "thinking": "t", "signature": "sig"}
    messages[2] = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {**call("call_1"), "provider_data": {"format": "anthropic", "fields": {"caller": {"type": "direct"}}}}
        ],  # type: ignore[list-item]
        "provider_data": {"format": "anthropic", "reasoning": "t", "blocks": [thinking]},
    }
    body, notes = encode(messages)
    assert body["messages"][2] == {"role": "assistant", "content": None, "tool_calls": [call("call_1")]}
    assert notes == [
        "message 2 (assistant) call call_1: anthropic fields dropped (caller): target format has no equivalent",
        "message 2 (assistant): reasoning dropped: target format has no equivalent (anthropic provider_data)",
    ]


def test_empty_or_missing_call_id_is_rejected() -> None:
    for bad in ("", "   ", None):
        messages = loop()
        messages[2] = {"role": "assistant", "content": None, "tool_calls": [call(bad)]}  # type: ignore[list-item]
        with pytest.raises(TranslationError, match=r"message 2 \(assistant\): tool call 0 has an empty or missing id"):
            encode(messages)
    messages = loop()
    del messages[2]["tool_calls"][0]["id"]  # type: ignore[misc]
    with pytest.raises(TranslationError, match="empty or missing id"):
        encode(messages)


def test_tool_result_without_its_call_is_rejected() -> None:
    with pytest.raises(TranslationError, match=r"message 1 \(tool\): tool_call_id 'call_9' matches no tool call"):
        encode([{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "call_9", "content": "5"}])
    wrong_id = loop()
    wrong_id[3] = {"role": "tool", "tool_call_id": "call_2", "content": "5"}
    with pytest.raises(TranslationError, match="'call_2' matches no tool call of the assistant message before it"):
        encode(wrong_id)


def test_tool_result_must_directly_follow_its_assistant_message() -> None:
    late = loop()
    late.insert(3, {"role": "user", "content": "wait"})
    with pytest.raises(TranslationError, match=r"message 4 \(tool\)"):
        encode(late)


def test_tool_result_without_id_is_rejected() -> None:
    messages = loop()
    messages[3] = {"role": "tool", "content": "5"}
    with pytest.raises(TranslationError, match=r"message 3 \(tool\): tool_call_id is empty or missing"):
        encode(messages)


def test_parallel_results_in_any_order_are_accepted() -> None:
    messages: list[Any] = [
        {"role": "user", "content": "2+3 and 2*3"},
        {"role": "assistant", "content": None, "tool_calls": [call("c1"), call("c2", "multiply")]},
        {"role": "tool", "tool_call_id": "c2", "content": "6"},
        {"role": "tool", "tool_call_id": "c1", "content": "5"},
    ]
    body, notes = encode(messages)
    assert body["messages"] == messages and notes == []


def test_unanswered_call_and_long_id_are_noted() -> None:
    long_id = "toolu_vrtx_" + "x" * 40
    messages: list[Any] = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call(long_id), call("c2")]},
        {"role": "tool", "tool_call_id": long_id, "content": "ok"},
        {"role": "user", "content": "and?"},
    ]
    _, notes = encode(messages)
    assert notes == [
        f"message 1: tool call id {long_id!r} is over 40 characters; OpenAI rejects it",
        "message 1: tool call 'c2' has no tool result; OpenAI rejects an unanswered call",
    ]


def test_malformed_messages_are_rejected() -> None:
    with pytest.raises(TranslationError, match="messages must be a list"):
        openai_chat.encode_request({"model": "m"})
    with pytest.raises(TranslationError, match="message 0: not a message object"):
        encode(["hello"])
    with pytest.raises(TranslationError, match="tool_calls must be a list"):
        encode([{"role": "assistant", "tool_calls": {"id": "x"}}])
    with pytest.raises(TranslationError, match="tool call 0 is not a call object"):
        encode([{"role": "assistant", "tool_calls": ["x"]}])
    with pytest.raises(TranslationError, match="must be a JSON object"):
        openai_chat.encode_request([])  # type: ignore[arg-type]


def test_content_null_only_with_tool_calls() -> None:
    messages: list[Any] = [
        {"role": "user", "content": None},
        {"role": "assistant", "content": None},
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [call("c1")]},
        {"role": "tool", "tool_call_id": "c1", "content": None},
        {"role": "assistant", "tool_calls": [call("c2")]},
        {"role": "tool", "tool_call_id": "c2", "content": "ok"},
        {"role": "assistant", "content": "Calling.", "tool_calls": [call("c3")]},
        {"role": "tool", "tool_call_id": "c3", "content": "ok"},
        {"role": "assistant", "content": "done", "tool_calls": []},
    ]
    wire = encode(messages)[0]["messages"]
    assert [message["content"] for message in wire] == ["", "", "go", None, "", None, "ok", "Calling.", "ok", "done"]
    assert "tool_calls" not in wire[9]  # OpenAI rejects an empty tool_calls array


def test_tool_only_content_can_be_an_empty_string_for_servers_rejecting_null() -> None:
    translation = openai_chat.encode_request({"messages": loop()}, tool_call_content="")
    assert translation.value["messages"][2]["content"] == ""


def test_arguments_are_normalised() -> None:
    arguments: list[Any] = ["", None, "  ", '{"a":1}', "{broken", {"a": 1}]
    messages: list[Any] = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [call(f"c{n}", arguments=a) for n, a in enumerate(arguments)],
        },
        *({"role": "tool", "tool_call_id": f"c{n}", "content": "ok"} for n in range(len(arguments))),
    ]
    del messages[1]["tool_calls"][0]["function"]["arguments"]  # absent
    body, notes = encode(messages)
    sent = [c["function"]["arguments"] for c in body["messages"][1]["tool_calls"]]
    assert sent == ["{}", "{}", "{}", '{"a":1}', "{broken", '{"a": 1}']
    assert notes == [
        "message 1 (assistant) call c4: arguments are not valid JSON; kept verbatim: '{broken'",
        "message 1 (assistant) call c5: arguments were a JSON value, not a string; sent as its JSON text",
    ]


def test_call_without_name_is_noted() -> None:
    messages = loop()
    messages[2] = {"role": "assistant", "content": None, "tool_calls": [call("call_1", name="")]}  # type: ignore[list-item]
    assert encode(messages)[1] == [
        "message 2 (assistant) call call_1: the call has no function name; OpenAI rejects it"
    ]


def test_reasoning_setting_is_noted() -> None:
    body, notes = encode(loop(), reasoning={"effort": "high"})
    assert "reasoning" not in body
    assert notes == ["reasoning settings dropped: OpenAI Chat has no equivalent"]
    assert encode(loop(), reasoning={"enabled": False})[1] == []


def test_request_fields_of_this_format_come_back_other_formats_are_dropped() -> None:
    body, notes = encode(
        loop(),
        stream=True,
        provider_data={
            "format": "openai-chat",
            "fields": {
                "seed": 7,
                "user": "u1",
                "model": "ignored",
                "stream_options": {"chunk_include_obfuscation": False},
            },
        },
    )
    assert (body["seed"], body["user"], body["model"]) == (7, "u1", "gpt-4o")
    assert body["stream_options"] == {"chunk_include_obfuscation": False, "include_usage": True}
    assert notes == []
    body, notes = encode(loop(), provider_data={"format": "anthropic", "fields": {"metadata": {"user_id": "u"}}})
    assert "metadata" not in body
    assert notes == ["request fields of anthropic dropped (metadata)"]


def test_import_keeps_unknown_fields_and_maps_max_completion_tokens() -> None:
    wire = {
        "model": "gpt-4o",
        "messages": loop(),
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_completion_tokens": 300,
        "seed": 42,
        "response_format": {"type": "text"},
    }
    translation = openai_chat.import_request(wire)
    assert translation.value == {
        "model": "gpt-4o",
        "messages": loop(),
        "stream": True,
        "max_tokens": 300,
        "provider_data": {"format": "openai-chat", "fields": {"seed": 42, "response_format": {"type": "text"}}},
    }
    assert translation.notes == ["max_completion_tokens imported as max_tokens"]


def test_import_then_encode_keeps_unknown_message_and_call_fields() -> None:
    wire = {
        "model": "gpt-4o",
        "messages": [
            {"role": "developer", "content": "Be brief.", "name": "ops"},
            {"role": "user", "content": [{"type": "text", "text": "2+3?"}]},
            {
                "role": "assistant",
                "content": None,
                "refusal": None,
                "annotations": [],
                "reasoning_content": "add them",
                "tool_calls": [{**call("call_1"), "extra_content": {"google": {"thought_signature": "sig"}}}],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "5"},
        ],
        "tools": TOOLS,
        "tool_choice": "required",
        "logit_bias": {"50256": -100},
    }
    imported = openai_chat.import_request(copy.deepcopy(wire))
    assistant = imported.value["messages"][2]
    assert assistant["provider_data"] == {
        "format": "openai-chat",
        "reasoning": "add them",
        "fields": {"refusal": None, "annotations": [], "reasoning_content": "add them"},
    }
    assert assistant["tool_calls"][0]["provider_data"] == {
        "format": "openai-chat",
        "fields": {"extra_content": {"google": {"thought_signature": "sig"}}},
    }
    assert openai_chat.encode_request(imported.value).value == wire


def test_import_normalises_arguments_and_validates_like_encode() -> None:
    wire = {"messages": [{"role": "assistant", "tool_calls": [call("c1", arguments=None)]}]}
    imported = openai_chat.import_request(wire)
    assert imported.value["messages"][0]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert imported.notes == ["message 0: tool call 'c1' has no tool result; OpenAI rejects an unanswered call"]
    with pytest.raises(TranslationError, match="empty or missing id"):
        openai_chat.import_request({"messages": [{"role": "assistant", "tool_calls": [call("")]}]})
    with pytest.raises(TranslationError, match="must be a JSON object"):
        openai_chat.import_request("x")  # type: ignore[arg-type]


def test_import_tool_calls_null_means_no_calls() -> None:
    imported = openai_chat.import_request({"messages": [{"role": "assistant", "content": "hi", "tool_calls": None}]})
    assert imported.value["messages"] == [{"role": "assistant", "content": "hi"}]
