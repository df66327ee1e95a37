"""The official ``anthropic`` SDK reads what encode_stream / encode_response produce, served in-process over ASGI."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anthropic
import httpx2
import pytest

from providers.anthropic import decode_error, encode_error, encode_response, encode_stream
from providers.errors import ProviderError
from providers.streaming import StreamResult

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
QUESTION: Any = [{"role": "user", "content": "Weather in Paris?"}]


def _result() -> StreamResult:
    message: Any = {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [
            {"id": "toolu_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}},
            {"id": "toolu_2", "type": "function", "function": {"name": "list_doors", "arguments": "{}"}},
        ],
        "provider_data": {
            "format": "anthropic",
            "blocks": [
                {"type": "thinking", "thinking": "Call the weather tool.", "signature": "EtYDsig=="},
                {"type": "redacted_thinking", "data": "EqkEdata"},
            ],
            "reasoning": "Call the weather tool.",
        },
    }
    usage: Any = {"prompt_tokens": 40, "completion_tokens": 20, "total_tokens": 60, "cached_tokens": 10}
    return StreamResult(message, "tool_calls", "tool_use", usage, None, True)


def _app(
    chunks: list[bytes], content_type: str, status: int = 200
) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http" and scope["path"] == "/v1/messages"
        more = True
        while more:
            more = (await receive()).get("more_body", False)
        await send(
            {"type": "http.response.start", "status": status, "headers": [(b"content-type", content_type.encode())]}
        )
        for chunk in chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    return app


def _client(app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> anthropic.AsyncAnthropic:
    transport = httpx2.ASGITransport(app=app)
    return anthropic.AsyncAnthropic(
        api_key="x", base_url="http://simulator", max_retries=0, http_client=httpx2.AsyncClient(transport=transport)
    )


def _stream_app(result: StreamResult) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    events = encode_stream(result, model="claude-sim", response_id="msg_sim", fragment_size=4)
    return _app([event.encode() for event in events], "text/event-stream")


async def _event_types(stream: Any) -> list[str]:
    return [event.type async for event in stream]


def _check_final(message: Any) -> None:
    assert [block.type for block in message.content] == [
        "thinking",
        "redacted_thinking",
        "text",
        "tool_use",
        "tool_use",
    ]
    thinking, redacted, text, weather, doors = message.content
    assert (thinking.thinking, thinking.signature) == ("Call the weather tool.", "EtYDsig==")
    assert redacted.data == "EqkEdata"
    assert text.text == "Let me check."
    assert (weather.id, weather.name, weather.input) == ("toolu_1", "get_weather", {"city": "Paris"})
    assert (doors.id, doors.input) == ("toolu_2", {})
    assert message.stop_reason == "tool_use"
    assert (message.usage.input_tokens, message.usage.cache_read_input_tokens, message.usage.output_tokens) == (
        30,
        10,
        20,
    )


async def test_messages_stream_reads_the_encoded_stream() -> None:
    async with _client(_stream_app(_result())) as client:
        async with client.messages.stream(model="claude-sim", max_tokens=100, messages=QUESTION) as stream:
            final = await stream.get_final_message()
    assert final.id == "msg_sim"
    _check_final(final)


async def test_create_stream_true_reads_the_encoded_stream() -> None:
    async with _client(_stream_app(_result())) as client:
        stream = await client.messages.create(model="claude-sim", max_tokens=100, messages=QUESTION, stream=True)
        types = await _event_types(stream)
    assert types[0] == "message_start" and types[-2:] == ["message_delta", "message_stop"]
    assert types.count("content_block_start") == types.count("content_block_stop") == 5


async def test_create_reads_the_encoded_response() -> None:
    body = json.dumps(encode_response(_result(), model="claude-sim", response_id="msg_sim")).encode()
    async with _client(_app([body], "application/json")) as client:
        message = await client.messages.create(model="claude-sim", max_tokens=100, messages=QUESTION)
    assert message.id == "msg_sim" and message.type == "message"
    _check_final(message)


async def test_a_mid_stream_error_reaches_the_sdk() -> None:
    result = _result()
    result.error, result.complete = ProviderError("overloaded", "Overloaded", retryable=True), False
    async with _client(_stream_app(result)) as client:
        stream = await client.messages.create(model="claude-sim", max_tokens=100, messages=QUESTION, stream=True)
        with pytest.raises(anthropic.APIStatusError, match="overloaded_error"):
            await _event_types(stream)


async def test_an_encoded_error_body_decodes_back_through_the_sdk() -> None:
    body = json.dumps(encode_error(ProviderError("overloaded", "Overloaded"))).encode()
    async with _client(_app([body], "application/json", status=529)) as client:
        with pytest.raises(anthropic.APIStatusError) as raised:
            await client.messages.create(model="claude-sim", max_tokens=100, messages=QUESTION)
    response = raised.value.response
    error = decode_error(response.status_code, response.content, dict(response.headers))
    assert (error.type, error.status, error.retryable, error.message) == ("overloaded", 529, True, "Overloaded")
