"""MessageAccumulator: the one fold from internal events to the final message, shared by every format."""

from __future__ import annotations

from providers import events as ev
from providers.errors import ProviderError
from providers.streaming import MessageAccumulator, StreamResult, fold


def add_call(events: list[ev.Event], index: int, call_id: str, name: str, *parts: str) -> None:
    events.append(ev.ToolCallStart(index, call_id, name))
    events.extend(ev.ToolCallDelta(index, part) for part in parts)
    events.append(ev.ToolCallEnd(index))


def test_text_only_turn() -> None:
    result = fold([ev.TextDelta("Hel"), ev.TextDelta("lo"), ev.Finish("stop", "end_turn"), ev.StreamEnd()])
    assert result == StreamResult(
        message={"role": "assistant", "content": "Hello"},
        finish_reason="stop",
        raw_finish_reason="end_turn",
        usage=None,
        error=None,
        complete=True,
    )


def test_calls_are_ordered_by_index_and_arguments_joined() -> None:
    events: list[ev.Event] = []
    add_call(events, 1, "call_b", "multiply", '{"a":', "2}")
    add_call(events, 0, "call_a", "add", '{"a"', ":1}")
    result = fold([*events, ev.Finish("tool_calls", "tool_calls"), ev.StreamEnd()])
    assert result.message == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "add", "arguments": '{"a":1}'}},
            {"id": "call_b", "type": "function", "function": {"name": "multiply", "arguments": '{"a":2}'}},
        ],
    }


def test_empty_or_blank_arguments_become_empty_object() -> None:
    events: list[ev.Event] = []
    add_call(events, 0, "a", "f")
    add_call(events, 1, "b", "f", "", "  ")
    calls = fold(events).message["tool_calls"]
    assert [call["function"]["arguments"] for call in calls] == ["{}", "{}"]


def test_invalid_argument_text_is_kept_verbatim() -> None:
    events: list[ev.Event] = []
    add_call(events, 0, "a", "f", '{"a": 1', ", oops")
    assert fold(events).message["tool_calls"][0]["function"]["arguments"] == '{"a": 1, oops'


def test_calls_decide_the_finish_reason() -> None:
    events: list[ev.Event] = []
    add_call(events, 0, "a", "f", "{}")
    named_choice = fold([*events, ev.Finish("stop", "stop"), ev.StreamEnd()])
    assert (named_choice.finish_reason, named_choice.raw_finish_reason) == ("tool_calls", "stop")
    no_reason = fold([*events, ev.StreamEnd()])
    assert (no_reason.finish_reason, no_reason.raw_finish_reason, no_reason.complete) == ("tool_calls", None, True)


def test_end_without_finish_is_a_stop_and_neither_is_incomplete() -> None:
    ended = fold([ev.TextDelta("hi"), ev.StreamEnd()])
    assert (ended.finish_reason, ended.complete) == ("stop", True)
    cut = fold([ev.TextDelta("hi")])
    assert (cut.finish_reason, cut.complete, cut.message) == (None, False, {"role": "assistant", "content": "hi"})
    finished_not_ended = fold([ev.TextDelta("hi"), ev.Finish("length", "length")])
    assert (finished_not_ended.finish_reason, finished_not_ended.complete) == ("length", True)


def test_error_wins_and_keeps_what_arrived() -> None:
    error = ProviderError("overloaded", "Overloaded", retryable=True)
    events: list[ev.Event] = [ev.TextDelta("partial")]
    add_call(events, 0, "a", "f", '{"x"')
    result = fold([*events, ev.StreamError(error), ev.StreamEnd()])
    assert (result.finish_reason, result.error, result.complete) == ("error", error, False)
    assert result.message["content"] == "partial"
    assert result.message["tool_calls"][0]["function"]["arguments"] == '{"x"'
    assert result.to_dict()["error"] == {"type": "overloaded", "message": "Overloaded"}


def test_usage_updates_replace_only_the_fields_they_name() -> None:
    result = fold(
        [
            ev.UsageUpdate({"prompt_tokens": 416, "completion_tokens": 1, "cached_tokens": 0}),
            ev.UsageUpdate({"completion_tokens": 109, "prompt_tokens": 420}),
        ]
    )
    assert result.usage == {"prompt_tokens": 420, "completion_tokens": 109, "cached_tokens": 0}


def test_provider_data_is_stamped_with_the_format() -> None:
    block = {"type": "thinking", "thinking": "t", "signature": "sig"}
    events: list[ev.Event] = [
        ev.ReasoningDelta("th"),
        ev.ReasoningDelta("ink"),
        ev.ProviderBlock(block),
        ev.MessageFields({"reasoning_content": "think"}),
        ev.MessageFields({"refusal": "no"}),
        ev.TextDelta("ok"),
    ]
    message = fold(events, format="anthropic").message
    assert message == {
        "role": "assistant",
        "content": "ok",
        "provider_data": {
            "format": "anthropic",
            "reasoning": "think",
            "blocks": [block],
            "fields": {"reasoning_content": "think", "refusal": "no"},
        },
    }


def test_call_fields_become_call_provider_data() -> None:
    events: list[ev.Event] = [ev.ToolCallStart(0, "a", "f", {"extra_content": {"google": {"s": 1}}}), ev.ToolCallEnd(0)]
    call = fold(events, format="openai-chat").message["tool_calls"][0]
    assert call["provider_data"] == {"format": "openai-chat", "fields": {"extra_content": {"google": {"s": 1}}}}


def test_empty_stream() -> None:
    result = fold([])
    assert result == StreamResult({"role": "assistant", "content": None}, None, None, None, None, False)
    assert result.to_dict() == {
        "message": {"role": "assistant", "content": None},
        "finish_reason": None,
        "usage": None,
        "error": None,
    }


def test_accumulator_can_be_fed_incrementally_and_read_any_time() -> None:
    acc = MessageAccumulator(format="openai-chat")
    acc.add(ev.ToolCallStart(0, "a", "f"))
    acc.add(ev.ToolCallDelta(0, '{"q":'))
    assert acc.result().message["tool_calls"][0]["function"]["arguments"] == '{"q":'
    acc.extend([ev.ToolCallDelta(0, "1}"), ev.ToolCallEnd(0), ev.StreamEnd()])
    assert acc.result().message["tool_calls"][0]["function"]["arguments"] == '{"q":1}'
    assert acc.result().complete


def test_every_event_reaches_the_browser_as_its_kind_then_its_set_fields() -> None:
    events: list[ev.Event] = [
        ev.TextDelta("Hel"),
        ev.ReasoningDelta("thinking"),
        ev.ToolCallStart(0, "call_a", "get_weather"),
        ev.ToolCallStart(1, "call_b", "lookup", {"extra": {"x": 1}}),
        ev.ToolCallDelta(0, '{"ci'),
        ev.ToolCallEnd(0),
        ev.ProviderBlock({"type": "thinking", "signature": "s"}),
        ev.MessageFields({"reasoning_content": "r"}),
        ev.UsageUpdate({"input_tokens": 3}),
        ev.Finish("stop", None),
        ev.StreamEnd(),
    ]
    dicts = [ev.event_to_dict(e) for e in events]
    assert [next(iter(d)) for d in dicts] == ["kind"] * len(events)
    assert dicts[0] == {"kind": "text", "text": "Hel"} and dicts[1] == {"kind": "reasoning", "text": "thinking"}
    assert dicts[2] == {"kind": "tool_call_start", "index": 0, "id": "call_a", "name": "get_weather"}
    assert dicts[3]["fields"] == {"extra": {"x": 1}}
    assert dicts[4] == {"kind": "tool_call_delta", "index": 0, "arguments": '{"ci'}
    assert dicts[5] == {"kind": "tool_call_end", "index": 0}
    assert dicts[8] == {"kind": "usage", "usage": {"input_tokens": 3}}
    assert dicts[9] == {"kind": "finish", "reason": "stop"}, "unset fields are left out"
    assert dicts[10] == {"kind": "end"}
    error = ev.event_to_dict(ev.StreamError(ProviderError("overloaded", "Busy.")))
    assert error["kind"] == "error" and error["error"]["type"] == "overloaded"


def test_calls_cut_by_the_token_limit_keep_the_length_reason() -> None:
    events: list[ev.Event] = []
    add_call(events, 0, "call_a", "get_weather", '{"ci')
    result = fold([*events, ev.Finish("length", "max_tokens"), ev.StreamEnd()])
    assert result.finish_reason == "length" and result.raw_finish_reason == "max_tokens"
    assert result.message["tool_calls"][0]["function"]["arguments"] == '{"ci'
