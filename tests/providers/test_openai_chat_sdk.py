"""The official openai SDK reads what encode_stream / encode_response write, served in-process over ASGI."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import openai

from providers import openai_chat
from providers.streaming import StreamResult
from providers.types import Message

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

MESSAGE: Message = {
    "role": "assistant",
    "content": "Checking both.",
    "tool_calls": [
        {"id": "call_ehIW", "type": "function", "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}},
        {"id": "call_fBSg", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Zürich"}'}},
        {"id": "call_noArg", "type": "function", "function": {"name": "llm_version", "arguments": "{}"}},
    ],
}
RESULT = StreamResult(MESSAGE, "tool_calls", None, {"prompt_tokens": 106, "completion_tokens": 50}, None, True)
TOOLS: list[Any] = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {}}}}
    for name in ("add", "get_weather", "llm_version")
]
ASK: list[Any] = [{"role": "user", "content": "add 2 and 3, and the weather in Zürich"}]


class WireServer:
    """A one-route ASGI app answering every POST with fixed bytes, keeping the request bodies it got."""

    def __init__(self, body: bytes, content_type: str) -> None:
        self.body = body
        self.content_type = content_type
        self.requests: list[dict[str, Any]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http" and scope["path"] == "/v1/chat/completions"
        self.requests.append(json.loads(await read_body(receive)))
        headers = [(b"content-type", self.content_type.encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": self.body})


async def read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


def client_for(server: WireServer) -> openai.AsyncOpenAI:
    http_client = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=server))
    return openai.AsyncOpenAI(base_url="http://simulator.test/v1", api_key="x", http_client=http_client)


def streamed(fragment_size: int = 4) -> WireServer:
    events = openai_chat.encode_stream(RESULT, model="gpt-4o", response_id="chatcmpl-sdk", fragment_size=fragment_size)
    return WireServer(b"".join(event.encode() for event in events), "text/event-stream")


def expected_calls() -> list[tuple[str, str, str]]:
    return [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in MESSAGE["tool_calls"]]


async def test_sdk_stream_helper_assembles_the_same_calls() -> None:
    server = streamed()
    client = client_for(server)
    async with client.chat.completions.stream(model="gpt-4o", messages=ASK, tools=TOOLS) as stream:
        completion = await stream.get_final_completion()
    choice = completion.choices[0]
    calls = [(c.id, c.function.name, c.function.arguments) for c in choice.message.tool_calls or []]
    assert calls == expected_calls()
    assert (choice.message.content, choice.finish_reason) == ("Checking both.", "tool_calls")
    assert completion.usage is not None and completion.usage.total_tokens == 156
    assert completion.id == "chatcmpl-sdk"


async def test_sdk_raw_stream_chunks_rebuild_the_same_calls() -> None:
    client = client_for(streamed(fragment_size=1))
    stream = await client.chat.completions.create(model="gpt-4o", messages=ASK, tools=TOOLS, stream=True)
    calls: dict[int, list[str]] = {}
    finish: list[str | None] = []
    async for chunk in stream:
        assert chunk.object == "chat.completion.chunk"
        for choice in chunk.choices:
            finish.append(choice.finish_reason)
            for delta in choice.delta.tool_calls or []:
                slot = calls.setdefault(delta.index, ["", "", ""])
                slot[0] = slot[0] or delta.id or ""
                if delta.function is not None:  # names are concatenated too: a repeated name would show
                    slot[1] += delta.function.name or ""
                    slot[2] += delta.function.arguments or ""
    assert [tuple(calls[index]) for index in sorted(calls)] == expected_calls()
    assert [reason for reason in finish if reason] == ["tool_calls"]


async def test_sdk_reads_a_whole_response() -> None:
    body = openai_chat.encode_response(RESULT, model="gpt-4o", response_id="chatcmpl-whole")
    client = client_for(WireServer(json.dumps(body).encode(), "application/json"))
    completion = await client.chat.completions.create(model="gpt-4o", messages=ASK, tools=TOOLS)
    message = completion.choices[0].message
    assert [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []] == expected_calls()
    assert (message.content, message.refusal) == ("Checking both.", None)


async def test_what_the_sdk_sends_imports_and_encodes_back() -> None:
    server = streamed()
    client = client_for(server)
    history = [
        *ASK,
        {"role": "assistant", "content": None, "tool_calls": [dict(call) for call in MESSAGE["tool_calls"]]},
        {"role": "tool", "tool_call_id": "call_ehIW", "content": "5"},
        {"role": "tool", "tool_call_id": "call_fBSg", "content": "18C"},
        {"role": "tool", "tool_call_id": "call_noArg", "content": "1.0"},
    ]
    stream = await client.chat.completions.create(model="gpt-4o", messages=history, tools=TOOLS, stream=True)
    assert len([chunk async for chunk in stream]) > 1
    sent = server.requests[0]
    imported = openai_chat.import_request(sent)
    assert imported.notes == []
    # The SDK asks for no usage; we always do when streaming.
    assert openai_chat.encode_request(imported.value).value == {**sent, "stream_options": {"include_usage": True}}
