"""providers.client with format ``gemini``: the codec's body posted with plain httpx2 on the shared HTTP client
(``gemini_http``) against the simulator, the raw SSE bytes kept for the wire pane, the key only in its redacted
header, and errors mapped through the codec's decode_error."""

from __future__ import annotations

import copy
import json

import httpx2
import pytest

from providers.client import Endpoint, RequestSent, RoundTrip, WireEvent, round_trip
from providers.client.addresses import AddressPolicy
from providers.client.gemini_http import generate_url, models_url
from providers.client.models import list_models
from providers.client.sdk import CONNECTION_FAILED
from providers.errors import ProviderError
from providers.events import TextDelta, ToolCallStart
from providers.simulator.app import create_server_app
from providers.types import ChatRequest, Message, ToolSpec
from tests.helpers import free_port

BASE_URL = "http://sim/sim/gemini"
FORMAT = "gemini"
KEY = "AIzaSy-test-key-0123456789abcdef"
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
    return Endpoint(FORMAT, BASE_URL, KEY, transport=transport, **kwargs)  # type: ignore[arg-type]


def socket_endpoint(simulator_url: str, **kwargs: object) -> Endpoint:
    return Endpoint(FORMAT, f"{simulator_url}/gemini", KEY, **kwargs)  # type: ignore[arg-type]


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


def assert_key_never_recorded(rt: RoundTrip) -> None:
    assert rt.wire_request is not None
    recorded = json.dumps(rt.wire_request.to_dict()) + json.dumps(rt.to_dict()["wire_events"])
    assert KEY not in recorded and rt.wire_request.headers["x-goog-api-key"] == "[redacted]"
    assert "key=" not in rt.wire_request.url, "the key travels in its header, never in the URL"


async def test_streamed_text_posts_to_stream_generate_content_and_records_the_bytes() -> None:
    updates: list[object] = []

    async def emit(update: object) -> None:
        updates.append(update)

    rt = await round_trip(endpoint(), request("/text Hello from Gemini, streamed in pieces."), emit)  # type: ignore[arg-type]
    assert rt.wire_request is not None
    assert rt.wire_request.url == f"{BASE_URL}/v1beta/models/sim-1:streamGenerateContent?alt=sse"
    assert "model" not in wire_body(rt) and "stream" not in wire_body(rt), "the URL says both"
    assert wire_body(rt)["contents"] == [
        {"role": "user", "parts": [{"text": "/text Hello from Gemini, streamed in pieces."}]}
    ]
    assert rt.status == 200 and rt.result.complete and rt.result.finish_reason == "stop"
    assert rt.result.message["content"] == "Hello from Gemini, streamed in pieces."
    assert len(rt.wire_events) > 3 and all(event.event is None for event in rt.wire_events)
    assert json.loads(rt.wire_events[-1].data)["candidates"][0]["finishReason"] == "STOP"
    assert isinstance(updates[0], RequestSent) and len([u for u in updates if isinstance(u, TextDelta)]) > 3
    assert len([u for u in updates if isinstance(u, WireEvent)]) == len(rt.wire_events)
    assert_key_never_recorded(rt)


async def test_streamed_parallel_calls_arrive_whole_and_the_first_keeps_its_signature() -> None:
    updates: list[object] = []

    async def emit(update: object) -> None:
        updates.append(update)

    rt = await round_trip(endpoint(), request(), emit)  # type: ignore[arg-type]
    assert rt.result.complete and rt.result.finish_reason == "tool_calls" and rt.result.raw_finish_reason == "STOP"
    first, second = rt.result.message["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in (first, second)] == [{"city": "Paris"}, {"city": "Tokyo"}]
    assert first["id"] == first["provider_data"]["fields"]["functionCall"]["id"], "Gemini 3's id is the call's id"
    assert (
        first["provider_data"]["fields"]["thoughtSignature"]
        and "thoughtSignature" not in second["provider_data"]["fields"]
    )
    assert [u.name for u in updates if isinstance(u, ToolCallStart)] == ["get_weather", "get_weather"]
    assert_key_never_recorded(rt)


async def test_a_whole_response_gives_the_same_message() -> None:
    streamed = await round_trip(endpoint(), request(reasoning=True))
    whole = await round_trip(endpoint(), request(stream=False, reasoning=True))
    assert whole.wire_request is not None and whole.wire_request.url.endswith("/models/sim-1:generateContent")
    assert [event.event for event in whole.wire_events] == [None] and json.loads(whole.wire_events[0].data)[
        "candidates"
    ]
    assert whole.result.complete and whole.result.message == streamed.result.message


async def test_the_second_turn_sends_the_responses_and_the_signature_back() -> None:
    first_request = request(reasoning=True)
    first = await round_trip(endpoint(), first_request)
    assert first.result.message["provider_data"]["reasoning"], "the thoughts are shown"
    second = await round_trip(endpoint(), tool_results(first_request, first.result.message, "Mild, 21 C"))
    assert second.status == 200 and second.result.complete and second.result.finish_reason == "stop"
    assert "Mild, 21 C" in second.result.message["content"]
    contents = wire_body(second)["contents"]
    assert isinstance(contents, list) and [c["role"] for c in contents] == ["user", "model", "user"]
    thought, signed, other = contents[1]["parts"]
    assert thought["thought"] is True and "thoughtSignature" not in other
    assert (
        signed["thoughtSignature"]
        == first.result.message["tool_calls"][0]["provider_data"]["fields"]["thoughtSignature"]
    )
    responses = [part["functionResponse"] for part in contents[2]["parts"]]
    ids = [call["id"] for call in first.result.message["tool_calls"]]
    assert [(r["name"], r["id"], r["response"]) for r in responses] == [
        ("get_weather", ids[0], {"result": "Mild, 21 C"}),
        ("get_weather", ids[1], {"result": "Mild, 21 C"}),
    ]


async def test_a_dropped_signature_is_the_servers_400() -> None:
    first_request = request()
    first = await round_trip(endpoint(), first_request)
    answer = copy.deepcopy(first.result.message)
    del answer["tool_calls"][0]["provider_data"]["fields"]["thoughtSignature"]
    rt = await round_trip(endpoint(), tool_results(first_request, answer, "Sun"))
    error = rt.result.error
    assert error is not None and (error.type, error.status, error.retryable) == ("invalid_request", 400, False)
    assert error.message.startswith("Function call is missing a thought_signature in functionCall parts.")
    assert rt.wire_events and json.loads(rt.wire_events[0].data)["error"]["status"] == "INVALID_ARGUMENT"
    assert any("thoughtSignature" in note for note in rt.notes), "the codec said what would happen"


@pytest.mark.parametrize(
    ("model", "kind", "status", "retryable"),
    [
        ("sim-429", "rate_limit", 429, True),
        ("sim-401", "authentication", 400, False),  # Google answers a bad key with a 400 API_KEY_INVALID
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
        assert error.retry_after == 1, "read from the RetryInfo detail"


async def test_an_error_chunk_in_a_200_stream_keeps_what_came_before() -> None:
    rt = await round_trip(endpoint(), request("Hello there, how are you today?", model="sim-error-event"))
    assert rt.status == 200 and not rt.result.complete
    assert rt.result.error is not None and rt.result.error.type == "overloaded"
    assert rt.result.message["content"], "the text that arrived before the failure is kept"
    assert json.loads(rt.wire_events[-1].data)["error"]["status"] == "UNAVAILABLE"


async def test_a_malformed_call_is_an_error_finish_without_calls() -> None:
    rt = await round_trip(endpoint(), request("weather in Paris", model="sim-badjson"))
    assert rt.result.complete and rt.result.error is None
    assert (rt.result.finish_reason, rt.result.raw_finish_reason) == ("error", "MALFORMED_FUNCTION_CALL")
    assert "tool_calls" not in rt.result.message


async def test_a_call_without_args_reads_as_empty_arguments() -> None:
    rt = await round_trip(endpoint(), request("weather in Paris", model="sim-empty-args"))
    [call] = rt.result.message["tool_calls"]
    assert call["function"]["arguments"] == "{}"


async def test_a_request_without_a_model_is_refused_before_sending() -> None:
    no_model: ChatRequest = {"messages": [{"role": "user", "content": "hi"}], "stream": True}
    rt = await round_trip(endpoint(), no_model)
    assert rt.wire_request is None and rt.result.error is not None and rt.result.error.type == "invalid_request"
    assert "names the model in the URL" in rt.result.error.message


async def test_a_closed_port_is_the_one_connection_wording() -> None:
    closed = Endpoint(FORMAT, f"http://127.0.0.1:{free_port()}", KEY, timeout=5)
    rt = await round_trip(closed, request())
    assert rt.result.error is not None and rt.result.error.type == "connection"
    assert rt.result.error.message == CONNECTION_FAILED
    with pytest.raises(ProviderError) as caught:
        await list_models(closed)
    assert caught.value.message == CONNECTION_FAILED


async def test_a_refused_address_is_refused_as_for_the_sdks() -> None:
    metadata = Endpoint(FORMAT, "http://169.254.169.254", KEY, timeout=5, address_policy=AddressPolicy())
    rt = await round_trip(metadata, request())
    assert rt.result.error is not None and rt.result.error.type == "refused"
    assert "169.254.169.254" in rt.result.error.message and rt.wire_request is not None


# A cut only shows over a real socket: in-process transport buffers the whole response.
async def test_a_cut_stream_is_incomplete(simulator_url: str) -> None:
    paced = socket_endpoint(simulator_url, headers={"x-sim-pace-ms": "5"})
    rt = await round_trip(paced, request("Checking the weather in Paris for you", model="sim-cut"))
    assert not rt.result.complete and rt.result.error is not None and rt.result.error.type == "connection"
    assert "tool_calls" not in rt.result.message, "a Gemini call comes whole or not at all"


async def test_a_silent_server_is_a_timeout(simulator_url: str) -> None:
    rt = await round_trip(socket_endpoint(simulator_url, timeout=1.0), request(model="sim-hang"))
    assert rt.result.error is not None and rt.result.error.type == "timeout" and rt.result.error.retryable
    assert rt.result.error.message == "No answer within 1 s."


async def test_models_are_listed_without_their_prefix() -> None:
    names = await list_models(endpoint())
    assert names[0] == "sim-1" and {"sim-429", "sim-cut", "sim-error-event"} <= set(names)


async def test_models_over_a_socket(simulator_url: str) -> None:
    assert "sim-1" in await list_models(socket_endpoint(simulator_url))


async def test_listing_pages_and_skips_models_that_cannot_generate() -> None:
    pages = {
        None: {
            "models": [
                {"name": "models/gemini-2.5-flash", "supportedGenerationMethods": ["generateContent"]},
                {"name": "models/text-embedding-004", "supportedGenerationMethods": ["embedContent"]},
            ],
            "nextPageToken": "p2",
        },
        "p2": {"models": [{"name": "models/gemini-2.5-pro"}]},
    }
    seen: list[httpx2.Request] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, json=pages[request.url.params.get("pageToken")])

    listing = Endpoint(FORMAT, "https://generativelanguage.googleapis.com", KEY, transport=httpx2.MockTransport(answer))
    assert await list_models(listing) == ["gemini-2.5-flash", "gemini-2.5-pro"]
    assert [str(r.url.copy_with(query=None)) for r in seen] == [models_url(listing.base_url)] * 2
    assert all(r.headers["x-goog-api-key"] == KEY and "key" not in r.url.params for r in seen)


@pytest.mark.parametrize(
    ("base", "model", "stream", "url"),
    [
        (
            "https://generativelanguage.googleapis.com",
            "gemini-2.5-flash",
            True,
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
        ),
        (
            "https://generativelanguage.googleapis.com/v1beta/",
            "models/gemini-2.5-pro",
            False,
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent",
        ),
        ("http://gw/google/v1", "tunedModels/mine", False, "http://gw/google/v1/tunedModels/mine:generateContent"),
        ("http://gw", "../../admin", False, "http://gw/v1beta/models/..%2F..%2Fadmin:generateContent"),
    ],
)
def test_the_model_goes_in_the_url(base: str, model: str, stream: bool, url: str) -> None:
    assert generate_url(base, model, stream=stream) == url
