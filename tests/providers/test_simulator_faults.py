"""Faults by model name: each one surfaces as the official SDK's matching exception (or the documented wire quirk)."""

from __future__ import annotations

import json
import time
from typing import Any

import anthropic
import httpx2
import openai
import pytest

from providers.sse import parse
from tests.providers.simulator_fixtures import (
    A_WEATHER,
    ANTHROPIC_BASE,
    ANTHROPIC_HEADERS,
    OPENAI_BASE,
    OPENAI_HEADERS,
    WEATHER,
    anthropic_body,
    anthropic_client,
    chunks,
    mounted,
    openai_body,
    openai_client,
    post_anthropic,
    post_openai,
    sse_events,
    user,
)

STATUS_FAULTS = [
    ("sim-429", openai.RateLimitError, anthropic.RateLimitError, 429, 429),
    ("sim-529", openai.InternalServerError, anthropic.OverloadedError, 503, 529),
    ("sim-500", openai.InternalServerError, anthropic.InternalServerError, 500, 500),
    ("sim-401", openai.AuthenticationError, anthropic.AuthenticationError, 401, 401),
]


async def _openai_call(model: str, *, stream: bool) -> Any:
    client = openai_client()
    result = await client.chat.completions.create(model=model, messages=[user("hi")], tools=[WEATHER], stream=stream)
    return [c async for c in result] if stream else result


async def _anthropic_call(model: str, *, stream: bool) -> Any:
    client = anthropic_client()
    result = await client.messages.create(
        model=model, max_tokens=256, messages=[user("hi")], tools=[A_WEATHER], stream=stream
    )
    return [e async for e in result] if stream else result


@pytest.mark.parametrize(
    ("model", "openai_error", "anthropic_error", "openai_status", "anthropic_status"), STATUS_FAULTS
)
@pytest.mark.parametrize("stream", [False, True])
async def test_http_faults_raise_the_sdk_exception(
    model: str, openai_error: type, anthropic_error: type, openai_status: int, anthropic_status: int, stream: bool
) -> None:
    with pytest.raises(openai_error) as from_openai:
        await _openai_call(model, stream=stream)
    assert from_openai.value.status_code == openai_status
    assert set(from_openai.value.body) == {"message", "type", "param", "code"}  # the SDK unwraps "error"
    with pytest.raises(anthropic_error) as from_anthropic:
        await _anthropic_call(model, stream=stream)
    assert from_anthropic.value.status_code == anthropic_status
    assert from_anthropic.value.body["type"] == "error"


async def test_rate_limits_carry_retry_after() -> None:
    with pytest.raises(openai.RateLimitError) as from_openai:
        await _openai_call("sim-429", stream=False)
    assert from_openai.value.response.headers["retry-after"] == "1"
    assert from_openai.value.code == "rate_limit_exceeded"
    with pytest.raises(anthropic.RateLimitError) as from_anthropic:
        await _anthropic_call("sim-429", stream=False)
    assert from_anthropic.value.response.headers["retry-after"] == "1"
    assert from_anthropic.value.body["error"]["type"] == "rate_limit_error"


async def test_overloaded_bodies() -> None:
    with pytest.raises(anthropic.OverloadedError) as caught:
        await _anthropic_call("sim-529", stream=True)
    assert caught.value.body["error"] == {"type": "overloaded_error", "message": "Overloaded"}


@pytest.mark.parametrize("stream", [False, True])
async def test_a_cut_connection_is_a_connection_error(stream: bool) -> None:
    with pytest.raises(openai.APIConnectionError):
        await _openai_call("sim-cut", stream=stream)
    with pytest.raises(anthropic.APIConnectionError):
        await _anthropic_call("sim-cut", stream=stream)


async def test_a_cut_stream_ends_in_the_middle_of_the_arguments() -> None:
    app = mounted()
    transport = httpx2.ASGITransport(app=app, raise_app_exceptions=False)  # keep the bytes that did arrive
    async with httpx2.AsyncClient(transport=transport) as client:
        cut = await client.post(
            f"{OPENAI_BASE}/chat/completions",
            json=openai_body("weather in Paris", model="sim-cut", tools=[WEATHER], stream=True),
            headers=OPENAI_HEADERS,
        )
        anthropic_cut = await client.post(
            f"{ANTHROPIC_BASE}/v1/messages",
            json=anthropic_body("weather in Paris", model="sim-cut", tools=[A_WEATHER], stream=True),
            headers=ANTHROPIC_HEADERS,
        )
    assert b"[DONE]" not in cut.content and not cut.content.endswith(b"\n\n")
    arguments = "".join(
        p["function"].get("arguments", "") for c in _complete_chunks(cut.content) for p in _call_parts(c)
    )
    assert arguments.startswith('{"city":') and not _parses(arguments)
    assert b"message_stop" not in anthropic_cut.content and b"input_json_delta" in anthropic_cut.content


async def test_an_in_stream_error_surfaces_after_some_content() -> None:
    with pytest.raises(openai.APIError) as from_openai:
        await _openai_call("sim-error-event", stream=True)
    assert from_openai.value.body["code"] == "overloaded"
    with pytest.raises(anthropic.APIStatusError) as from_anthropic:
        await _anthropic_call("sim-error-event", stream=True)
    assert from_anthropic.value.body["error"]["type"] == "overloaded_error"
    raw = await post_anthropic(anthropic_body("hi", model="sim-error-event", stream=True))
    names = [e.event for e in sse_events(raw)]
    assert raw.status_code == 200 and names[0] == "message_start" and names[-1] == "error"


async def test_an_error_event_without_streaming_is_the_overloaded_error() -> None:
    with pytest.raises(openai.InternalServerError):
        await _openai_call("sim-error-event", stream=False)
    with pytest.raises(anthropic.OverloadedError):
        await _anthropic_call("sim-error-event", stream=False)


async def test_bad_json_arguments() -> None:
    whole = await openai_client().chat.completions.create(model="sim-badjson", messages=[user("hi")], tools=[WEATHER])
    assert not _parses(whole.choices[0].message.tool_calls[0].function.arguments)
    raw = await post_anthropic(anthropic_body("hi", model="sim-badjson", tools=[A_WEATHER], stream=True))
    deltas = [json.loads(e.data)["delta"] for e in sse_events(raw) if e.event == "content_block_delta"]
    assert not _parses("".join(d.get("partial_json", "") for d in deltas))


async def test_empty_arguments_are_sent_as_an_empty_string() -> None:
    whole = await post_openai(openai_body("hi", model="sim-empty-args", tools=[WEATHER]))
    assert whole.json()["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] == ""
    streamed = await post_openai(openai_body("hi", model="sim-empty-args", tools=[WEATHER], stream=True))
    parts = [p for c in chunks(streamed) for p in _call_parts(c)]
    assert [p["function"]["arguments"] for p in parts] == [""]
    raw = await post_anthropic(anthropic_body("hi", model="sim-empty-args", tools=[A_WEATHER], stream=True))
    deltas = [json.loads(e.data)["delta"] for e in sse_events(raw) if e.event == "content_block_delta"]
    assert deltas == [{"type": "input_json_delta", "partial_json": ""}]


async def test_slow_first_byte_then_slow_fragments() -> None:
    app = mounted(slow_first_byte_s=0.3, slow_pace_ms=20)
    started = time.monotonic()
    raw = await post_openai(openai_body("weather in Paris", model="sim-slow", tools=[WEATHER], stream=True), app=app)
    elapsed = time.monotonic() - started
    assert elapsed >= 0.3 + 0.02 * (len(chunks(raw)) - 1)
    started = time.monotonic()
    whole = await post_anthropic(anthropic_body("hi", model="sim-slow"), app=app)
    assert whole.status_code == 200 and time.monotonic() - started >= 0.3


def _call_parts(chunk: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for choice in chunk.get("choices") or [] for p in choice["delta"].get("tool_calls") or []]


def _complete_chunks(body: bytes) -> list[dict[str, Any]]:
    """The chunks that arrived whole (the last, cut one is not valid JSON and is left out)."""
    out = []
    for event in parse([body]):
        if _parses(event.data):
            out.append(json.loads(event.data))
    return out


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
