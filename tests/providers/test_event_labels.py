"""The wire pane's label for a raw stream event: what an unnamed event brings (OpenAI Chat, Gemini), read from its
data; nothing for a named one (Anthropic, Responses), whose name says it."""

from __future__ import annotations

from typing import Any

import pytest

from providers.formats import FORMATS, get_format
from providers.simulator.openai_profiles import profile_for, reshape_events
from providers.streaming import StreamResult


def _result() -> StreamResult:
    message: Any = {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}},
            {"id": "call_2", "type": "function", "function": {"name": "get_time", "arguments": '{"zone":"CET"}'}},
        ],
    }
    usage: Any = {"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42}
    return StreamResult(message, "tool_calls", "tool_calls", usage, None, True)


def _labels(format_name: str) -> list[str]:
    codec = get_format(format_name)
    events = codec.encode_stream(_result(), model="m", response_id="r1", fragment_size=6)
    return [codec.event_label(event.event, event.data) for event in events]


def test_an_openai_chat_stream_names_what_each_chunk_brings() -> None:
    labels = _labels("openai-chat")
    assert labels[-1] == "[DONE]"
    assert "content" in labels and "usage" in " ".join(labels)
    for index in (0, 1):
        assert f"tool_calls[{index}].name" in labels
        assert labels.count(f"tool_calls[{index}].arguments") >= 2, "each fragment of the arguments is named"
    assert any(label.startswith("finish_reason: tool_calls") for label in labels)
    assert "" not in labels, f"every chunk of a stream brings something: {labels}"


def test_a_gemini_stream_names_its_parts() -> None:
    labels = _labels("gemini")
    joined = " · ".join(labels)
    assert "text" in labels[0]
    assert "functionCall get_weather" in joined and "functionCall get_time" in joined
    assert "finishReason: STOP" in joined
    assert "" not in labels, f"every chunk of a stream brings something: {labels}"


@pytest.mark.parametrize("format_name", ["anthropic", "openai-responses"])
def test_a_named_event_needs_no_label(format_name: str) -> None:
    assert set(_labels(format_name)) == {""}


@pytest.mark.parametrize(
    ("data", "label"),
    [
        ('{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}', "role"),
        ('{"choices":[{"index":0,"delta":{"reasoning_content":"Hm"}}]}', "reasoning"),
        ('{"choices":[{"index":0,"delta":{"refusal":"No."}}]}', "refusal"),
        ('{"choices":[],"usage":{"prompt_tokens":3}}', "usage"),
        ('{"error":{"message":"overloaded"}}', "error"),
        ('{"choices":[{"index":0,"delta":{"content":"a"}}],"error":null}', "content"),
        (
            '{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"},"finish_reason":"stop"}]}',
            "content · finish_reason: stop",
        ),
        (
            '{"choices":[{"index":null,"delta":{"tool_calls":[{"index":null,"function":{"arguments":"{}"}}]}}]}',
            "tool_calls[0].arguments",
        ),
        (
            '{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c9","function":{"name":"f","arguments":"{}"}}]}}]}',
            "tool_calls[0].name + arguments",
        ),
        ("not json", ""),
        ("[1, 2]", ""),
        ('{"choices":"odd","usage":null}', ""),
    ],
)
def test_an_openai_chat_chunk_label(data: str, label: str) -> None:
    assert get_format("openai-chat").event_label(None, data) == label


@pytest.mark.parametrize(
    ("data", "label"),
    [
        ('{"candidates":[{"content":{"parts":[{"text":"Let me see","thought":true}]}}]}', "thought"),
        ('{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":4}}', "blockReason: SAFETY"),
        ('{"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP"}]}', "finishReason: STOP"),
        ('{"usageMetadata":{"promptTokenCount":4}}', "usageMetadata"),
        ('{"candidates":[{"content":{"parts":[{"functionCall":{"name":null,"args":{}}}]}}]}', "functionCall"),
        ('{"error":{"code":429}}', "error"),
        ("{", ""),
    ],
)
def test_a_gemini_chunk_label(data: str, label: str) -> None:
    assert get_format("gemini").event_label(None, data) == label


def test_an_event_with_a_name_is_never_relabelled() -> None:
    """An OpenAI-compatible server may send an error with an ``event:`` line: its name is what the pane shows."""
    for format_name in FORMATS:
        assert get_format(format_name).event_label("error", '{"error":{"message":"x"}}') == ""


@pytest.mark.parametrize("model", ["sim-ollama", "sim-mistral"])
def test_a_call_sent_whole_in_one_chunk_is_named_so(model: str) -> None:
    """The simulator's profiles of servers that send each call whole: the label says the chunk holds all of it."""
    plain = get_format("openai-chat").encode_stream(_result(), model=model, response_id="r1", fragment_size=6)
    events = reshape_events(plain, profile_for(model))
    labels = [get_format("openai-chat").event_label(event.event, event.data) for event in events]
    assert any("tool_calls[0].name + arguments" in label for label in labels), labels
