"""The openai-chat stream decoder on fixture streams written from recorded traffic (wire-formats.md §1.3, §6-§7)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from providers import events as ev
from providers import openai_chat
from providers.sse import SSEEvent, parse
from providers.streaming import StreamResult, fold
from providers.types import Usage

FIXTURES = Path(__file__).parent / "fixtures" / "openai_chat"
ADD = '{"a": 2, "b": 3}'
USAGE_106: Usage = {
    "prompt_tokens": 106,
    "completion_tokens": 50,
    "total_tokens": 156,
    "cached_tokens": 0,
    "reasoning_tokens": 0,
}


def decode(raw: bytes | list[bytes]) -> list[ev.Event]:
    decoder = openai_chat.new_stream_decoder()
    events: list[ev.Event] = []
    for sse_event in parse(raw if isinstance(raw, list) else [raw]):
        events.extend(decoder.feed(sse_event))
    return events + decoder.close()


def decode_file(name: str) -> tuple[list[ev.Event], StreamResult]:
    events = decode((FIXTURES / name).read_bytes())
    return events, fold(events, "openai-chat")


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> SSEEvent:
    body = {"id": "chatcmpl-t", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
    return SSEEvent(json.dumps(body))


def feed(events: list[SSEEvent]) -> list[ev.Event]:
    decoder = openai_chat.new_stream_decoder()
    out: list[ev.Event] = []
    for event in events:
        out.extend(decoder.feed(event))
    return out + decoder.close()


def calls(result: StreamResult) -> list[tuple[str, str, str]]:
    return [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in result.message["tool_calls"]]


def kinds(events: list[ev.Event]) -> list[str]:
    return [event.kind for event in events]


def test_openai_two_parallel_calls_give_clean_events() -> None:
    events, result = decode_file("openai_parallel.sse")
    first, second = "call_ehIWvSRzK8hGNLi3VYDMmM2D", "call_fBSgQ1ZEA7zCLWnPjGtEQkQ6"
    assert events == [
        ev.ToolCallStart(0, first, "add"),
        ev.ToolCallDelta(0, '{"a"'),
        ev.ToolCallDelta(0, ': 2, "b'),
        ev.ToolCallDelta(0, '": 3}'),
        ev.ToolCallEnd(0),
        ev.ToolCallStart(1, second, "multiply"),
        ev.ToolCallDelta(1, '{"a"'),
        ev.ToolCallDelta(1, ': 2, "b'),
        ev.ToolCallDelta(1, '": 3}'),
        ev.ToolCallEnd(1),
        ev.Finish("tool_calls", "tool_calls"),
        ev.UsageUpdate(USAGE_106),
        ev.StreamEnd(),
    ]
    assert result.message == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": first, "type": "function", "function": {"name": "add", "arguments": ADD}},
            {"id": second, "type": "function", "function": {"name": "multiply", "arguments": ADD}},
        ],
    }
    assert (result.finish_reason, result.complete, result.error) == ("tool_calls", True, None)


def test_text_then_call_keeps_both_and_utf8() -> None:
    _, result = decode_file("openai_text_then_call.sse")
    assert result.message["content"] == "Let me check the weather in Zürich."
    assert calls(result) == [("call_Wz0pQ3hLk2vVb8sNq1rTy6Ue", "get_weather", '{"city":"Zürich"}')]
    assert result.usage == {
        "prompt_tokens": 80,
        "completion_tokens": 24,
        "total_tokens": 104,
        "cached_tokens": 64,
        "reasoning_tokens": 0,
    }


def test_no_argument_tool_with_named_choice_stop() -> None:
    events, result = decode_file("openai_no_args.sse")
    assert not any(isinstance(event, ev.ToolCallDelta) for event in events)  # only arguments "" arrived
    assert calls(result) == [("call_Nm3kVq8TzR1pLx0aYc5sHe2W", "llm_version", "{}")]
    assert (result.finish_reason, result.raw_finish_reason) == ("tool_calls", "stop")


def test_ollama_whole_calls_without_index() -> None:
    _, result = decode_file("ollama_no_index.sse")
    assert calls(result) == [
        ("call_k2x9q1mz", "add", '{"a":2,"b":3}'),
        ("call_p7d0w3nc", "multiply", '{"a":2,"b":3}'),
    ]
    assert (result.finish_reason, result.raw_finish_reason, result.usage) == ("tool_calls", "stop", None)


def test_ollama_index_always_zero_with_new_ids_gives_two_calls() -> None:
    events, result = decode_file("ollama_index_zero.sse")
    starts = [event for event in events if isinstance(event, ev.ToolCallStart)]
    assert [(start.index, start.id) for start in starts] == [(0, "call_a1b2c3d4"), (1, "call_e5f6g7h8")]
    assert calls(result) == [("call_a1b2c3d4", "add", '{"a":2,"b":3}'), ("call_e5f6g7h8", "add", '{"a":4,"b":5}')]


def test_gemini_compat_empty_ids_are_synthesised_stably() -> None:
    _, result = decode_file("gemini_compat.sse")
    ids = [call[0] for call in calls(result)]
    assert all(re.fullmatch(r"call_[0-9a-f]{8}_\d", call_id) for call_id in ids)
    assert ids[0].endswith("_0") and ids[1].endswith("_1") and ids[0][:-2] == ids[1][:-2]
    assert decode_file("gemini_compat.sse")[1].message == result.message  # same input, same ids
    second = result.message["tool_calls"][1]
    assert second["provider_data"] == {
        "format": "openai-chat",
        "fields": {"extra_content": {"google": {"thought_signature": "CiQBVKhc7kP1"}}},
    }
    assert "provider_data" not in result.message["tool_calls"][0]
    assert result.finish_reason == "tool_calls"
    assert result.usage == {"prompt_tokens": 95, "completion_tokens": 36, "total_tokens": 131}


def test_synthetic_ids_differ_between_responses() -> None:
    def one_call(response_id: str) -> str:
        body = {"id": response_id, "choices": [{"delta": {"tool_calls": [{"id": "", "function": {"name": "f"}}]}}]}
        start = feed([SSEEvent(json.dumps(body))])[0]
        assert isinstance(start, ev.ToolCallStart)
        return start.id

    assert one_call("resp-1") != one_call("resp-2")
    assert one_call("resp-1") == one_call("resp-1")
    assert len(one_call("x" * 300)) <= 40


def test_synthetic_id_without_a_response_id() -> None:
    events = feed([SSEEvent(json.dumps({"choices": [{"delta": {"tool_calls": [{"function": {"name": "f"}}]}}]}))])
    assert events[0] == ev.ToolCallStart(0, "call_0", "f")


def test_mistral_two_calls_in_one_delta_with_finish_and_usage() -> None:
    events, result = decode_file("mistral_two_in_one.sse")
    assert calls(result) == [("Xk9pL2mQa", "add", ADD), ("Tb7nR4sWe", "multiply", ADD)]
    assert kinds(events) == [
        "tool_call_start",
        "tool_call_delta",
        "tool_call_end",
        "tool_call_start",
        "tool_call_delta",
        "tool_call_end",
        "finish",
        "usage",
        "end",
    ]
    assert result.usage == {"prompt_tokens": 141, "total_tokens": 185, "completion_tokens": 44}


def test_anthropic_compat_index_starting_at_one() -> None:
    events, result = decode_file("anthropic_compat.sse")
    starts = [event.index for event in events if isinstance(event, ev.ToolCallStart)]
    deltas = {event.index for event in events if isinstance(event, ev.ToolCallDelta)}
    assert starts == [0, 1] and deltas == {0, 1}
    assert result.message["content"] == "I'll add them."
    assert [call[1] for call in calls(result)] == ["add", "multiply"]
    assert calls(result)[0][2] == ADD


def test_openrouter_repeated_call_and_name_is_one_call() -> None:
    events, result = decode_file("openrouter_repeated_name.sse")
    assert calls(result) == [("functions.llm_version:0", "llm_version", "{}")]
    assert kinds(events).count("tool_call_start") == 1
    assert (result.finish_reason, result.raw_finish_reason, result.complete) == ("tool_calls", None, True)
    assert result.usage is not None and result.usage["total_tokens"] == 72


def test_openrouter_single_chunk_without_finish_reason() -> None:
    events, result = decode_file("openrouter_single_chunk.sse")
    assert calls(result) == [("tool_llm_version_Qm2xV8", "llm_version", "{}")]
    assert kinds(events) == ["tool_call_start", "tool_call_delta", "tool_call_end", "end"]
    assert (result.finish_reason, result.complete) == ("tool_calls", True)


def test_openrouter_first_delta_without_arguments_key() -> None:
    _, result = decode_file("openrouter_no_arguments_key.sse")
    assert calls(result) == [("llm_version:0", "llm_version", "{}")]


def test_openrouter_null_arguments() -> None:
    events, result = decode_file("openrouter_null_arguments.sse")
    assert not any(isinstance(event, ev.ToolCallDelta) for event in events)
    assert calls(result) == [("toolu_bdrk_01Vx3yQ8mKp2", "llm_version", "{}")]


def test_zai_whole_calls_with_usage_on_the_finish_chunk() -> None:
    _, result = decode_file("zai_whole_calls.sse")
    assert [call[1] for call in calls(result)] == ["add", "multiply"]
    assert result.usage == {"prompt_tokens": 210, "completion_tokens": 58, "total_tokens": 268, "cached_tokens": 2}
    assert result.message["provider_data"]["fields"] == {"reasoning_content": "Both operations are needed."}


def test_deepseek_reasoning_content_is_streamed_and_kept_under_its_key() -> None:
    events, result = decode_file("deepseek_reasoning.sse")
    reasoning = [event.text for event in events if isinstance(event, ev.ReasoningDelta)]
    assert reasoning == ["The user wants 2+3. ", "I should call add."]
    text = "The user wants 2+3. I should call add."
    assert ev.MessageFields({"reasoning_content": text}) in events
    assert result.message["provider_data"] == {
        "format": "openai-chat",
        "reasoning": text,
        "fields": {"reasoning_content": text},
    }
    assert result.usage == {
        "prompt_tokens": 320,
        "completion_tokens": 61,
        "total_tokens": 381,
        "cached_tokens": 256,
        "reasoning_tokens": 41,
    }


def test_openrouter_reasoning_key_and_reasoning_details_merged() -> None:
    _, result = decode_file("openrouter_reasoning.sse")
    assert result.message["provider_data"]["fields"] == {
        "reasoning": "Two numbers, use add.",
        "reasoning_details": [
            {
                "type": "reasoning.text",
                "text": "Two numbers, use add.",
                "signature": "EqQBCkYIBxgCKkDk1s",
                "format": "anthropic-claude-v1",
                "index": 0,
            }
        ],
    }


def test_llamacpp_reasoning_and_trailing_usage_chunk_with_timings() -> None:
    _, result = decode_file("llamacpp_reasoning.sse")
    assert calls(result) == [("k3Lm9PqR2", "get_weather", '{"city":"Paris"}')]
    assert result.message["provider_data"]["reasoning"] == "User asks for the weather."
    assert result.usage == {"completion_tokens": 42, "prompt_tokens": 180, "total_tokens": 222}


def test_same_reasoning_under_both_keys_is_read_once() -> None:
    events = feed([chunk({"reasoning_content": "abc", "reasoning": "abc"}), chunk({"reasoning": "def"})])
    assert [event.text for event in events if isinstance(event, ev.ReasoningDelta)] == ["abc", "def"]
    assert events[-1] == ev.MessageFields({"reasoning_content": "abcdef"})


def test_openrouter_error_inside_a_200_chunk() -> None:
    events, result = decode_file("openrouter_error.sse")
    error = next(event.error for event in events if isinstance(event, ev.StreamError))
    assert (error.type, error.retryable, error.message) == ("server", True, "Provider returned error")
    assert not any(isinstance(event, ev.Finish) for event in events)  # its finish_reason "error" is the error
    assert result.message["content"] == "Let me"
    assert (result.finish_reason, result.complete, result.error) == ("error", False, error)


def test_groq_error_event_mid_stream() -> None:
    events, result = decode_file("groq_error.sse")
    assert isinstance(events[-1], ev.MessageFields)  # close() keeps the reasoning seen before the error
    error = result.error
    assert error is not None
    assert (error.type, error.retryable) == ("invalid_request", False)
    assert error.message.startswith("Tool call validation failed")
    assert error.raw["error"]["failed_generation"] == '{"name": "add", "arguments": {"a": 2}}'
    assert (result.complete, result.message["provider_data"]["reasoning"]) == (False, "Need to call add.")


def test_error_closes_the_open_call_first() -> None:
    events = feed(
        [
            chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": "{"}}]}),
            SSEEvent('{"error": {"message": "Overloaded", "type": "overloaded_error"}}'),
        ]
    )
    assert kinds(events) == ["tool_call_start", "tool_call_delta", "tool_call_end", "error"]
    error = events[-1].error  # type: ignore[union-attr]
    assert (error.type, error.retryable) == ("overloaded", True)


def test_cut_stream_keeps_the_partial_call_and_is_incomplete() -> None:
    events, result = decode_file("cut_mid_call.sse")
    assert kinds(events) == ["tool_call_start", "tool_call_delta", "tool_call_end"]
    assert calls(result) == [("call_Cut0ffMidStream000000001", "add", '{"a": 2, ')]
    assert (result.complete, result.error) == (False, None)


def test_cut_stream_mid_text() -> None:
    _, result = decode_file("cut_mid_text.sse")
    assert result.message == {"role": "assistant", "content": "The answer is"}
    assert (result.complete, result.finish_reason) == (False, None)


def test_done_closes_a_call_left_open_and_later_events_are_ignored() -> None:
    decoder = openai_chat.new_stream_decoder()
    decoder.feed(chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": "{}"}}]}))
    assert decoder.feed(SSEEvent("[DONE]")) == [ev.ToolCallEnd(0), ev.StreamEnd()]
    assert decoder.feed(chunk({"content": "late"})) == []
    assert decoder.close() == []


def test_reused_index_without_ids_and_a_new_name_starts_a_new_call() -> None:
    events = feed(
        [
            chunk({"tool_calls": [{"index": 0, "function": {"name": "add", "arguments": "{}"}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"name": "add", "arguments": ""}}]}),  # repeat
            chunk({"tool_calls": [{"index": 0, "function": {"name": "multiply", "arguments": "{}"}}]}),
        ]
    )
    result = fold(events)
    assert [c["function"]["name"] for c in result.message["tool_calls"]] == ["add", "multiply"]


def test_fragments_without_index_or_id_continue_the_last_call() -> None:
    events = feed(
        [
            chunk({"tool_calls": [{"function": {"name": "get_weather", "arguments": '{"ci'}}]}),
            chunk({"tool_calls": [{"function": {"arguments": 'ty": "Oslo"}'}}]}),
        ]
    )
    assert fold(events).message["tool_calls"][0]["function"] == {
        "name": "get_weather",
        "arguments": '{"city": "Oslo"}',
    }


def test_interleaved_calls_keep_their_own_arguments() -> None:
    events = feed(
        [
            chunk({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": '{"x":'}}]}),
            chunk({"tool_calls": [{"index": 1, "id": "b", "function": {"name": "g", "arguments": '{"y":'}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]}),
            chunk({"tool_calls": [{"index": 1, "function": {"arguments": "2}"}}]}),
        ]
    )
    arguments = [c["function"]["arguments"] for c in fold(events).message["tool_calls"]]
    assert arguments == ['{"x":1}', '{"y":2}']


def test_arguments_object_instead_of_string() -> None:
    events = feed([chunk({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": {"q": 1}}}]})])
    assert fold(events).message["tool_calls"][0]["function"]["arguments"] == '{"q": 1}'


def test_legacy_function_call_delta() -> None:
    events = feed(
        [
            chunk({"function_call": {"name": "lookup", "arguments": '{"k"'}}),
            chunk({"function_call": {"arguments": ': "v"}'}}),
            chunk({}, "function_call"),
        ]
    )
    result = fold(events)
    assert calls(result) == [("call_5bfcb295_0", "lookup", '{"k": "v"}')]
    assert (result.finish_reason, result.raw_finish_reason) == ("tool_calls", "function_call")


def test_other_choices_are_ignored() -> None:
    body = {"choices": [{"index": 1, "delta": {"content": "no"}}, {"index": 0, "delta": {"content": "yes"}}]}
    assert feed([SSEEvent(json.dumps(body))]) == [ev.TextDelta("yes")]


def test_finish_reasons_are_mapped() -> None:
    mapping = [("stop", "stop"), ("length", "length"), ("content_filter", "content_filter"), ("abort", "stop")]
    for raw, internal in mapping:
        assert feed([chunk({}, raw)]) == [ev.Finish(internal, raw)]


def test_error_event_with_plain_text() -> None:
    events = feed([SSEEvent("upstream timed out", event="error")])
    assert isinstance(events[0], ev.StreamError)
    assert (events[0].error.type, events[0].error.message) == ("stream", "upstream timed out")


def test_chunk_that_is_not_json_is_an_invalid_response() -> None:
    events = feed([chunk({"content": "a"}), SSEEvent("<html>502 Bad Gateway</html>")])
    assert isinstance(events[1], ev.StreamError) and events[1].error.type == "invalid_response"
    assert feed([SSEEvent("[1, 2]")])[0].error.type == "invalid_response"  # type: ignore[union-attr]


def test_empty_data_and_null_fields_are_harmless() -> None:
    events = feed(
        [
            SSEEvent(""),
            chunk({"role": "assistant", "content": None, "tool_calls": None}, usage=None),
            SSEEvent(json.dumps({"choices": [{"index": 0, "delta": None}]})),
        ]
    )
    assert events == []


def test_multi_turn_deepseek_loop_sends_reasoning_back() -> None:
    _, turn_one = decode_file("deepseek_reasoning.sse")
    call_id = turn_one.message["tool_calls"][0]["id"]
    conversation = [
        {"role": "user", "content": "What is 2+3?"},
        turn_one.message,
        {"role": "tool", "tool_call_id": call_id, "content": "5"},
    ]
    translation = openai_chat.encode_request({"model": "deepseek-reasoner", "messages": conversation})
    assistant = translation.value["messages"][1]
    assert assistant == {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "add", "arguments": '{"a":2,"b":3}'}}],
        "reasoning_content": "The user wants 2+3. I should call add.",
    }
    assert translation.notes == []
    _, turn_two = decode_file("openai_final_text.sse")
    assert turn_two.message == {"role": "assistant", "content": "2 + 3 = 5 and 2 * 3 = 6."}


def test_multi_turn_openrouter_loop_sends_reasoning_back_under_its_key() -> None:
    _, turn_one = decode_file("openrouter_reasoning.sse")
    conversation = [
        {"role": "user", "content": "2+3?"},
        turn_one.message,
        {"role": "tool", "tool_call_id": "toolu_vrtx_01HkP3qZ9xYw", "content": "5"},
        {"role": "assistant", "content": "5"},
        {"role": "user", "content": "and 4+4?"},
    ]
    body = openai_chat.encode_request({"model": "anthropic/claude-sonnet-4", "messages": conversation}).value
    assistant = body["messages"][1]
    assert assistant["reasoning"] == "Two numbers, use add."
    assert "reasoning_content" not in assistant
    assert assistant["reasoning_details"][0]["signature"] == "EqQBCkYIBxgCKkDk1s"


def test_gemini_compat_loop_returns_thought_signature_and_synthetic_ids() -> None:
    _, turn_one = decode_file("gemini_compat.sse")
    ids = [call["id"] for call in turn_one.message["tool_calls"]]
    conversation = [
        {"role": "user", "content": "add and multiply 2 and 3"},
        turn_one.message,
        {"role": "tool", "tool_call_id": ids[0], "content": "5"},
        {"role": "tool", "tool_call_id": ids[1], "content": "6"},
    ]
    wire_calls = openai_chat.encode_request({"messages": conversation}).value["messages"][1]["tool_calls"]
    assert [call["id"] for call in wire_calls] == ids
    assert wire_calls[1]["extra_content"] == {"google": {"thought_signature": "CiQBVKhc7kP1"}}


def test_crlf_framing_decodes_the_same() -> None:
    raw = (FIXTURES / "openai_parallel.sse").read_bytes()
    assert fold(decode(raw.replace(b"\n", b"\r\n"))) == fold(decode(raw))


def test_every_byte_split_decodes_the_same() -> None:
    raw = (FIXTURES / "openai_text_then_call.sse").read_bytes()
    assert decode([bytes([byte]) for byte in raw]) == decode(raw)


def test_a_text_chunk_with_anything_else_keeps_it_all() -> None:
    # Nearly every chunk carries text alone and is read in a few lookups; one that carries more must lose none of it.
    usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    detail = {"type": "reasoning.text", "text": "hm", "index": 0}
    call = {"index": 0, "id": "call_1", "function": {"name": "f", "arguments": "{}"}}
    cases: list[tuple[SSEEvent, list[str]]] = [
        (chunk({"role": "assistant", "content": "Hi"}), ["text"]),
        (chunk({"content": "Hi"}, "stop"), ["text", "finish"]),
        (chunk({"content": "Hi"}, usage=usage), ["text", "usage"]),
        (chunk({"content": "Hi", "reasoning_content": "think"}), ["reasoning", "text"]),
        (chunk({"content": "Hi", "tool_calls": [call]}), ["text", "tool_call_start", "tool_call_delta"]),
        (chunk({"content": "Hi", "refusal": None}), ["text"]),
        (chunk({"content": "Hi", "reasoning_details": [detail]}), ["text"]),
    ]
    for sse, expected in cases:
        decoder = openai_chat.new_stream_decoder()
        assert kinds(decoder.feed(sse)) == expected, sse.data
    two = SSEEvent(json.dumps({"choices": [{"index": 1, "delta": {"content": "other"}}]}))
    assert openai_chat.new_stream_decoder().feed(two) == []  # a second choice (n > 1) is not ours
    decoder = openai_chat.new_stream_decoder()
    decoder.feed(chunk({"content": "Hi", "reasoning_details": [detail]}))
    kept = [e for e in decoder.close() if isinstance(e, ev.MessageFields)]
    assert kept and kept[0].fields["reasoning_details"][0]["text"] == "hm"
    assert feed([chunk({"content": ""}), chunk({"role": "assistant"}), chunk({"content": None})]) == []
