"""The official openai SDK reads what encode_stream / encode_response write for the Responses API, served
in-process over ASGI; what the SDK sends imports and encodes back unchanged."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest

from providers import openai_responses
from providers.errors import ProviderError
from providers.sse import SSEParser
from providers.streaming import MessageAccumulator, StreamResult

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

FIXTURES = Path(__file__).parent / "fixtures" / "openai_responses"
TOOLS: list[Any] = [
    {"type": "function", "name": name, "parameters": {"type": "object", "properties": {}}, "strict": False}
    for name in ("get_weather", "list_doors")
]
ASK = "What is the weather in Zürich, and which doors are there?"


def _result() -> StreamResult:
    """A decoded gpt-5 turn: a reasoning item, text, a call; plus a call made without ids (ours to invent)."""
    parser, decoder = SSEParser(), openai_responses.new_stream_decoder()
    acc = MessageAccumulator(format="openai-responses")
    for event in [*parser.feed((FIXTURES / "stream_reasoning_text_call.sse").read_bytes()), *parser.close()]:
        acc.extend(decoder.feed(event))
    result = acc.result()
    bare = {"id": "call_noArg", "type": "function", "function": {"name": "list_doors", "arguments": "{}"}}
    result.message["tool_calls"].append(bare)  # type: ignore[arg-type]
    return result


class WireServer:
    """A one-route ASGI app answering every POST with fixed bytes, keeping the request bodies it got."""

    def __init__(self, body: bytes, content_type: str, status: int = 200) -> None:
        self.body, self.content_type, self.status = body, content_type, status
        self.requests: list[dict[str, Any]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http" and scope["path"] == "/v1/responses"
        self.requests.append(json.loads(await _read_body(receive)))
        headers = [(b"content-type", self.content_type.encode())]
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": self.body})


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


def _client(server: WireServer) -> openai.AsyncOpenAI:
    http_client = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=server))
    return openai.AsyncOpenAI(base_url="http://simulator.test/v1", api_key="x", max_retries=0, http_client=http_client)


def _streamed(result: StreamResult, fragment_size: int = 4) -> WireServer:
    events = openai_responses.encode_stream(result, model="gpt-5", response_id="resp_sdk", fragment_size=fragment_size)
    return WireServer(b"".join(event.encode() for event in events), "text/event-stream")


def _check_output(response: Any) -> None:
    assert response.id == "resp_sdk" and response.status == "completed"
    reasoning, message, weather, doors = response.output
    assert reasoning.type == "reasoning" and reasoning.encrypted_content == "gAAAAABfinal-encrypted-reasoning=="
    assert [part.text for part in reasoning.summary] == [
        "**Checking the weather**\n\nThe user wants Paris.",
        "Call the tool.",
    ]
    assert message.type == "message" and response.output_text == "Let me check the weather in Zürich."
    assert (weather.id, weather.call_id, weather.name, weather.arguments) == (
        "fc_07e3",
        "call_Wx9",
        "get_weather",
        '{"city":"Zürich"}',
    )
    assert (doors.call_id, doors.name, doors.arguments) == ("call_noArg", "list_doors", "{}")
    assert doors.id.startswith("fc_")
    assert response.usage.input_tokens == 320 and response.usage.output_tokens_details.reasoning_tokens == 128


async def test_create_stream_true_yields_the_encoded_events() -> None:
    client = _client(_streamed(_result(), fragment_size=1))
    stream = await client.responses.create(model="gpt-5", input=ASK, tools=TOOLS, stream=True)
    events = [event async for event in stream]
    types = [event.type for event in events]
    assert types[:2] == ["response.created", "response.in_progress"] and types[-1] == "response.completed"
    assert [event.sequence_number for event in events] == list(range(len(events)))
    text = "".join(event.delta for event in events if event.type == "response.output_text.delta")
    assert text == "Let me check the weather in Zürich."
    arguments: dict[str, str] = {}
    for event in events:
        if event.type == "response.function_call_arguments.delta":
            arguments[event.item_id] = arguments.get(event.item_id, "") + event.delta
    assert arguments["fc_07e3"] == '{"city":"Zürich"}'
    _check_output(events[-1].response)


async def test_the_stream_helper_assembles_the_final_response() -> None:
    client = _client(_streamed(_result()))
    async with client.responses.stream(model="gpt-5", input=ASK, tools=TOOLS) as stream:
        final = await stream.get_final_response()
    _check_output(final)


async def test_create_reads_a_whole_response() -> None:
    body = openai_responses.encode_response(_result(), model="gpt-5", response_id="resp_sdk")
    client = _client(WireServer(json.dumps(body).encode(), "application/json"))
    response = await client.responses.create(model="gpt-5", input=ASK, tools=TOOLS)
    _check_output(response)


async def test_a_mid_stream_error_reaches_the_sdk_as_error_then_failed() -> None:
    result = _result()
    result.error, result.complete = ProviderError("server", "Upstream failed.", retryable=True), False
    client = _client(_streamed(result))
    stream = await client.responses.create(model="gpt-5", input=ASK, stream=True)
    events = [event async for event in stream]
    assert [event.type for event in events[-2:]] == ["error", "response.failed"]
    assert (events[-2].code, events[-2].message) == ("server_error", "Upstream failed.")
    assert events[-1].response.error.code == "server_error"


async def test_an_encoded_error_body_decodes_back_through_the_sdk() -> None:
    body = json.dumps(openai_responses.encode_error(ProviderError("rate_limit", "Rate limit reached"))).encode()
    client = _client(WireServer(body, "application/json", status=429))
    with pytest.raises(openai.RateLimitError) as raised:
        await client.responses.create(model="gpt-5", input=ASK)
    response = raised.value.response
    error = openai_responses.decode_error(response.status_code, response.content, dict(response.headers))
    assert (error.type, error.status, error.retryable, error.message) == ("rate_limit", 429, True, "Rate limit reached")


async def test_what_the_sdk_sends_imports_and_encodes_back() -> None:
    server = _streamed(_result())
    client = _client(server)
    output: list[Any] = json.loads((FIXTURES / "response_reasoning_tools.json").read_text())["output"]
    history: list[Any] = [
        {"role": "user", "content": [{"type": "input_text", "text": ASK}]},
        *output,
        {"type": "function_call_output", "call_id": "call_Yz0", "output": "front, back"},
        {"type": "function_call_output", "call_id": "call_Wx9", "output": "18C"},
    ]
    stream = await client.responses.create(
        model="gpt-5",
        instructions="Be brief.",
        input=history,
        tools=TOOLS,
        tool_choice={"type": "function", "name": "get_weather"},
        parallel_tool_calls=False,
        reasoning={"effort": "high", "summary": "auto"},
        store=False,
        include=["reasoning.encrypted_content"],
        max_output_tokens=2000,
        stream=True,
    )
    assert len([event async for event in stream]) > 1
    sent = server.requests[0]
    imported = openai_responses.import_request(sent)
    assert imported.value["messages"][0] == {"role": "system", "content": "Be brief."}
    assert imported.value["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert openai_responses.encode_request(imported.value).value == sent
