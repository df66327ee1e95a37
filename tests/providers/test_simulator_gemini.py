"""The simulated Gemini API (``POST /gemini/v1beta/models/{model}:generateContent`` and
``:streamGenerateContent?alt=sse``), driven by raw requests: the exact chunks, the thought signatures a second turn
must send back, and the faults in Google's error bodies (what it refuses: test_simulator_strict_gemini)."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx2
import pytest

from providers import gemini
from providers.simulator import gemini_server
from providers.simulator.app import create_app, create_server_app
from providers.simulator.gemini_signatures import STAND_INS
from providers.sse import parse
from providers.streaming import StreamResult, fold
from tests.providers.simulator_fixtures import mounted

BASE = "http://sim/sim/gemini/v1beta"
KEY = {"x-goog-api-key": "AIza-sim-test"}
WEATHER: dict[str, Any] = {
    "name": "get_weather",
    "description": "Current weather for a city",
    "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}, "required": ["city"]},
}
ADD: dict[str, Any] = {
    "name": "add",
    "description": "Add two numbers",
    "parameters": {
        "type": "OBJECT",
        "properties": {"a": {"type": "NUMBER"}, "b": {"type": "NUMBER"}},
        "required": ["a", "b"],
    },
}
TOOLS = [{"functionDeclarations": [WEATHER, ADD]}]
ASK = "add 2 and 3, weather in Oslo"
THOUGHTS = {"generationConfig": {"thinkingConfig": {"includeThoughts": True}}}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}


def body(text: str = ASK, **extra: Any) -> dict[str, Any]:
    return {"contents": [user(text)], "tools": TOOLS, **extra}


async def post(
    payload: Any, model: str = "sim-1", *, stream: bool = False, headers: dict[str, str] | None = None, app: Any = None
) -> httpx2.Response:
    method = "streamGenerateContent?alt=sse" if stream else "generateContent"
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app or mounted())) as client:
        return await client.post(
            f"{BASE}/models/{model}:{method}", json=payload, headers=KEY if headers is None else headers
        )


def chunks(response: httpx2.Response) -> list[dict[str, Any]]:
    events = list(parse([response.content]))
    assert all(event.event is None for event in events), "Gemini's stream has data: lines only"
    return [json.loads(event.data) for event in events]


def parts_of(response_body: dict[str, Any]) -> list[dict[str, Any]]:
    return response_body["candidates"][0]["content"].get("parts", [])


def answers(parts: list[dict[str, Any]], result: str = "Sunny") -> dict[str, Any]:
    """The user content answering every call of a model turn, as a client sends it."""
    calls = [part["functionCall"] for part in parts if "functionCall" in part]
    responses = [
        {"functionResponse": {"name": c["name"], "id": c["id"], "response": {"result": result}}} for c in calls
    ]
    return {"role": "user", "parts": responses}


async def second_turn(text: str = ASK, **extra: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A first turn with calls; returns its request body and the model's parts, ready to be sent back."""
    first = body(text, **extra)
    response = await post(first)
    assert response.status_code == 200
    return first, parts_of(response.json())


def error_of(response: httpx2.Response) -> dict[str, Any]:
    error = response.json()["error"]
    assert error["code"] == response.status_code
    return error


# --- answers ---------------------------------------------------------------------------------------------------


async def test_streamed_text_is_the_codecs_chunks() -> None:
    raw = await post({"contents": [user("/text Hello from the simulated Gemini API.")]}, stream=True)
    assert raw.status_code == 200 and raw.headers["content-type"].startswith("text/event-stream")
    events = chunks(raw)
    texts = [part["text"] for chunk in events[:-1] for part in parts_of(chunk)]
    assert len(texts) > 3 and all(0 < len(text) <= 6 for text in texts)
    last = events[-1]
    assert last["candidates"][0]["finishReason"] == "STOP" and last["usageMetadata"]["totalTokenCount"] > 0
    assert {chunk["responseId"] for chunk in events} == {last["responseId"]} and last["modelVersion"] == "sim-1"
    assert "".join(texts + [p["text"] for p in parts_of(last)]) == "Hello from the simulated Gemini API."
    assert b"[DONE]" not in raw.content
    # Exactly the chunks the codec writes for the result: encoding what the stream decodes to gives them back.
    result = decoded(raw)
    again = gemini.encode_stream(result, model="sim-1", response_id=last["responseId"], fragment_size=6)
    assert [json.loads(event.data) for event in again] == events


def decoded(raw: httpx2.Response) -> StreamResult:
    decoder = gemini.new_stream_decoder()
    return fold([event for sse in parse([raw.content]) for event in decoder.feed(sse)] + decoder.close(), gemini.NAME)


async def test_parallel_calls_come_whole_with_gemini_3_ids_and_one_signature() -> None:
    raw = await post(body(), stream=True)
    calls = [part for chunk in chunks(raw) for part in parts_of(chunk) if "functionCall" in part]
    assert [c["functionCall"]["name"] for c in calls] == ["add", "get_weather"]
    assert calls[0]["functionCall"]["args"] == {"a": 2, "b": 3} and calls[1]["functionCall"]["args"] == {"city": "Oslo"}
    assert all(len(c["functionCall"]["id"]) == 8 and c["functionCall"]["id"].isalnum() for c in calls)
    assert "thoughtSignature" in calls[0] and "thoughtSignature" not in calls[1], "the first call only is signed"
    assert chunks(raw)[-1]["candidates"][0]["finishReason"] == "STOP", "Gemini has no tool-call finish reason"


async def test_whole_and_streamed_answers_decode_to_the_same_message() -> None:
    whole = await post(body(**THOUGHTS))
    streamed = await post(body(**THOUGHTS), stream=True)
    assert decoded(streamed).message == gemini.decode_response(whole.json()).message


async def test_directives_script_the_answer() -> None:
    raw = await post(body('/text Checking.\n/call get_weather {"city": "Lima"}'))
    text, call = parts_of(raw.json())
    assert text == {"text": "Checking."} and call["functionCall"]["args"] == {"city": "Lima"}


async def test_thoughts_show_only_when_asked_for_and_sign_the_text_answer() -> None:
    shown = parts_of((await post({"contents": [user("Hello!")], **THOUGHTS})).json())
    assert shown[0]["thought"] is True and shown[0]["text"]
    assert shown[-1]["text"] == "" and shown[-1]["thoughtSignature"], "a text answer ends with a signed empty part"
    hidden = await post({"contents": [user("Hello!")], "generationConfig": {"thinkingConfig": {"thinkingBudget": 512}}})
    assert not [part for part in parts_of(hidden.json()) if part.get("thought")]
    assert hidden.json()["usageMetadata"]["thoughtsTokenCount"] > 0, "hidden thoughts are still counted"
    off = await post({"contents": [user("Hello!")], "generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}})
    assert "thoughtsTokenCount" not in off.json()["usageMetadata"]


async def test_max_output_tokens_cuts_the_answer() -> None:
    raw = await post({"contents": [user("Hello!")], "generationConfig": {"maxOutputTokens": 4}})
    candidate = raw.json()["candidates"][0]
    assert candidate["finishReason"] == "MAX_TOKENS" and 0 < len(candidate["content"]["parts"][0]["text"]) <= 16


async def test_the_same_request_gets_the_same_bytes() -> None:
    first, again = await post(body(**THOUGHTS), stream=True), await post(body(**THOUGHTS), stream=True)
    assert first.content == again.content


async def test_the_standalone_app_serves_the_same_routes() -> None:
    standalone = await post(body(), app=create_server_app())
    assert standalone.status_code == 200 and standalone.content == (await post(body())).content


async def test_the_models_are_listed_in_googles_shape() -> None:
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=mounted())) as client:
        listed = await client.get(f"{BASE}/models", headers=KEY)
        by_query = await client.get(f"{BASE}/models", params={"key": "AIza-sim"})
        keyless = await client.get(f"{BASE}/models")
    models = listed.json()["models"]
    assert [m["name"] for m in models] == [f"models/{name}" for name in gemini_server.MODELS]
    assert models[0]["supportedGenerationMethods"] == ["generateContent", "countTokens"]
    assert by_query.status_code == 200 and by_query.json() == listed.json()
    assert keyless.status_code == 403 and error_of(keyless)["status"] == "PERMISSION_DENIED"


# --- the second turn -------------------------------------------------------------------------------------------


async def test_a_second_turn_with_its_responses_and_signature_is_answered() -> None:
    first, parts = await second_turn(**THOUGHTS)
    assert parts[0]["thought"] is True
    history = {**first, "contents": [*first["contents"], {"role": "model", "parts": parts}, answers(parts, "5")]}
    raw = await post(history)
    assert raw.status_code == 200
    text = "".join(part["text"] for part in parts_of(raw.json()) if not part.get("thought"))
    assert "“5”" in text and not [part for part in parts_of(raw.json()) if "functionCall" in part]


async def test_a_dropped_signature_is_refused_as_gemini_3_refuses_it() -> None:
    first, parts = await second_turn()
    unsigned = [{key: value for key, value in part.items() if key != "thoughtSignature"} for part in parts]
    history = {**first, "contents": [*first["contents"], {"role": "model", "parts": unsigned}, answers(unsigned)]}
    raw = await post(history)
    assert raw.status_code == 400
    assert error_of(raw) == {
        "code": 400,
        "message": "Function call is missing a thought_signature in functionCall parts. This is required for tools "
        "to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, "
        "function call `default_api:add` , position 2. Please refer to "
        "https://ai.google.dev/gemini-api/docs/thought-signatures for more details.",
        "status": "INVALID_ARGUMENT",
    }


@pytest.mark.parametrize("change", ["cut", "moved", "invented"])
async def test_a_changed_signature_is_corrupted(change: str) -> None:
    first, parts = await second_turn()
    signature = parts[0]["thoughtSignature"]
    changed = [dict(part) for part in parts]
    if change == "cut":
        changed[0]["thoughtSignature"] = signature[:-8] + "AAAAAAA="
    elif change == "moved":  # onto the other call: a signature belongs to its part
        del changed[0]["thoughtSignature"]
        changed[1]["thoughtSignature"] = signature
    else:
        changed[0]["thoughtSignature"] = "bm90IGEgc2lnbmF0dXJl"
    history = {**first, "contents": [*first["contents"], {"role": "model", "parts": changed}, answers(changed)]}
    raw = await post(history)
    assert raw.status_code == 400 and error_of(raw)["message"] == "Corrupted thought signature."


@pytest.mark.parametrize("stand_in", sorted(STAND_INS))
async def test_googles_stand_in_signatures_are_accepted(stand_in: str) -> None:
    # A history from another provider: no call ids, and a stand-in where Gemini would have put its signature.
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}, "thoughtSignature": stand_in}
    response = {"functionResponse": {"name": "get_weather", "response": {"result": "Sunny"}}}
    history = [user("weather in Rome"), {"role": "model", "parts": [call]}, {"role": "user", "parts": [response]}]
    raw = await post({"contents": history, "tools": TOOLS})
    assert raw.status_code == 200 and "Sunny" in json.dumps(raw.json())


async def test_only_the_current_turn_needs_its_signatures() -> None:
    older = [
        user("weather in Rome"),
        {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"result": "Rain"}}}]},
        {"role": "model", "parts": [{"text": "Rain in Rome."}]},
    ]
    raw = await post({"contents": [*older, user("Thanks!")], "tools": TOOLS})
    assert raw.status_code == 200


# --- faults ------------------------------------------------------------------------------------------------------


async def test_sim_429_is_resource_exhausted_with_a_retry_delay() -> None:
    error = error_of(await post(body(), "sim-429"))
    assert error["status"] == "RESOURCE_EXHAUSTED" and error["code"] == 429
    assert {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"} in error["details"]
    decoded = gemini.decode_error(429, json.dumps({"error": error}).encode(), {})
    assert decoded.type == "rate_limit" and decoded.retry_after == 1


async def test_sim_401_is_the_400_google_sends_for_a_bad_key() -> None:
    raw = await post(body(), "sim-401")
    error = error_of(raw)
    assert raw.status_code == 400 and error["details"][0]["reason"] == "API_KEY_INVALID"
    assert gemini.decode_error(400, raw.content, {}).type == "authentication"


@pytest.mark.parametrize(("model", "status", "grpc"), [("sim-529", 503, "UNAVAILABLE"), ("sim-500", 500, "INTERNAL")])
async def test_server_faults(model: str, status: int, grpc: str) -> None:
    raw = await post(body(), model, stream=True)
    assert raw.status_code == status and error_of(raw)["status"] == grpc


async def test_sim_error_event_fails_while_the_answer_flows() -> None:
    raw = await post({"contents": [user("Hello there, how are you?")]}, "sim-error-event", stream=True)
    events = chunks(raw)
    assert raw.status_code == 200 and parts_of(events[0])[0]["text"]
    assert events[-1] == {
        "error": {"code": 503, "message": "The model is overloaded. Please try again later.", "status": "UNAVAILABLE"}
    }
    whole = await post({"contents": [user("hi")]}, "sim-error-event")
    assert whole.status_code == 503


async def test_sim_cut_stops_inside_the_chunk_of_the_call() -> None:
    transport = httpx2.ASGITransport(app=mounted(), raise_app_exceptions=False)
    async with httpx2.AsyncClient(transport=transport) as client:
        url = f"{BASE}/models/sim-cut:streamGenerateContent?alt=sse"
        cut = await client.post(url, json=body("weather in Paris"), headers=KEY)
    assert b'"functionCall"' in cut.content and not cut.content.endswith(b"\n\n")
    assert b"finishReason" not in cut.content


async def test_sim_badjson_is_a_malformed_function_call() -> None:
    candidate = (await post(body("weather in Paris"), "sim-badjson")).json()["candidates"][0]
    assert candidate["finishReason"] == "MALFORMED_FUNCTION_CALL" and "parts" not in candidate["content"]
    assert candidate["finishMessage"].startswith("Malformed function call: get_weather(")


async def test_sim_empty_args_sends_the_call_without_args() -> None:
    [call] = parts_of((await post(body("weather in Paris"), "sim-empty-args")).json())
    assert "args" not in call["functionCall"] and call["functionCall"]["name"] == "get_weather"


async def test_sim_slow_waits_before_the_first_byte() -> None:
    app = mounted(slow_first_byte_s=0.2, slow_pace_ms=1)
    started = time.perf_counter()
    raw = await post({"contents": [user("Hi")]}, "sim-slow", app=app)
    assert raw.status_code == 200 and time.perf_counter() - started >= 0.2


def test_create_app_routes_gemini() -> None:
    paths = {getattr(route, "path", "") for route in create_app().routes}
    assert {"/gemini/v1beta/models", "/gemini/v1beta/models/{target}"} <= paths
