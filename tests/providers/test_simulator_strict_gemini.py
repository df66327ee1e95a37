"""What the simulated Gemini API refuses, as generativelanguage.googleapis.com does: Google's proto parser (unknown
fields, values of the wrong shape, in either spelling), the rules of a function-calling history, the key."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from tests.providers.simulator_fixtures import mounted
from tests.providers.test_simulator_gemini import BASE, KEY, TOOLS, WEATHER, body, error_of, parts_of, post, user

CALL_TURN = {
    "role": "model",
    "parts": [
        {
            "functionCall": {"name": "get_weather", "args": {"city": "Oslo"}},
            "thoughtSignature": "skip_thought_signature_validator",
        }
    ],
}


def hi(**extra: Any) -> dict[str, Any]:
    return {"contents": [user("hi")], **extra}


def answered_with(response: dict[str, Any]) -> dict[str, Any]:
    return {"contents": [user("hi"), CALL_TURN, {"role": "user", "parts": [{"functionResponse": response}]}]}


def declaring(**declaration: Any) -> dict[str, Any]:
    return hi(tools=[{"functionDeclarations": [{**WEATHER, **declaration}]}])


STRICT_SCHEMA = {**WEATHER["parameters"], "additionalProperties": False}
UNKNOWN = 'Invalid JSON payload received. Unknown name "{}"{}: Cannot find field.'
PROTO = "type.googleapis.com/google.ai.generativelanguage.v1beta."
REJECTED: list[tuple[str, dict[str, Any], str]] = [
    ("no contents", {"tools": TOOLS}, "* GenerateContentRequest.contents: contents is not specified\n"),
    ("an OpenAI body", {"messages": [{"role": "user", "content": "hi"}]}, UNKNOWN.format("messages", "")),
    ("a stream field", hi(stream=True), UNKNOWN.format("stream", "")),
    ("contents not a list", {"contents": "hi"}, f"Invalid value at 'contents' ({PROTO}Content), \"hi\""),
    (
        "an unknown role",
        {"contents": [{"role": "assistant", "parts": [{"text": "hi"}]}]},
        "Please use a valid role: user, model.",
    ),
    (
        "no parts",
        {"contents": [{"role": "user", "parts": []}]},
        "* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.\n",
    ),
    (
        "an OpenAI-shaped part",
        {"contents": [{"role": "user", "parts": [{"type": "text", "text": "hi"}]}]},
        UNKNOWN.format("type", " at 'contents[0].parts[0]'"),
    ),
    (
        "a part with no data",
        {"contents": [{"role": "user", "parts": [{"thought": True}]}]},
        "* GenerateContentRequest.contents[0].parts[0].data: required oneof field 'data' must have one initialized "
        "field\n",
    ),
    (
        "a response that is not an object",
        answered_with({"name": "get_weather", "response": "5"}),
        "Invalid value at 'contents[2].parts[0].function_response.response' "
        '(type.googleapis.com/google.protobuf.Struct), "5"',
    ),
    (
        "a response to no call",
        {"contents": [user("hi"), {"role": "user", "parts": [{"functionResponse": {"name": "x", "response": {}}}]}]},
        "Please ensure that function response turn comes immediately after a function call turn.",
    ),
    (
        "a call left unanswered",
        {"contents": [user("hi"), CALL_TURN, user("never mind")]},
        "Please ensure that the number of function response parts is equal to the number of function call parts of "
        "the function call turn.",
    ),
    (
        "a response naming another function",
        answered_with({"name": "add", "response": {"result": 5}}),
        "Please ensure that function response `add` in the 3. content block answers a function call of the function "
        "call turn (same name, and same id when it has one).",
    ),
    (
        "a JSON Schema keyword",
        declaring(parameters=STRICT_SCHEMA),
        UNKNOWN.format("additionalProperties", " at 'tools[0].function_declarations[0].parameters'"),
    ),
    (
        "a bad function name",
        declaring(name="get weather"),
        "* GenerateContentRequest.tools[0].function_declarations[0].name: Invalid function name. Must start with a "
        "letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or "
        "dashes (-), with a maximum length of 64.\n",
    ),
    (
        "an object without properties",
        declaring(name="ping", parameters={"type": "OBJECT"}),
        "* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties: should be non-empty for "
        "OBJECT type\n",
    ),
    ("a Chat tool", hi(tools=[{"type": "function", "function": WEATHER}]), UNKNOWN.format("type", " at 'tools[0]'")),
    (
        "a lower-case mode",
        hi(toolConfig={"functionCallingConfig": {"mode": "auto"}}),
        f"Invalid value at 'tool_config.function_calling_config.mode' ({PROTO}FunctionCallingConfig.Mode), \"auto\"",
    ),
    (
        "a budget and a level",
        hi(generationConfig={"thinkingConfig": {"thinkingBudget": 128, "thinkingLevel": "low"}}),
        "You can only set only one of thinking budget and thinking level.",
    ),
]


@pytest.mark.parametrize(("payload", "message"), [case[1:] for case in REJECTED], ids=[case[0] for case in REJECTED])
async def test_what_the_real_api_refuses(payload: dict[str, Any], message: str) -> None:
    raw = await post(payload)
    assert raw.status_code == 400 and raw.headers["content-type"].startswith("application/json")
    error = error_of(raw)
    assert (error["status"], error["message"]) == ("INVALID_ARGUMENT", message)


async def test_snake_case_fields_are_read_as_googles_parser_reads_them() -> None:
    payload = {"contents": [user("weather in Oslo")], "tools": [{"function_declarations": [WEATHER]}]}
    raw = await post({**payload, "tool_config": {"function_calling_config": {"mode": "ANY"}}})
    assert raw.status_code == 200 and "functionCall" in parts_of(raw.json())[0]


async def test_a_body_that_is_not_json_is_googles_400() -> None:
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=mounted())) as client:
        raw = await client.post(f"{BASE}/models/sim-1:generateContent", content=b"{nope", headers=KEY)
    assert raw.status_code == 400 and error_of(raw)["message"].startswith("Invalid JSON payload received.")


async def test_an_unknown_method_and_a_stream_without_sse() -> None:
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=mounted())) as client:
        unknown = await client.post(f"{BASE}/models/sim-1:countWords", json=body(), headers=KEY)
        array = await client.post(f"{BASE}/models/sim-1:streamGenerateContent", json=body(), headers=KEY)
    assert unknown.status_code == 404 and error_of(unknown)["status"] == "NOT_FOUND"
    assert array.status_code == 400 and "alt=sse" in error_of(array)["message"]


async def test_the_key_comes_as_a_header_or_a_query_parameter() -> None:
    keyless = await post(body(), headers={})
    assert keyless.status_code == 403 and error_of(keyless)["message"].startswith("Method doesn't allow unregistered")
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=mounted())) as client:
        by_query = await client.post(f"{BASE}/models/sim-1:generateContent", params={"key": "AIza"}, json=body())
    assert by_query.status_code == 200
