"""Responses SSE streams: decoding recorded shapes into internal events, and encoding what the API sends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from providers import events as ev
from providers.errors import ProviderError
from providers.openai_responses import (
    OpenAIResponsesStreamState,
    decode_response,
    encode_response,
    encode_stream,
    new_stream_decoder,
)
from providers.sse import SSEEvent, SSEParser
from providers.streaming import MessageAccumulator, StreamResult

FIXTURES = Path(__file__).parent / "fixtures" / "openai_responses"
NAME = "openai-responses"


def _sse(name: str) -> list[SSEEvent]:
    parser = SSEParser()
    return [*parser.feed((FIXTURES / name).read_bytes()), *parser.close()]


def _decode(events: list[SSEEvent]) -> tuple[list[ev.Event], StreamResult]:
    decoder, acc = new_stream_decoder(), MessageAccumulator(format=NAME)
    out: list[ev.Event] = []
    for event in events:
        out.extend(decoder.feed(event))
    out.extend(decoder.close())
    acc.extend(out)
    return out, acc.result()


def _event(payload: dict[str, Any]) -> SSEEvent:
    return SSEEvent(json.dumps(payload), payload["type"])


def _call(item_id: str, call_id: str, name: str, arguments: str = "", status: str = "in_progress") -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "function_call",
        "status": status,
        "arguments": arguments,
        "call_id": call_id,
        "name": name,
    }


def _added(index: int, item: dict[str, Any]) -> SSEEvent:
    return _event({"type": "response.output_item.added", "output_index": index, "item": item})


def _done(index: int, item: dict[str, Any]) -> SSEEvent:
    return _event({"type": "response.output_item.done", "output_index": index, "item": item})


def _args(index: int, item_id: str, delta: str) -> SSEEvent:
    payload = {"type": "response.function_call_arguments.delta", "item_id": item_id, "output_index": index}
    return _event({**payload, "delta": delta})


def _completed(output: list[dict[str, Any]] | None = None, status: str = "completed", **extra: Any) -> SSEEvent:
    response = {"id": "resp_1", "status": status, "output": output or [], **extra}
    return _event({"type": f"response.{status}", "response": response})


CREATED = _event({"type": "response.created", "response": {"id": "resp_1", "model": "gpt-4o", "status": "in_progress"}})


# --- decoding ----------------------------------------------------------------------------------------------------


def test_two_parallel_calls_keep_call_id_and_item_id_apart() -> None:
    events, result = _decode(_sse("stream_parallel_calls.sse"))
    starts = [e for e in events if isinstance(e, ev.ToolCallStart)]
    assert starts == [
        ev.ToolCallStart(0, "call_sKC7vN2", "add", {"id": "fc_68b1a"}),
        ev.ToolCallStart(1, "call_Hq81xZ4", "multiply", {"id": "fc_68b1b"}),
    ]
    assert result.message == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_sKC7vN2",
                "type": "function",
                "function": {"name": "add", "arguments": '{"a":2,"b":3}'},
                "provider_data": {"format": NAME, "fields": {"id": "fc_68b1a"}},
            },
            {
                "id": "call_Hq81xZ4",
                "type": "function",
                "function": {"name": "multiply", "arguments": '{"a":2,"b":3}'},
                "provider_data": {"format": NAME, "fields": {"id": "fc_68b1b"}},
            },
        ],
    }
    assert (result.finish_reason, result.raw_finish_reason, result.complete) == ("tool_calls", "completed", True)
    assert result.usage == {
        "prompt_tokens": 106,
        "completion_tokens": 50,
        "total_tokens": 156,
        "cached_tokens": 64,
        "reasoning_tokens": 0,
    }


def test_argument_fragments_are_passed_on_raw_and_the_done_events_add_nothing() -> None:
    events, _ = _decode(_sse("stream_parallel_calls.sse"))
    deltas = [(e.index, e.arguments) for e in events if isinstance(e, ev.ToolCallDelta)]
    assert deltas == [(0, '{"a":2,'), (0, '"b":3}'), (1, '{"a":2,"b":3}')]
    kinds = [e.kind for e in events]
    assert kinds.index("tool_call_end") < kinds.index("tool_call_start", 1)  # each call ends at its item's done


def test_parallel_calls_interleaved_by_output_index_reach_the_right_call() -> None:
    a, b = _call("fc_a", "call_a", "add"), _call("fc_b", "call_b", "multiply")
    message = {"id": "msg_1", "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
    stream = [
        CREATED,
        _added(0, message),  # a message first: output_index 1 and 2 are tool positions 0 and 1
        _added(1, a),
        _added(2, b),
        _args(2, "fc_b", '{"x":'),
        _args(1, "fc_a", '{"a":'),
        _event({"type": "response.function_call_arguments.delta", "output_index": 2, "delta": "7}"}),  # no item_id
        _args(1, "fc_a", "1}"),
        _done(2, {**b, "status": "completed", "arguments": '{"x":7}'}),
        _done(1, {**a, "status": "completed", "arguments": '{"a":1}'}),
        _completed(),
    ]
    events, result = _decode(stream)
    assert [(e.index, e.arguments) for e in events if isinstance(e, ev.ToolCallDelta)] == [
        (1, '{"x":'),
        (0, '{"a":'),
        (1, "7}"),
        (0, "1}"),
    ]
    assert [e.index for e in events if isinstance(e, ev.ToolCallEnd)] == [1, 0]
    calls = [(c["id"], c["function"]["arguments"]) for c in result.message["tool_calls"]]
    assert calls == [("call_a", '{"a":1}'), ("call_b", '{"x":7}')]


def test_stream_state_maps_items_to_tool_positions() -> None:
    decoder = new_stream_decoder()
    for event in _sse("stream_reasoning_text_call.sse"):
        decoder.feed(event)
    state = decoder.state
    assert isinstance(state, OpenAIResponsesStreamState)
    assert state.response_id == "resp_07e0"
    assert state.by_id == {"rs_07e1": 0, "msg_07e2": 1, "fc_07e3": 2}
    assert state.items[2].position == 0 and state.items[0].position is None
    assert state.ended


def test_reasoning_summaries_text_and_a_call() -> None:
    events, result = _decode(_sse("stream_reasoning_text_call.sse"))
    reasoning = "".join(e.text for e in events if isinstance(e, ev.ReasoningDelta))
    assert reasoning == "**Checking the weather**\n\nThe user wants Paris.\n\nCall the tool."
    message = result.message
    assert message["content"] == "Let me check the weather in Zürich."
    assert message["tool_calls"][0]["function"] == {"name": "get_weather", "arguments": '{"city":"Zürich"}'}
    data = message["provider_data"]
    assert data["reasoning"] == reasoning
    # the item from output_item.done: its encrypted_content, not the partial one of .added
    assert data["blocks"] == [
        {
            "id": "rs_07e1",
            "type": "reasoning",
            "summary": [
                {"type": "summary_text", "text": "**Checking the weather**\n\nThe user wants Paris."},
                {"type": "summary_text", "text": "Call the tool."},
            ],
            "encrypted_content": "gAAAAABfinal-encrypted-reasoning==",
        }
    ]
    assert data["fields"] == {
        "message": {
            "id": "msg_07e2",
            "type": "message",
            "status": "completed",
            "content": [{"type": "output_text", "annotations": [], "logprobs": []}],
            "role": "assistant",
        }
    }
    assert result.usage is not None and result.usage["reasoning_tokens"] == 128


def test_a_stream_and_its_final_response_decode_alike() -> None:
    _, streamed = _decode(_sse("stream_reasoning_text_call.sse"))
    final = json.loads(_sse("stream_reasoning_text_call.sse")[-1].data)["response"]
    assert decode_response(final) == streamed


def test_text_and_arguments_sent_only_in_the_done_items_are_not_lost() -> None:
    message = {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant"}
    message["content"] = [{"type": "output_text", "annotations": [], "text": "Hi."}]
    call = _call("fc_1", "call_1", "f", '{"a":1}', "completed")
    _, result = _decode([CREATED, _done(0, message), _done(1, call), _completed([message, call])])
    assert result.message["content"] == "Hi."
    assert result.message["tool_calls"][0]["function"]["arguments"] == '{"a":1}'


def test_a_stream_that_is_only_the_final_response_decodes_like_a_whole_response() -> None:
    final = json.loads((FIXTURES / "response_reasoning_tools.json").read_text())
    _, result = _decode([_event({"type": "response.completed", "response": final})])
    assert result == decode_response(final)


def test_arguments_done_supplies_the_arguments_when_no_fragment_came() -> None:
    call = _call("fc_1", "call_1", "f")
    done = {"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 0, "arguments": "{}"}
    events, result = _decode([CREATED, _added(0, call), _event(done), _done(0, {**call, "arguments": "{}"})])
    assert [e for e in events if isinstance(e, ev.ToolCallDelta)] == [ev.ToolCallDelta(0, "{}")]
    assert result.complete is False  # no response.completed: cut off


def test_incomplete_for_max_output_tokens_is_length() -> None:
    call = _call("fc_1", "call_1", "f")
    stream = [
        CREATED,
        _added(0, call),
        _args(0, "fc_1", '{"a": '),
        _completed(status="incomplete", incomplete_details={"reason": "max_output_tokens"}),
    ]
    events, result = _decode(stream)
    assert ev.ToolCallEnd(0) in events
    assert (result.finish_reason, result.raw_finish_reason, result.complete) == ("length", "max_output_tokens", True)


def test_a_mid_stream_error_then_failed_is_one_error() -> None:
    events, result = _decode(_sse("stream_failed_quota.sse"))
    errors = [e.error for e in events if isinstance(e, ev.StreamError)]
    assert len(errors) == 1
    assert (errors[0].type, errors[0].retryable) == ("rate_limit", False)  # insufficient_quota: billing, not a wait
    assert errors[0].message.startswith("You exceeded your current quota")
    assert result.message["content"] == "Let me "
    assert (result.finish_reason, result.complete) == ("error", False)


def test_failed_without_an_error_event_is_an_error() -> None:
    failed = _completed(status="failed", error={"code": "server_error", "message": "Something broke."})
    events, _ = _decode([CREATED, failed])
    assert isinstance(events[-1], ev.StreamError)
    assert (events[-1].error.type, events[-1].error.retryable, events[-1].error.message) == (
        "server",
        True,
        "Something broke.",
    )


def test_unknown_events_and_padding_are_ignored() -> None:
    decoder = new_stream_decoder()
    assert decoder.feed(CREATED) == []
    assert decoder.feed(_event({"type": "response.in_progress", "response": {}})) == []
    assert decoder.feed(_event({"type": "response.web_search_call.searching", "output_index": 0})) == []
    assert decoder.feed(_event({"type": "response.brand_new_event", "x": 1})) == []
    assert decoder.feed(_event({"type": "response.output_text.done", "output_index": 0, "text": "x"})) == []
    assert decoder.feed(SSEEvent("", "keepalive")) == []
    assert decoder.feed(SSEEvent("[1, 2]", "response.output_text.delta")) == []
    assert decoder.feed(_args(5, "fc_unknown", '{"a":')) == []  # a call never announced: nothing to attach to


def test_the_event_type_comes_from_the_data_or_the_event_line() -> None:
    delta = {"output_index": 0, "item_id": "msg_1", "content_index": 0, "delta": "Hi"}
    assert new_stream_decoder().feed(SSEEvent(json.dumps(delta), "response.output_text.delta")) == [ev.TextDelta("Hi")]
    assert new_stream_decoder().feed(SSEEvent(json.dumps({"type": "response.output_text.delta", **delta}))) == [
        ev.TextDelta("Hi")
    ]


def test_unreadable_data_is_an_invalid_response_error() -> None:
    (event,) = new_stream_decoder().feed(SSEEvent("{not json", "response.created"))
    assert isinstance(event, ev.StreamError) and event.error.type == "invalid_response"
    (event,) = new_stream_decoder().feed(SSEEvent("upstream exploded", "error"))
    assert isinstance(event, ev.StreamError) and (event.error.type, event.error.message) == (
        "stream",
        "upstream exploded",
    )


def test_a_stream_cut_mid_call_is_incomplete_and_closes_the_call() -> None:
    decoded, result = _decode([CREATED, _added(0, _call("fc_1", "call_1", "f")), _args(0, "fc_1", '{"a": ')])
    assert decoded[-1] == ev.ToolCallEnd(0)
    assert result.complete is False
    assert result.message["tool_calls"][0]["function"]["arguments"] == '{"a": '


def test_events_after_the_end_are_ignored() -> None:
    decoder = new_stream_decoder()
    decoder.feed(_completed())
    assert decoder.feed(_event({"type": "response.output_text.delta", "output_index": 0, "delta": "late"})) == []
    assert decoder.close() == []


def test_thousands_of_fragments_are_passed_on_without_buffering() -> None:
    decoder = new_stream_decoder()
    decoder.feed(_added(0, _call("fc_1", "call_1", "f")))
    fragment = _args(0, "fc_1", "ab")
    for _ in range(8000):
        assert decoder.feed(fragment) == [ev.ToolCallDelta(0, "ab")]
    assert decoder.state.finished == {}


# --- encoding ----------------------------------------------------------------------------------------------------


def _result() -> StreamResult:
    _, result = _decode(_sse("stream_reasoning_text_call.sse"))
    return result


def _payloads(events: list[SSEEvent]) -> list[dict[str, Any]]:
    return [json.loads(event.data) for event in events]


def test_encode_stream_sends_what_the_api_sends() -> None:
    payloads = _payloads(encode_stream(_result(), model="gpt-5", response_id="resp_9", fragment_size=8, created=7))
    names = [p["type"] for p in payloads]
    assert names[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    assert names[-1] == "response.completed"
    assert [p["sequence_number"] for p in payloads] == list(range(len(payloads)))
    assert names.count("response.output_item.added") == names.count("response.output_item.done") == 3
    assert payloads[0]["response"]["status"] == "in_progress" and payloads[0]["response"]["output"] == []
    final = payloads[-1]["response"]
    assert (final["id"], final["model"], final["status"], final["created_at"]) == ("resp_9", "gpt-5", "completed", 7)
    assert final["usage"] == {
        "input_tokens": 320,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 210,
        "output_tokens_details": {"reasoning_tokens": 128},
        "total_tokens": 530,
    }
    assert [item["id"] for item in final["output"]] == ["rs_07e1", "msg_07e2", "fc_07e3"]


def test_reasoning_is_streamed_by_summary_part_and_its_encrypted_content_comes_only_when_done() -> None:
    payloads = _payloads(encode_stream(_result(), model="m", response_id="r", fragment_size=40))
    reasoning = [p for p in payloads if p.get("output_index") == 0]
    assert reasoning[0]["item"] == {"id": "rs_07e1", "type": "reasoning", "summary": []}
    assert [p["type"].removeprefix("response.") for p in reasoning[1:]] == [
        "reasoning_summary_part.added",
        "reasoning_summary_text.delta",
        "reasoning_summary_text.delta",
        "reasoning_summary_text.done",
        "reasoning_summary_part.done",
        "reasoning_summary_part.added",
        "reasoning_summary_text.delta",
        "reasoning_summary_text.done",
        "reasoning_summary_part.done",
        "output_item.done",
    ]
    assert reasoning[-1]["item"]["encrypted_content"] == "gAAAAABfinal-encrypted-reasoning=="


def test_calls_start_empty_then_send_fragments() -> None:
    payloads = _payloads(encode_stream(_result(), model="m", response_id="r", fragment_size=5))
    call = [p for p in payloads if p.get("output_index") == 2]
    assert call[0]["item"] == {
        "type": "function_call",
        "id": "fc_07e3",
        "call_id": "call_Wx9",
        "name": "get_weather",
        "arguments": "",
        "status": "in_progress",
    }
    assert [p["delta"] for p in call if p["type"] == "response.function_call_arguments.delta"] == [
        '{"cit',
        'y":"Z',
        "ürich",
        '"}',
    ]
    assert call[-1]["item"]["status"] == "completed"


def test_every_encoded_event_has_its_event_line() -> None:
    for event in encode_stream(_result(), model="m", response_id="r"):
        assert event.encode().startswith(f"event: {event.event}\ndata: ".encode())
        assert json.loads(event.data)["type"] == event.event


def test_encode_then_decode_a_stream_gives_the_same_result() -> None:
    result = _result()
    _, decoded = _decode(encode_stream(result, model="m", response_id="r", fragment_size=3))
    assert decoded == result


def test_a_stream_and_a_whole_response_decode_alike() -> None:
    result = _result()
    _, streamed = _decode(encode_stream(result, model="m", response_id="r"))
    assert decode_response(encode_response(result, model="m", response_id="r")) == streamed


def test_a_result_without_ids_gets_ids_that_pair_and_decode_back() -> None:
    message: Any = {
        "role": "assistant",
        "content": "Sure.",
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        "provider_data": {"format": "anthropic", "reasoning": "Think."},
    }
    result = StreamResult(message, "tool_calls", None, None, None, True)
    payloads = _payloads(encode_stream(result, model="m", response_id="resp_x"))
    output = payloads[-1]["response"]["output"]
    assert [item["type"] for item in output] == ["reasoning", "message", "function_call"]
    assert output[2]["call_id"] == "call_1" and output[2]["id"].startswith("fc_")
    _, decoded = _decode(encode_stream(result, model="m", response_id="resp_x"))
    assert (decoded.message["content"], decoded.message["provider_data"]["reasoning"]) == ("Sure.", "Think.")
    assert decoded.message["tool_calls"][0]["id"] == "call_1"


def test_a_length_finish_ends_with_response_incomplete() -> None:
    result = StreamResult({"role": "assistant", "content": "Half"}, "length", None, None, None, True)
    payloads = _payloads(encode_stream(result, model="m", response_id="r"))
    assert payloads[-1]["type"] == "response.incomplete"
    assert payloads[-1]["response"]["incomplete_details"] == {"reason": "max_output_tokens"}
    _, decoded = _decode(encode_stream(result, model="m", response_id="r"))
    assert (decoded.finish_reason, decoded.raw_finish_reason) == ("length", "max_output_tokens")


def test_an_error_result_ends_with_an_error_event_then_response_failed() -> None:
    result = _result()
    result.error = ProviderError("rate_limit", "Slow down", retryable=True)
    result.finish_reason, result.complete = "error", False
    payloads = _payloads(encode_stream(result, model="m", response_id="r"))
    assert [p["type"] for p in payloads[-2:]] == ["error", "response.failed"]
    assert payloads[-2]["code"] == "rate_limit_exceeded"
    assert payloads[-1]["response"]["error"] == {"code": "rate_limit_exceeded", "message": "Slow down"}
    _, decoded = _decode(encode_stream(result, model="m", response_id="r"))
    assert (decoded.finish_reason, decoded.complete, decoded.error and decoded.error.type) == (
        "error",
        False,
        "rate_limit",
    )


def test_an_incomplete_result_just_stops() -> None:
    result = StreamResult({"role": "assistant", "content": "Half"}, None, None, None, None, False)
    names = [event.event for event in encode_stream(result, model="m", response_id="r")]
    assert names[-1] == "response.output_item.done"
    assert not [name for name in names if name in ("response.completed", "response.incomplete")]


def test_an_item_never_done_is_finished_from_the_final_response() -> None:
    call = _call("fc_1", "call_1", "f")
    final = {**call, "status": "completed", "arguments": '{"a":1}'}
    events, result = _decode([CREATED, _added(0, call), _completed([final])])
    assert [e for e in events if isinstance(e, ev.ToolCallDelta)] == [ev.ToolCallDelta(0, '{"a":1}')]
    assert result.message["tool_calls"][0]["function"]["arguments"] == '{"a":1}'
    assert (result.finish_reason, result.complete) == ("tool_calls", True)
