"""The simulator under each strategy: sim-1 follows the prompted protocol and the envelope (history included), and
the edge models refuse tools, refuse a non-strict schema, or slip on their first call."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from providers.client import Endpoint, RoundTripRun
from providers.simulator.app import create_server_app
from providers.simulator.strategy_models import strict_problem
from providers.strategies import fallback, prompted_request, structured_request
from providers.types import ChatRequest
from tests.providers.simulator_fixtures import ADD, WEATHER, post_openai

BASES = {
    "openai-chat": "http://sim/sim/openai/v1",
    "openai-responses": "http://sim/sim/openai/v1",
    "anthropic": "http://sim/sim/anthropic",
    "gemini": "http://sim/sim/gemini",
}


def endpoint(fmt: str) -> Endpoint:
    return Endpoint(fmt, BASES[fmt], "key", transport=httpx2.ASGITransport(app=create_server_app()))


def chat(model: str, messages: list[dict[str, Any]], tools: list[Any] | None = None) -> ChatRequest:
    return {"model": model, "max_tokens": 512, "stream": True, "messages": messages, "tools": tools or [WEATHER]}  # type: ignore[typeddict-item]


@pytest.mark.parametrize("fmt", list(BASES))
async def test_a_model_without_tools_refuses_them_and_the_refusal_leads_to_prompted(fmt: str) -> None:
    refused = await RoundTripRun(endpoint(fmt), chat("sim-no-tools", [{"role": "user", "content": "hi"}])).run()
    error = refused.result.error
    assert error is not None and refused.status == 400
    expected = "Function calling is not enabled" if fmt == "gemini" else "sim-no-tools does not support tools"
    assert expected in error.message
    assert fallback("native", error) == "prompted" and fallback("strict", error) == "prompted"
    hello = chat("sim-no-tools", [{"role": "user", "content": "hi"}])
    answered = await RoundTripRun(endpoint(fmt), hello, strategy="prompted").run()
    assert answered.result.error is None and answered.result.complete


@pytest.mark.parametrize("fmt", list(BASES))
async def test_prompted_history_is_read_back_and_the_results_quoted(fmt: str) -> None:
    """The second round trip of a prompted loop: calls and results travel as text; the model still quotes them."""
    messages = [
        {"role": "user", "content": "add 2 and 3"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_a1", "type": "function", "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}}]},
        {"role": "tool", "tool_call_id": "call_a1", "content": "5"},
    ]  # fmt: skip
    sent = prompted_request(chat("sim-1", messages, [ADD])).value
    assert "tool_calls" not in json.dumps(sent["messages"])
    done = await RoundTripRun(endpoint(fmt), chat("sim-1", messages, [ADD]), strategy="prompted").run()
    assert done.result.message["content"] == 'add({"a": 2, "b": 3}) returned “5”.'
    assert "tool_calls" not in done.result.message


async def test_structured_history_is_read_back_too() -> None:
    messages = [
        {"role": "user", "content": "add 2 and 3"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_b2", "type": "function", "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}}]},
        {"role": "tool", "tool_call_id": "call_b2", "content": "5", "is_error": True},
    ]  # fmt: skip
    sent = structured_request(chat("sim-1", messages, [ADD])).value
    assert "Result of add (call_b2) (the tool failed)" in json.dumps(sent)
    done = await RoundTripRun(endpoint("anthropic"), chat("sim-1", messages, [ADD]), strategy="structured").run()
    assert done.result.message["content"] == 'add({"a": 2, "b": 3}) failed with “5”.'


async def test_sim_strict_refuses_a_schema_outside_the_strict_subset_like_the_api() -> None:
    loose = {"type": "object", "properties": {"city": {"type": "string", "minLength": 2}}, "required": ["city"]}
    body = {
        "model": "sim-strict",
        "messages": [{"role": "user", "content": "hi"}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "strict": True, "schema": loose}},
    }
    response = await post_openai(body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["message"] == (
        "Invalid schema for response_format 'answer': In context=(), 'additionalProperties' is required to be "
        "supplied and to be false."
    )
    assert error["param"] == "response_format"
    loose["additionalProperties"] = False
    assert strict_problem(loose) == "In context=('properties', 'city'), 'minLength' is not permitted."
    loose["properties"]["city"] = {"type": "string"}
    assert (await post_openai(body)).status_code == 200, "the same schema, now strict, is accepted"


async def test_sim_1_does_not_check_strictness() -> None:
    loose = {"type": "object", "properties": {"note": {"type": "string", "maxLength": 9}}}
    body = {
        "model": "sim-1",
        "messages": [{"role": "user", "content": "hi"}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "strict": True, "schema": loose}},
    }
    assert (await post_openai(body)).status_code == 200


async def test_sim_sloppy_slips_once_and_then_writes_the_call_right() -> None:
    asked = chat("sim-sloppy", [{"role": "user", "content": "Weather in Oslo?"}])
    first = await RoundTripRun(endpoint("openai-chat"), asked).run()
    [call] = first.result.message["tool_calls"]
    assert call["function"]["arguments"].startswith("{'City': 'Oslo'") and call["function"]["arguments"].endswith(",}")
    messages = [
        {"role": "user", "content": "Weather in Oslo?"},
        first.result.message,
        {"role": "tool", "tool_call_id": call["id"], "content": "Invalid arguments for get_weather", "is_error": True},
    ]  # fmt: skip
    second = await RoundTripRun(endpoint("openai-chat"), chat("sim-sloppy", messages)).run()
    [fixed] = second.result.message["tool_calls"]
    assert json.loads(fixed["function"]["arguments"])["city"] == "Oslo"
