"""providers.client with format ``openai-responses``: the official openai SDK's ``responses`` resource does the HTTP
against the simulator, the raw bytes are kept for the wire pane, and errors map through the codec's decode_error."""

from __future__ import annotations

import copy
import json

import httpx2
import pytest

from providers.client import Endpoint, RequestSent, RoundTrip, WireEvent, round_trip
from providers.client.models import list_models
from providers.errors import ProviderError
from providers.events import ToolCallDelta, ToolCallStart
from providers.simulator.app import create_server_app
from providers.types import ChatRequest, Message, ToolSpec

BASE_URL = "http://sim/sim/openai/v1"
FORMAT = "openai-responses"
WEATHER: ToolSpec = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
ASK = "weather in Paris and Tokyo"


def endpoint(**kwargs: object) -> Endpoint:
    transport = httpx2.ASGITransport(app=create_server_app())
    return Endpoint(FORMAT, BASE_URL, "sk-test-key", transport=transport, **kwargs)  # type: ignore[arg-type]


def socket_endpoint(simulator_url: str, **kwargs: object) -> Endpoint:
    return Endpoint(FORMAT, f"{simulator_url}/openai/v1", "sk-test-key", **kwargs)  # type: ignore[arg-type]


def request(text: str = ASK, *, model: str = "sim-1", stream: bool = True, reasoning: bool = False) -> ChatRequest:
    body: ChatRequest = {
        "model": model,
        "stream": stream,
        "max_tokens": 512,
        "messages": [{"role": "user", "content": text}],
        "tools": [WEATHER],
    }
    if reasoning:
        body["reasoning"] = {"enabled": True}
    return body


def tool_results(previous: ChatRequest, answer: Message, content: str) -> ChatRequest:
    """The next request of a tool loop: the answer and one result per call appended."""
    results: list[Message] = [
        {"role": "tool", "tool_call_id": call["id"], "content": content} for call in answer.get("tool_calls") or []
    ]
    return {**previous, "messages": [*previous["messages"], answer, *results]}


def wire_body(rt: RoundTrip) -> dict[str, object]:
    assert rt.wire_request is not None and isinstance(rt.wire_request.body, dict)
    return rt.wire_request.body


async def test_a_streamed_round_trip_posts_to_responses_and_records_the_bytes() -> None:
    updates: list[object] = []

    async def emit(update: object) -> None:
        updates.append(update)

    rt = await round_trip(endpoint(), request(), emit)  # type: ignore[arg-type]
    assert rt.wire_request is not None and rt.wire_request.url == f"{BASE_URL}/responses"
    assert rt.wire_request.headers["authorization"] != "Bearer sk-test-key", "the key is redacted"
    body = wire_body(rt)
    assert body["input"] == [{"role": "user", "content": ASK}] and body["stream"] is True
    assert body["tools"] == [{**WEATHER["function"], "type": "function", "strict": False}]
    assert rt.status == 200 and rt.result.complete and rt.result.finish_reason == "tool_calls"
    calls = rt.result.message["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [{"city": "Paris"}, {"city": "Tokyo"}]
    assert all(c["provider_data"]["fields"]["id"].startswith("fc_") for c in calls), "the item id is kept"
    names = [event.event for event in rt.wire_events]
    assert names[0] == "response.created" and names[-1] == "response.completed"
    assert names.count("response.function_call_arguments.delta") >= 4
    assert isinstance(updates[0], RequestSent) and sum(isinstance(u, ToolCallStart) for u in updates) == 2
    assert len([u for u in updates if isinstance(u, ToolCallDelta)]) >= 4
    assert len([u for u in updates if isinstance(u, WireEvent)]) == len(rt.wire_events)


async def test_a_whole_response_gives_the_same_message() -> None:
    seeded = {"x-sim-seed": "7"}  # the same ids for both, though the bodies differ in "stream"
    streamed = await round_trip(endpoint(headers=seeded), request())
    whole = await round_trip(endpoint(headers=seeded), request(stream=False))
    assert whole.result.complete and whole.result.finish_reason == "tool_calls"
    assert [event.event for event in whole.wire_events] == [None] and json.loads(whole.wire_events[0].data)["output"]
    assert whole.result.message == streamed.result.message


async def test_the_tool_loop_carries_the_encrypted_reasoning_back() -> None:
    first_request = request(reasoning=True)
    first = await round_trip(endpoint(), first_request)
    body = wire_body(first)
    assert body["store"] is False and body["include"] == ["reasoning.encrypted_content"]
    [block] = first.result.message["provider_data"]["blocks"]
    assert block["type"] == "reasoning" and block["encrypted_content"].startswith("gAAAAA")
    assert first.result.message["provider_data"]["reasoning"] == block["summary"][0]["text"]
    second_request = tool_results(first_request, first.result.message, "Mild, 21 C")
    second = await round_trip(endpoint(), second_request)
    assert second.status == 200 and second.result.complete and second.result.finish_reason == "stop"
    assert "Mild, 21 C" in second.result.message["content"]
    sent = wire_body(second)["input"]
    assert isinstance(sent, list) and [item.get("type") for item in sent] == [
        None,
        "reasoning",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
    ]
    assert sent[1] == block, "the reasoning item goes back byte for byte, before its calls"


async def test_a_tampered_reasoning_item_is_the_servers_400() -> None:
    first_request = request(reasoning=True)
    first = await round_trip(endpoint(), first_request)
    answer = copy.deepcopy(first.result.message)
    token = answer["provider_data"]["blocks"][0]["encrypted_content"]
    answer["provider_data"]["blocks"][0]["encrypted_content"] = token[:10] + token[11:]
    rt = await round_trip(endpoint(), tool_results(first_request, answer, "Sun"))
    error = rt.result.error
    assert error is not None and (error.type, error.status, error.retryable) == ("invalid_request", 400, False)
    assert error.message.endswith("could not be verified.") and rt.wire_events, "the error body is kept"


async def test_a_strict_tool_with_an_optional_property_is_refused() -> None:
    strict: ToolSpec = {"type": "function", "function": {**WEATHER["function"], "strict": True}}
    rt = await round_trip(endpoint(), {**request(), "tools": [strict]})
    error = rt.result.error
    assert error is not None and error.type == "invalid_request" and error.status == 400
    assert error.message.startswith("Invalid schema for function 'get_weather'")
    assert json.loads(rt.wire_events[0].data)["error"]["code"] == "invalid_function_parameters"


@pytest.mark.parametrize(
    ("model", "kind", "status", "retryable"),
    [
        ("sim-429", "rate_limit", 429, True),
        ("sim-401", "authentication", 401, False),
        ("sim-529", "overloaded", 503, True),
        ("sim-500", "server", 500, True),
    ],
)
async def test_http_faults_become_provider_errors(model: str, kind: str, status: int, retryable: bool) -> None:
    rt = await round_trip(endpoint(), request(model=model))
    error = rt.result.error
    assert isinstance(error, ProviderError) and (error.type, error.status, error.retryable) == (kind, status, retryable)
    assert not rt.result.complete and rt.status == status and rt.wire_events
    if kind == "rate_limit":
        assert error.retry_after == 1


async def test_an_error_event_in_a_200_stream_is_the_first_specific_error() -> None:
    rt = await round_trip(endpoint(), request("Hello there", model="sim-error-event"))
    assert rt.status == 200 and not rt.result.complete
    assert rt.result.error is not None and rt.result.error.type == "overloaded"
    assert [event.event for event in rt.wire_events][-2:] == ["error", "response.failed"]
    assert rt.result.message["content"], "the text that arrived before the failure is kept"


# A cut only shows over a real socket: in-process transport buffers the whole response.
async def test_a_cut_stream_keeps_the_partial_call(simulator_url: str) -> None:
    paced = socket_endpoint(simulator_url, headers={"x-sim-pace-ms": "5"})
    rt = await round_trip(paced, request("weather in Paris", model="sim-cut"))
    assert not rt.result.complete
    [call] = rt.result.message["tool_calls"]
    assert call["function"]["name"] == "get_weather" and call["function"]["arguments"].startswith('{"city')
    assert rt.result.error is not None and rt.result.error.type == "connection"
    assert "response.completed" not in [event.event for event in rt.wire_events]


async def test_models_are_listed_through_the_sdk() -> None:
    names = await list_models(endpoint())
    assert names[0] == "sim-1" and {"sim-429", "sim-cut", "sim-error-event"} <= set(names)


async def test_models_over_a_socket(simulator_url: str) -> None:
    assert "sim-1" in await list_models(socket_endpoint(simulator_url))
