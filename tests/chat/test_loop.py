"""The tool loop against the simulator: every answer mode, approvals, limits and faults."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field, replace
from typing import Any

import httpx2
import pytest

from playground.chat.loop import Decision, LoopSettings, ToolLoop, request_for
from playground.tools.builtins import BUILTINS
from playground.tools.config import ToolConfig
from playground.tools.results import ToolResult
from providers.client import Endpoint, RequestSent, RoundTrip, Update
from providers.events import ToolCallDelta
from providers.simulator.app import create_server_app
from providers.types import Message, ToolCall

WEATHER_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
BASES = {"openai-chat": "http://sim/sim/openai/v1", "anthropic": "http://sim/sim/anthropic"}


def endpoint(fmt: str = "openai-chat") -> Endpoint:
    return Endpoint(fmt, BASES[fmt], "sk-test", transport=httpx2.ASGITransport(app=create_server_app()))


@dataclass
class Recorder:
    manual: list[ToolResult] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    updates: list[tuple[int, Update]] = field(default_factory=list)
    round_trips: list[RoundTrip] = field(default_factory=list)
    messages: list[tuple[Message, bool]] = field(default_factory=list)
    results: list[tuple[str, ToolResult, int]] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)

    async def on_update(self, round_trip_index: int, update: Update) -> None:
        assert isinstance(update, RequestSent), "what never waits goes to on_stream"
        self.updates.append((round_trip_index, update))

    def on_stream(self, round_trip_index: int, update: Update) -> None:
        self.updates.append((round_trip_index, update))

    async def on_round_trip(self, round_trip_index: int, round_trip: RoundTrip, message: Message | None) -> None:
        self.round_trips.append(round_trip)
        if message is not None:
            self.messages.append((message, round_trip.result.complete))

    async def on_tool_result(self, call: ToolCall, result: ToolResult, *, attempt: int) -> None:
        self.results.append((call["function"]["name"], result, attempt))

    async def manual_result(self, call: ToolCall) -> ToolResult:
        self.asked.append(call["function"]["name"])
        if not self.manual:
            await asyncio.Event().wait()  # a person who never answers
        return self.manual.pop(0)

    async def approve(self, call: ToolCall) -> Decision:
        return self.decisions.pop(0)


def loop(text: str, tools: list[ToolConfig], recorder: Recorder, fmt: str = "openai-chat", **params: Any) -> ToolLoop:
    settings = params.pop("settings", LoopSettings())
    base = {"model": params.pop("model", "sim-1"), "stream": True, "max_tokens": 1024, **params}
    request = request_for({**base, "messages": [{"role": "user", "content": text}]}, tools)
    return ToolLoop(endpoint(fmt), request, {t.name: t for t in tools}, recorder, settings)


CALC = ToolConfig("calculator", "Arithmetic", BUILTINS["calculator"].parameters, mode="builtin", builtin="calculator")
WEATHER = ToolConfig("get_weather", "Weather for a city", WEATHER_SCHEMA, mode="manual")


@pytest.mark.parametrize("fmt", list(BASES))
async def test_builtin_tool_answers_and_the_model_uses_the_result(fmt: str) -> None:
    recorder = Recorder()
    outcome = await loop('/call calculator {"expression": "6 * 7"}', [CALC], recorder, fmt).run()
    assert (outcome.status, outcome.round_trips) == ("done", 2)
    [(name, result, attempt)] = recorder.results
    assert name == "calculator" and json.loads(result.content)["result"] == 42 and attempt == 1
    final = recorder.messages[-1][0]
    assert "42" in str(final["content"])
    assert any(isinstance(u, ToolCallDelta) and i == 0 for i, u in recorder.updates)


async def test_manual_result_is_sent_back_to_the_model() -> None:
    recorder = Recorder(manual=[ToolResult("18 degrees and sunny", source="manual")])
    outcome = await loop('/call get_weather {"city": "Paris"}', [WEATHER], recorder).run()
    assert outcome.status == "done" and recorder.asked == ["get_weather"]
    assert "18 degrees and sunny" in str(recorder.messages[-1][0]["content"])
    second_request = recorder.round_trips[1].request["messages"]
    assert second_request[-1] == {
        "role": "tool",
        "tool_call_id": recorder.round_trips[0].result.message["tool_calls"][0]["id"],
        "content": "18 degrees and sunny",
    }


async def test_canned_tool_picks_the_rule_for_the_arguments() -> None:
    canned = ToolConfig.from_dict(
        {
            "name": "get_weather",
            "parameters": WEATHER_SCHEMA,
            "mode": "canned",
            "canned_rules": [{"when": {"city": "Oslo"}, "response": "-3 and snow"}],
            "canned_default": "20 and clear",
        }
    )
    recorder = Recorder()
    await loop('/call get_weather {"city": "Oslo"}\n/call get_weather {"city": "Rome"}', [canned], recorder).run()
    assert [r.content for _, r, _ in recorder.results] == ["-3 and snow", "20 and clear"]
    assert [r.source for _, r, _ in recorder.results] == ["canned:rule 1", "canned:default"]


async def test_parallel_calls_are_answered_in_call_order() -> None:
    recorder = Recorder(manual=[ToolResult("sunny"), ToolResult("rainy")])
    text = '/call get_weather {"city": "Paris"}\n/call get_weather {"city": "Tokyo"}'
    await loop(text, [WEATHER], recorder).run()
    calls = recorder.round_trips[0].result.message["tool_calls"]
    assert len(calls) == 2
    tool_messages = [m for m in recorder.round_trips[1].request["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == [c["id"] for c in calls]
    assert [attempt for _, _, attempt in recorder.results] == [1, 1], "parallel calls are not retries"


async def test_denied_call_is_answered_with_an_error_the_model_sees() -> None:
    recorder = Recorder(decisions=[Decision("deny", reason="Not allowed on weekends.")])
    settings = LoopSettings(approve_before_running=True)
    outcome = await loop('/call calculator {"expression": "1+1"}', [CALC], recorder, settings=settings).run()
    assert outcome.status == "done"
    [(_, result, _)] = recorder.results
    assert result.is_error and result.content == "Not allowed on weekends." and result.source == "denied"
    assert recorder.round_trips[1].request["messages"][-1]["is_error"] is True


async def test_approved_call_runs_with_edited_arguments() -> None:
    recorder = Recorder(decisions=[Decision("approve", arguments='{"expression": "2 ** 10"}')])
    settings = LoopSettings(approve_before_running=True)
    await loop('/call calculator {"expression": "1+1"}', [CALC], recorder, settings=settings).run()
    result = recorder.results[0][1]
    assert json.loads(result.content)["result"] == 1024
    # The call keeps the model's arguments; its result says which ones ran, for the card and the saved record.
    assert result.meta == {"edited_arguments": '{"expression": "2 ** 10"}'}
    assert recorder.round_trips[1].request["messages"][-2]["tool_calls"][0]["function"]["arguments"] == (
        '{"expression": "1+1"}'
    )


async def test_edited_arguments_that_fail_the_schema_say_which_ran() -> None:
    recorder = Recorder(decisions=[Decision("approve", arguments='{"city": 42}')])
    settings = LoopSettings(approve_before_running=True)
    await loop('/call get_weather {"city": "Paris"}', [WEATHER], recorder, settings=settings).run()
    [(_, result, _)] = recorder.results
    assert result.source == "validation" and "42 is not of type 'string'" in result.content
    assert result.meta == {"edited_arguments": '{"city": 42}'}


async def test_a_parallel_siblings_invalid_arguments_do_not_number_a_valid_call_as_a_retry() -> None:
    recorder = Recorder()
    text = '/call calculator {"expression": 5}\n/call calculator {"expression": "6 * 7"}'
    outcome = await loop(text, [CALC], recorder).run()
    assert outcome.status == "done"
    results = [(r.source, attempt) for _, r, attempt in recorder.results]
    assert sorted(results) == [("builtin:calculator", 1), ("validation", 1)], "both are the model's first try"


async def test_an_invalid_edit_is_not_counted_as_the_models_attempt() -> None:
    """The person's invalid edit runs and fails as given, but the model's retries are its own: with none allowed,
    an edit that fails does not end the run as if the model had used up its tries."""
    recorder = Recorder(decisions=[Decision("approve", arguments='{"city": 42}')])
    settings = LoopSettings(approve_before_running=True, max_invalid_retries=0)
    outcome = await loop('/call get_weather {"city": "Paris"}', [WEATHER], recorder, settings=settings).run()
    assert [(r.source, attempt) for _, r, attempt in recorder.results] == [("validation", 1)]
    assert (outcome.status, outcome.round_trips) == ("done", 2)


@pytest.mark.parametrize("approved", ['{"expression": "1+1"}', '{\n  "expression": "1+1"\n}'])
async def test_arguments_approved_unchanged_are_not_marked_edited(approved: str) -> None:
    """Untouched in the form, which shows them pretty-printed: only the spacing differs, and no edit is claimed."""
    recorder = Recorder(decisions=[Decision("approve", arguments=approved)])
    settings = LoopSettings(approve_before_running=True)
    await loop('/call calculator {"expression": "1+1"}', [CALC], recorder, settings=settings).run()
    assert recorder.results[0][1].meta is None


async def test_invalid_arguments_get_a_validation_error_result() -> None:
    recorder = Recorder()
    outcome = await loop('/call get_weather {"city": 5}', [WEATHER], recorder).run()
    [(_, result, attempt)] = recorder.results
    assert result.is_error and result.source == "validation" and attempt == 1
    assert "/city: 5 is not of type 'string'" in result.content
    assert outcome.status == "done" and recorder.asked == []


async def test_model_that_keeps_sending_bad_json_is_given_up_on() -> None:
    recorder = Recorder()
    settings = LoopSettings(max_invalid_retries=2)
    run = loop(
        "weather in Paris please", [WEATHER], recorder, model="sim-badjson", tool_choice="required", settings=settings
    )
    outcome = await run.run()
    assert outcome.status == "invalid_arguments" and outcome.round_trips == 3
    assert [attempt for _, _, attempt in recorder.results] == [1, 2, 3]
    assert all(r.source == "validation" and "not valid JSON" in r.content for _, r, _ in recorder.results)
    assert all(".." not in r.content and r.content.endswith(". Fix them and call the tool again.")
               for _, r, _ in recorder.results)  # fmt: skip


async def test_round_trip_limit_is_said_plainly() -> None:
    recorder = Recorder()
    settings = LoopSettings(max_round_trips=3, max_invalid_retries=10)  # a model that calls again and again
    outcome = await loop("weather in Paris please", [WEATHER], recorder, model="sim-badjson", settings=settings).run()
    assert outcome.status == "max_round_trips" and outcome.round_trips == 3
    assert outcome.message == "Stopped after 3 model round trips (the configured maximum)."
    assert len(recorder.round_trips) == 3


@pytest.mark.parametrize(
    ("choice", "said"),
    [("required", "'required'"), ({"type": "function", "function": {"name": "calculator"}}, "'calculator'")],
)
async def test_a_forced_tool_choice_holds_for_one_round_trip_then_the_model_may_answer(choice: Any, said: str) -> None:
    # Forced on every round trip, the model could only call again until the limit (8 calls of 1 + 1).
    recorder = Recorder()
    outcome = await loop("calculate 1+1", [CALC], recorder, tool_choice=choice).run()
    assert (outcome.status, outcome.round_trips) == ("done", 2)
    sent = [update for _, update in recorder.updates if isinstance(update, RequestSent)]
    assert [request.request["tool_choice"] for request in sent] == [choice, "auto"]
    assert not any("tool_choice" in note for note in sent[0].notes)
    [note] = [note for note in sent[1].notes if "tool_choice" in note]
    assert note.startswith(f"tool_choice {said} forced the previous round trip's call") and "'auto'" in note
    assert [name for name, _, _ in recorder.results] == ["calculator"]


async def test_tool_choice_none_and_auto_are_sent_as_they_are_on_every_round_trip() -> None:
    recorder = Recorder()
    outcome = await loop('/call calculator {"expression": "6 * 7"}', [CALC], recorder, tool_choice="auto").run()
    assert outcome.status == "done"
    sent = [update for _, update in recorder.updates if isinstance(update, RequestSent)]
    assert [request.request["tool_choice"] for request in sent] == ["auto", "auto"]
    assert not any("tool_choice" in note for request in sent for note in request.notes)


@pytest.mark.parametrize("fmt", list(BASES))
async def test_a_call_cut_by_max_tokens_is_not_run_and_the_run_says_why(fmt: str) -> None:
    recorder = Recorder()
    text = '/call calculator {"expression": "1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12"}'
    outcome = await loop(text, [CALC], recorder, fmt, max_tokens=6).run()
    assert (outcome.status, outcome.round_trips) == ("max_tokens", 1)
    assert outcome.message == (
        "The model reached the max tokens limit (6) in the middle of a tool call, which was not run. "
        "Raise Max tokens and send again."
    )
    assert recorder.results == [], "a cut call is neither run nor answered with an error to retry"
    [(message, complete)] = recorder.messages
    assert message["tool_calls"][0]["function"]["name"] == "calculator" and complete
    assert recorder.round_trips[0].result.finish_reason == "length"


async def test_a_text_answer_cut_by_max_tokens_ends_the_run_saying_so() -> None:
    recorder = Recorder()
    outcome = await loop("/text " + "a rather long answer " * 20, [], recorder, max_tokens=5).run()
    assert outcome.status == "done" and "max tokens limit (5) before it finished" in outcome.message
    assert recorder.messages[0][0]["content"] == ("a rather long answer " * 20).strip()[:20]


async def test_unknown_tool_is_answered_with_an_error() -> None:
    recorder = Recorder()
    await loop('/call calculator {"expression": "1"}', [], recorder).run()
    assert recorder.results[0][1].content == "No tool named 'calculator' is enabled in this chat."


@pytest.mark.parametrize("fmt", list(BASES))
async def test_provider_error_ends_the_run_with_its_message(fmt: str) -> None:
    recorder = Recorder()
    outcome = await loop("hello", [], recorder, fmt, model="sim-429").run()
    assert outcome.status == "error" and outcome.error is not None and outcome.error.type == "rate_limit"
    assert recorder.round_trips[0].result.complete is False


async def test_cancel_while_waiting_for_a_person_keeps_the_call() -> None:
    recorder = Recorder()
    task = asyncio.create_task(loop('/call get_weather {"city": "Paris"}', [WEATHER], recorder).run())
    while not recorder.asked:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert recorder.messages[0][0]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert recorder.results == []


@pytest.mark.parametrize(
    ("model", "kind"),
    [
        ("sim-401", "authentication"),
        ("sim-429", "rate_limit"),
        ("sim-529", "overloaded"),
        ("sim-500", "server"),
        ("sim-error-event", None),  # HTTP 200, then an error event inside the stream
    ],
)
@pytest.mark.parametrize("fmt", list(BASES))
async def test_every_provider_fault_ends_the_run_readably(fmt: str, model: str, kind: str | None) -> None:
    recorder = Recorder()
    outcome = await loop('/call get_weather {"city": "Paris"}', [WEATHER], recorder, fmt, model=model).run()
    assert outcome.status == "error" and outcome.error is not None and outcome.message
    if kind is not None:
        assert outcome.error.type == kind
    else:
        assert recorder.round_trips[0].status == 200
    assert recorder.round_trips[0].result.complete is False
    assert recorder.asked == [], "nothing is run after a failed round trip"


@pytest.mark.parametrize("fmt", list(BASES))
async def test_a_call_sent_with_empty_arguments_runs_with_none(fmt: str) -> None:
    no_args = ToolConfig(
        "ping", "No arguments", {"type": "object", "properties": {}}, mode="canned", canned_default="pong"
    )
    recorder = Recorder()
    # The fault makes every turn a broken call, so one round trip is all this needs.
    settings = LoopSettings(max_round_trips=1)
    await loop("/call ping", [no_args], recorder, fmt, model="sim-empty-args", settings=settings).run()
    call = recorder.round_trips[0].result.message["tool_calls"][0]
    assert call["function"]["arguments"] == "{}"
    assert recorder.results[0][1].content == "pong" and recorder.results[0][1].source == "canned:default"


def socket_loop(simulator_url: str, model: str, recorder: Recorder, timeout: float = 30.0) -> ToolLoop:
    # Cut streams and silent servers only show over a real socket (in-process transport buffers whole bodies).
    endpoint = Endpoint("openai-chat", f"{simulator_url}/openai/v1", "sk-test", timeout=timeout)
    endpoint.headers = {"x-sim-pace-ms": "5"}
    request = request_for(
        {
            "model": model,
            "stream": True,
            "messages": [{"role": "user", "content": '/call get_weather {"city": "Oslo"}'}],
        },
        [WEATHER],
    )
    return ToolLoop(endpoint, request, {"get_weather": WEATHER}, recorder)


async def test_a_cut_stream_keeps_the_partial_call_and_stops(simulator_url: str) -> None:
    recorder = Recorder()
    outcome = await socket_loop(simulator_url, "sim-cut", recorder).run()
    assert outcome.status == "error" and outcome.error is not None and outcome.error.type == "connection"
    [(message, complete)] = recorder.messages
    assert complete is False and message["tool_calls"][0]["function"]["name"] == "get_weather"
    assert recorder.asked == []


async def test_a_silent_provider_times_out(simulator_url: str) -> None:
    recorder = Recorder()
    outcome = await socket_loop(simulator_url, "sim-hang", recorder, timeout=0.5).run()
    assert outcome.status == "error" and outcome.error is not None and outcome.error.type == "timeout"


async def test_a_tool_that_raises_is_answered_with_an_error_and_its_siblings_finish(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = Recorder(manual=[ToolResult("sunny")])
    broken = ToolConfig("get_weather", "Weather", WEATHER_SCHEMA, mode="builtin", builtin="get_weather")
    manual = ToolConfig("search_docs", "Docs", {"type": "object", "properties": {"q": {"type": "string"}}})
    loop_run = loop('/call get_weather {"city": "Oslo"}\n/call search_docs {"q": "x"}', [broken, manual], recorder)

    def explode(arguments: dict[str, object]) -> str:
        raise KeyError("a bug inside the tool")

    original = BUILTINS["get_weather"]
    monkeypatch.setitem(BUILTINS, "get_weather", replace(original, run=explode))
    outcome = await loop_run.run()
    results = {name: result for name, result, _ in recorder.results}
    assert results["get_weather"].is_error and "KeyError" in results["get_weather"].content
    assert results["search_docs"].content == "sunny" and outcome.status == "done"


async def test_a_stop_while_a_finished_round_trip_is_recorded_still_saves_its_answer() -> None:
    """The answer has fully arrived and is being saved when Stop lands: the round trip and its message are saved
    whole, then the run stops. Cut there, the answer would be lost although every byte of it had arrived."""

    class SlowRecorder(Recorder):
        recording = asyncio.Event()

        async def on_round_trip(self, round_trip_index: int, round_trip: RoundTrip, message: Message | None) -> None:
            self.recording.set()
            await asyncio.sleep(0.05)  # the database is slow to take the whole round trip
            await super().on_round_trip(round_trip_index, round_trip, message)

    recorder = SlowRecorder()
    task = asyncio.create_task(loop("hello there", [], recorder).run())
    await recorder.recording.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(recorder.round_trips) == 1 and recorder.round_trips[0].result.complete
    assert [complete for _, complete in recorder.messages] == [True]
    assert recorder.messages[0][0]["content"]


def test_an_error_finishs_own_words_are_clipped_for_its_card() -> None:
    # Gemini's finishMessage for a call it could not write holds the call as far as it got, which can be long: the
    # card says the start of it (all of it stays in the raw events).
    from playground.chat.loop import _name_error_finish
    from providers.streaming import StreamResult

    said = "Malformed function call: print(default_api.write(text=" + "x" * 2000
    result = StreamResult({"role": "assistant", "content": None}, "error", "MALFORMED_FUNCTION_CALL", None, None, True)
    result.finish_detail = said
    _name_error_finish(result)
    assert result.error is not None and result.error.type == "invalid_response"
    message = result.error.message
    assert message.startswith("The model ended its answer with an error (MALFORMED_FUNCTION_CALL). It said: Malformed")
    assert message.endswith("…") and len(message) < 600 and said[:400] in message
