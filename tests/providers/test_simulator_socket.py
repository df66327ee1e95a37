"""The standalone server on a real socket: ``python -m providers.simulator`` driven by curl and by the SDKs."""

from __future__ import annotations

import json
import shutil
import subprocess
import time

import anthropic
import openai
import pytest

from providers.client import Endpoint, round_trip
from providers.types import ChatRequest
from tests.providers.simulator_fixtures import A_WEATHER, WEATHER, user

CURL = shutil.which("curl") or "curl"


@pytest.fixture
def base_url(simulator_url: str) -> str:
    return simulator_url


def _curl(url: str, body: dict[str, object], *headers: str) -> subprocess.CompletedProcess[str]:
    command = [CURL, "-sS", "-N", url, "-H", "content-type: application/json", "-d", json.dumps(body)]
    for header in headers:
        command += ["-H", header]
    return subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)


def test_curl_streams_an_openai_tool_call(base_url: str) -> None:
    body = {"model": "sim-1", "stream": True, "messages": [user("weather in Paris")], "tools": [WEATHER]}
    done = _curl(f"{base_url}/openai/v1/chat/completions", body, "Authorization: Bearer x")
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("data: [DONE]") and '"name":"get_weather"' in done.stdout


def test_curl_gets_an_anthropic_message(base_url: str) -> None:
    body = {"model": "sim-1", "max_tokens": 256, "messages": [user("weather in Paris")], "tools": [A_WEATHER]}
    done = _curl(f"{base_url}/anthropic/v1/messages", body, "x-api-key: x", "anthropic-version: 2023-06-01")
    message = json.loads(done.stdout)
    assert message["stop_reason"] == "tool_use" and message["content"][0]["input"]["city"] == "Paris"


def test_curl_sees_the_cut_connection(base_url: str) -> None:
    body = {"model": "sim-cut", "stream": True, "messages": [user("weather in Paris")], "tools": [WEATHER]}
    done = _curl(f"{base_url}/openai/v1/chat/completions", body, "Authorization: Bearer x")
    assert done.returncode != 0  # curl: transfer closed with outstanding read data remaining
    assert '"arguments":""' in done.stdout and "[DONE]" not in done.stdout


async def test_sdks_over_the_socket(base_url: str) -> None:
    openai_client = openai.AsyncOpenAI(api_key="x", base_url=f"{base_url}/openai/v1", max_retries=0)
    async with openai_client.chat.completions.stream(
        model="sim-1", messages=[user("weather in Paris and Tokyo")], tools=[WEATHER]
    ) as stream:
        final = await stream.get_final_completion()
    assert len(final.choices[0].message.tool_calls or []) == 2
    anthropic_client = anthropic.AsyncAnthropic(api_key="x", base_url=f"{base_url}/anthropic", max_retries=0)
    async with anthropic_client.messages.stream(
        model="sim-1", max_tokens=256, messages=[user("weather in Oslo")], tools=[A_WEATHER]
    ) as astream:
        message = await astream.get_final_message()
    assert message.content[0].type == "tool_use"


async def test_a_cut_stream_is_a_connection_error(base_url: str) -> None:
    client = openai.AsyncOpenAI(api_key="x", base_url=f"{base_url}/openai/v1", max_retries=0)
    with pytest.raises(openai.APIConnectionError):
        stream = await client.chat.completions.create(
            model="sim-cut", messages=[user("weather in Paris")], tools=[WEATHER], stream=True
        )
        async for _ in stream:
            continue


async def test_hang_times_out_and_the_server_carries_on(base_url: str) -> None:
    client = openai.AsyncOpenAI(api_key="x", base_url=f"{base_url}/openai/v1", max_retries=0, timeout=0.5)
    started = time.monotonic()
    with pytest.raises(openai.APITimeoutError):
        await client.chat.completions.create(model="sim-hang", messages=[user("hi")])
    assert time.monotonic() - started < 5
    alive = await client.chat.completions.create(model="sim-1", messages=[user("still there?")])
    assert alive.choices[0].message.content


@pytest.mark.parametrize("wire", ["openai-chat", "anthropic"])
async def test_crosswire_round_trips_a_tool_loop(base_url: str, wire: str) -> None:
    base = f"{base_url}/openai/v1" if wire == "openai-chat" else f"{base_url}/anthropic"
    endpoint = Endpoint(format=wire, base_url=base, api_key="x", timeout=10)
    request: ChatRequest = {"model": "sim-1", "messages": [user("weather in Lima")], "tools": [WEATHER], "stream": True}
    first = await round_trip(endpoint, request)
    assert first.status == 200 and first.result.complete and first.result.finish_reason == "tool_calls"
    call = (first.result.message.get("tool_calls") or [])[0]
    assert json.loads(call["function"]["arguments"])["city"] == "Lima"
    request["messages"] = [
        *request["messages"],
        first.result.message,
        {"role": "tool", "tool_call_id": call["id"], "content": "19C, clear"},
    ]
    second = await round_trip(endpoint, request)
    assert second.result.finish_reason == "stop" and "19C, clear" in str(second.result.message.get("content"))


async def test_crosswire_sees_retryable_faults(base_url: str) -> None:
    endpoint = Endpoint(format="anthropic", base_url=f"{base_url}/anthropic", api_key="x", timeout=10)
    limited = await round_trip(endpoint, {"model": "sim-429", "messages": [user("hi")]})
    error = limited.result.error
    assert error is not None and error.type == "rate_limit" and error.retryable and error.retry_after == 1
    cut = await round_trip(endpoint, {"model": "sim-cut", "messages": [user("hi")], "tools": [WEATHER], "stream": True})
    assert cut.result.error is not None and cut.result.error.type == "connection" and not cut.result.complete
