"""max_tokens as the real APIs apply it: the answer stops where the budget runs out, finish reason ``length``."""

from __future__ import annotations

import json

import pytest

from providers.client import round_trip
from providers.simulator.limits import CHARS_PER_TOKEN, apply_max_tokens
from providers.simulator.model import PlannedCall, Reply
from tests.providers.test_client import FORMATS, WEATHER, endpoint

LONG_TEXT = "A long answer that goes on and on about the weather in every city of the world. " * 10
RAW_LENGTH = {"openai-chat": "length", "anthropic": "max_tokens"}


def test_a_reply_within_the_budget_is_left_alone() -> None:
    reply = Reply(None, "short", (PlannedCall("get_weather", '{"city": "Paris"}'),))
    assert apply_max_tokens(reply, 100) is reply
    assert apply_max_tokens(reply, None) is reply and apply_max_tokens(reply, True) is reply


def test_the_budget_runs_through_reasoning_text_then_calls_in_order() -> None:
    calls = (PlannedCall("get_weather", '{"city": "Paris"}'), PlannedCall("get_weather", '{"city": "Tokyo"}'))
    reply = Reply("think " * 4, "Here:", calls)  # 24 + 5 characters before the first call
    cut = apply_max_tokens(reply, 10)  # 40 characters: those 29, the first call's name (11), nothing more
    assert cut.truncated and cut.reasoning == "think " * 4 and cut.text == "Here:"
    assert [c.name for c in cut.calls] == ["get_weather"], "a call the budget never reaches is not made"
    assert cut.calls[0].arguments == ""
    longer = apply_max_tokens(reply, 12)  # 8 more characters: the start of the first call's arguments
    assert [c.arguments for c in longer.calls] == ['{"city":']
    only_reasoning = apply_max_tokens(reply, 2)
    assert only_reasoning.reasoning == "think th" and only_reasoning.text is None and only_reasoning.calls == ()


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("stream", [True, False])
async def test_a_long_text_stops_at_max_tokens(fmt: str, stream: bool) -> None:
    request = {"model": "sim-1", "stream": stream, "max_tokens": 20, "messages": [{"role": "user", "content": ""}]}
    request["messages"][0]["content"] = "/text " + LONG_TEXT
    rt = await round_trip(endpoint(fmt), request)  # type: ignore[arg-type]
    text = rt.result.message["content"]
    assert text == LONG_TEXT.strip()[: 20 * CHARS_PER_TOKEN]
    assert rt.result.finish_reason == "length" and rt.result.raw_finish_reason == RAW_LENGTH[fmt]
    assert rt.result.complete, "a truncated answer is a whole response: the stream itself ended properly"
    assert rt.result.usage and rt.result.usage["completion_tokens"] <= 20


@pytest.mark.parametrize("fmt", FORMATS)
async def test_a_call_cut_by_max_tokens_keeps_the_arguments_written_so_far(fmt: str) -> None:
    arguments = json.dumps({"city": "Paris", "note": "x" * 80})
    request = {
        "model": "sim-1",
        "stream": True,
        "max_tokens": 8,
        "messages": [{"role": "user", "content": f"/call get_weather {arguments}"}],
        "tools": [WEATHER],
    }
    rt = await round_trip(endpoint(fmt), request)  # type: ignore[arg-type]
    [call] = rt.result.message["tool_calls"]
    written = call["function"]["arguments"]
    assert written and arguments.startswith(written) and written != arguments
    with pytest.raises(ValueError):
        json.loads(written)
    assert rt.result.finish_reason == "length" and rt.result.raw_finish_reason == RAW_LENGTH[fmt]
