"""providers.client against the simulator, in-process: the official SDKs do the HTTP, we record and translate."""

from __future__ import annotations

import gc
import json
import weakref

import httpx2
import pytest

from providers.client import REDACTED, EmitError, Endpoint, RequestSent, RoundTripRun, WireEvent, round_trip
from providers.client.capture import raw_event_dicts
from providers.events import ToolCallDelta, ToolCallStart
from providers.simulator.app import create_server_app
from providers.types import ChatRequest

SECRET = "sk-test-SECRET-value"
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
BASE_URLS = {"openai-chat": "http://sim/sim/openai/v1", "anthropic": "http://sim/sim/anthropic"}
FORMATS = list(BASE_URLS)


def endpoint(fmt: str, **kwargs: object) -> Endpoint:
    app = create_server_app(slow_first_byte_s=3.0)
    transport = httpx2.ASGITransport(app=app)
    return Endpoint(fmt, BASE_URLS[fmt], SECRET, transport=transport, **kwargs)  # type: ignore[arg-type]


def weather_request(model: str = "sim-1", stream: bool = True) -> ChatRequest:
    return {
        "model": model,
        "stream": stream,
        "max_tokens": 512,
        "messages": [{"role": "user", "content": '/call get_weather {"city": "Paris"}'}],
        "tools": [WEATHER],
    }


@pytest.mark.parametrize("fmt", FORMATS)
async def test_streamed_tool_call_is_recorded_and_translated(fmt: str) -> None:
    updates: list[object] = []

    async def emit(update: object) -> None:
        updates.append(update)

    rt = await round_trip(endpoint(fmt), weather_request(), emit)  # type: ignore[arg-type]
    [call] = rt.result.message["tool_calls"]
    assert call["function"]["name"] == "get_weather"
    assert json.loads(call["function"]["arguments"]) == {"city": "Paris"}
    assert rt.result.complete and rt.result.finish_reason == "tool_calls" and rt.status == 200
    assert isinstance(updates[0], RequestSent)
    fragments = [u for u in updates if isinstance(u, ToolCallDelta)]
    assert len(fragments) >= 2, "arguments should arrive in several fragments"
    assert sum(isinstance(u, ToolCallStart) for u in updates) == 1
    assert len([u for u in updates if isinstance(u, WireEvent)]) == len(rt.wire_events) >= 4
    assert rt.ttfb_ms is not None and rt.total_ms >= rt.ttfb_ms


async def test_kept_wire_events_are_not_followed_by_the_garbage_collector() -> None:
    # A round trip keeps every raw event until it is saved: thousands per long answer, per chat. Objects the collector
    # tracks make every full collection longer (a pause for every socket of the process); these must drop out.
    run = RoundTripRun(endpoint("openai-chat"), weather_request())
    await run.run()
    gc.collect()
    assert len(run.raw_events) >= 4 and not any(gc.is_tracked(event) for event in run.raw_events)
    assert [(e.t_ms, e.data, e.event) for e in run.snapshot().wire_events] == run.raw_events, "the same, as WireEvent"


@pytest.mark.parametrize("fmt", [*FORMATS, "gemini"])
async def test_a_finished_round_trip_is_freed_at_once_not_by_the_collector(fmt: str) -> None:
    # The SDK's client is a reference cycle (it and its resources point at each other), and it held the request hook,
    # which held the run: every raw event of the round trip waited for the next full collection, and was freed in it,
    # a pause for every socket of the process. Dropped with the last reference, the run never reaches the collector.
    urls = {**BASE_URLS, "gemini": "http://sim/sim/gemini"}
    app = create_server_app(slow_first_byte_s=3.0)
    ep = Endpoint(fmt, urls[fmt], SECRET, transport=httpx2.ASGITransport(app=app))  # type: ignore[arg-type]
    gc.collect()
    gc.disable()
    try:
        run = RoundTripRun(ep, weather_request())
        rt = await run.run()
        assert rt.result.complete and run.raw_events  # Gemini sends the whole call in one event
        gone = weakref.ref(run)
        del run
        assert gone() is None, "the finished run is kept alive by a reference cycle"
    finally:
        gc.enable()


async def test_a_snapshot_keeps_the_events_as_tuples_and_builds_wire_events_only_when_read() -> None:
    # A long answer's end is saved as dicts made from the tuples: thousands of WireEvent objects built only to be
    # turned into dicts cost more than the dicts (docs/performance.md).
    run = RoundTripRun(endpoint("openai-chat"), weather_request())
    rt = await run.run()
    dicts = rt.to_dict()["wire_events"]
    assert "wire_events" not in vars(rt), "to_dict must not build the WireEvent objects"
    assert raw_event_dicts(rt.raw_events) == dicts == [event.to_dict() for event in rt.wire_events]
    assert rt.raw_events == run.raw_events and rt.raw_events is not run.raw_events
    run.raw_events.append((99.0, "late", None))  # the snapshot is what had arrived when it was taken
    assert len(rt.raw_events) == len(dicts) and rt.raw_events[-1] != (99.0, "late", None)


@pytest.mark.parametrize("fmt", FORMATS)
async def test_wire_request_is_exact_and_secrets_are_redacted(fmt: str) -> None:
    rt = await round_trip(endpoint(fmt), weather_request())
    wire = rt.wire_request
    assert wire is not None and wire.method == "POST"
    assert wire.url.endswith("/chat/completions" if fmt == "openai-chat" else "/v1/messages")
    secret_headers = {k.lower(): v for k, v in wire.headers.items() if k.lower() in {"authorization", "x-api-key"}}
    assert secret_headers and set(secret_headers.values()) == {REDACTED}
    assert SECRET not in json.dumps(rt.to_dict())
    assert wire.body["stream"] is True
    tool_shape = wire.body["tools"][0]
    assert ("input_schema" in tool_shape) == (fmt == "anthropic")


async def test_a_wire_request_as_a_dict_shares_its_body_and_copies_its_headers() -> None:
    rt = await round_trip(endpoint("openai-chat"), weather_request())
    wire = rt.wire_request
    assert wire is not None
    as_dict = wire.to_dict()
    assert as_dict == {"method": wire.method, "url": wire.url, "headers": wire.headers, "body": wire.body}
    # The row and the pane's frame each take one per round trip: the messages and tools are not copied for them.
    assert as_dict["body"] is wire.body
    as_dict["headers"]["x-extra"] = "1"
    assert "x-extra" not in wire.headers


async def test_the_sdk_methods_parameters_are_read_once_and_unknown_fields_go_in_extra_body() -> None:
    import openai

    from providers.client import sdk

    sdk._parameters.cache_clear()
    body = {"model": "m", "messages": [], "stream": True, "top_k": 3}
    for _ in range(3):  # a new client per turn, as the app makes them
        create = openai.AsyncOpenAI(api_key="k", base_url="http://x/v1").chat.completions.create
        kwargs = sdk._split_body(create, body)
        assert kwargs == {"model": "m", "messages": [], "stream": True, "extra_body": {"top_k": 3}}
    assert sdk._parameters.cache_info().misses == 1
    # Whole: the body goes in extra_body (the SDK merges it in untouched); the required messages are given empty.
    history = [{"role": "user", "content": "hi"}]
    kwargs = sdk._split_body(create, {**body, "messages": history}, whole=True)
    assert kwargs == {"model": "m", "stream": True, "messages": [], "extra_body": {"messages": history, "top_k": 3}}


@pytest.mark.parametrize("fmt", FORMATS)
async def test_non_streamed_response_gives_the_same_message(fmt: str) -> None:
    streamed = await round_trip(endpoint(fmt), weather_request(stream=True))
    whole = await round_trip(endpoint(fmt), weather_request(stream=False))
    assert len(whole.wire_events) == 1
    # Anthropic sends an `input` object whole but the model's own text when streaming: compare the JSON values.
    [whole_call], [streamed_call] = whole.result.message["tool_calls"], streamed.result.message["tool_calls"]
    assert whole_call["function"]["name"] == streamed_call["function"]["name"] == "get_weather"
    assert json.loads(whole_call["function"]["arguments"]) == json.loads(streamed_call["function"]["arguments"])


@pytest.mark.parametrize(
    ("fmt", "model", "kind", "status", "retryable"),
    [
        ("openai-chat", "sim-401", "authentication", 401, False),
        ("anthropic", "sim-401", "authentication", 401, False),
        ("openai-chat", "sim-429", "rate_limit", 429, True),
        ("anthropic", "sim-429", "rate_limit", 429, True),
        ("anthropic", "sim-529", "overloaded", 529, True),
        ("openai-chat", "sim-529", "overloaded", 503, True),
        ("openai-chat", "sim-500", "server", 500, True),
    ],
)
async def test_http_errors_become_provider_errors(
    fmt: str, model: str, kind: str, status: int, retryable: bool
) -> None:
    rt = await round_trip(endpoint(fmt), weather_request(model))
    error = rt.result.error
    assert error is not None and (error.type, error.status, error.retryable) == (kind, status, retryable)
    assert not rt.result.complete and rt.status == status
    assert rt.wire_events, "the error body is kept for the wire pane"
    if kind == "rate_limit":
        assert error.retry_after is not None and error.retry_after > 0


def socket_endpoint(simulator_url: str, fmt: str, **kwargs: object) -> Endpoint:
    base = f"{simulator_url}/openai/v1" if fmt == "openai-chat" else f"{simulator_url}/anthropic"
    return Endpoint(fmt, base, SECRET, **kwargs)  # type: ignore[arg-type]


# A cut body and a silent server only show over a real socket: in-process transport buffers the whole response.
@pytest.mark.parametrize("fmt", FORMATS)
async def test_cut_stream_keeps_the_partial_call(simulator_url: str, fmt: str) -> None:
    # Paced, so the bytes before the cut arrive in their own reads, as they do from a real provider.
    paced = socket_endpoint(simulator_url, fmt, headers={"x-sim-pace-ms": "5"})
    rt = await round_trip(paced, weather_request("sim-cut"))
    assert not rt.result.complete
    calls = rt.result.message.get("tool_calls") or []
    assert calls and calls[0]["function"]["name"] == "get_weather"
    assert rt.result.error is not None and rt.result.error.type in {"connection", "invalid_response"}


@pytest.mark.parametrize("fmt", FORMATS)
async def test_error_event_inside_a_200_stream(fmt: str) -> None:
    rt = await round_trip(endpoint(fmt), weather_request("sim-error-event"))
    assert rt.status == 200
    assert rt.result.error is not None and not rt.result.complete


@pytest.mark.parametrize("fmt", FORMATS)
async def test_timeout_is_a_readable_error(simulator_url: str, fmt: str) -> None:
    rt = await round_trip(socket_endpoint(simulator_url, fmt, timeout=0.5), weather_request("sim-hang"))
    assert rt.result.error is not None and rt.result.error.type == "timeout"
    assert "0.5 s" in rt.result.error.message


async def test_untranslatable_request_fails_before_sending() -> None:
    bad: ChatRequest = {
        "model": "sim-1",
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
            },
        ],
    }
    rt = await round_trip(endpoint("anthropic"), bad)
    assert rt.wire_request is None and rt.result.error is not None
    assert rt.result.error.type == "invalid_request" and "translate" in rt.result.error.message


async def test_snapshot_marks_a_stopped_run_without_losing_text() -> None:
    run = RoundTripRun(endpoint("openai-chat"), {"model": "sim-1", "messages": [{"role": "user", "content": "hello"}]})
    await run.run()
    text = run.snapshot().result.message["content"]
    stopped = run.snapshot()
    assert text and stopped.result.message["content"] == text


async def test_ambient_account_headers_never_leave(monkeypatch: pytest.MonkeyPatch) -> None:
    # The openai SDK adds these from the server's environment; a user's endpoint must not receive them.
    monkeypatch.setenv("OPENAI_ORG_ID", "org-of-the-deployment")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-of-the-deployment")
    rt = await round_trip(endpoint("openai-chat"), weather_request())
    assert rt.wire_request is not None
    sent = {name.lower() for name in rt.wire_request.headers}
    assert "openai-organization" not in sent and "openai-project" not in sent
    assert "deployment" not in json.dumps(rt.wire_request.to_dict())


@pytest.mark.parametrize("failing", ["request", "event"])
async def test_a_failing_emit_is_not_reported_as_a_provider_error(failing: str) -> None:
    async def emit(update: object) -> None:
        if (failing == "request") == isinstance(update, RequestSent):
            raise RuntimeError("database is locked")

    with pytest.raises(EmitError, match="database is locked"):
        await round_trip(endpoint("openai-chat"), weather_request(), emit)  # type: ignore[arg-type]


@pytest.mark.parametrize("fmt", FORMATS)
async def test_emit_now_gets_every_stream_update_in_the_order_emit_alone_gets_them(fmt: str) -> None:
    alone: list[object] = []

    async def record(update: object) -> None:
        alone.append(update)

    await round_trip(endpoint(fmt), weather_request(), record)  # type: ignore[arg-type]
    awaited: list[object] = []
    called: list[object] = []

    async def wait(update: object) -> None:
        awaited.append(update)

    run = RoundTripRun(endpoint(fmt), weather_request(), wait, emit_now=called.append)  # type: ignore[arg-type]
    await run.run()
    assert [type(u) for u in awaited] == [RequestSent]  # only what may wait is awaited
    assert len(called) > 10 and all(not isinstance(u, RequestSent) for u in called)
    assert [(type(u), getattr(u, "data", None)) for u in called] == [
        (type(u), getattr(u, "data", None)) for u in alone[1:]
    ]
    assert any(isinstance(u, ToolCallDelta) for u in called) and any(isinstance(u, WireEvent) for u in called)


async def test_a_failing_emit_now_is_not_reported_as_a_provider_error() -> None:
    def fail(update: object) -> None:
        if isinstance(update, ToolCallStart):
            raise RuntimeError("database is locked")

    run = RoundTripRun(endpoint("openai-chat"), weather_request(), emit_now=fail)  # type: ignore[arg-type]
    with pytest.raises(EmitError, match="database is locked"):
        await run.run()
