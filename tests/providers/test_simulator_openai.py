"""The simulated OpenAI Chat Completions API, driven by the official ``openai`` SDK in-process."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from tests.providers.simulator_fixtures import (
    ADD,
    WEATHER,
    chunks,
    http_client,
    openai_body,
    openai_client,
    post_openai,
    user,
)


async def test_text_reply_without_tools() -> None:
    completion = await openai_client().chat.completions.create(model="sim-1", messages=[user("Hello!")])
    message = completion.choices[0].message
    assert completion.object == "chat.completion" and completion.model == "sim-1"
    assert message.content is not None and "Hello!" in message.content and not message.tool_calls
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage is not None and completion.usage.total_tokens > 0


async def test_streamed_text_reply() -> None:
    stream = await openai_client().chat.completions.create(model="sim-1", messages=[user("Hello!")], stream=True)
    pieces = [chunk.choices[0].delta.content or "" async for chunk in stream if chunk.choices]
    assert len(pieces) > 3 and "Hello!" in "".join(pieces)


async def test_stream_helper_accumulates_a_call() -> None:
    client = openai_client()
    async with client.chat.completions.stream(
        model="sim-1", messages=[user("weather in Paris?")], tools=[WEATHER]
    ) as stream:
        final = await stream.get_final_completion()
    call = final.choices[0].message.tool_calls[0]
    assert call.function.name == "get_weather" and json.loads(call.function.arguments)["city"] == "Paris"
    assert final.choices[0].finish_reason == "tool_calls"


async def test_parallel_calls_whole_and_streamed() -> None:
    client = openai_client()
    request: dict[str, Any] = {"model": "sim-1", "messages": [user("add 2 and 3, weather in Oslo")]}
    whole = await client.chat.completions.create(**request, tools=[WEATHER, ADD])
    names = [c.function.name for c in whole.choices[0].message.tool_calls or []]
    assert names == ["add", "get_weather"]
    assert whole.choices[0].message.content is None
    raw = await post_openai({**request, "tools": [WEATHER, ADD], "stream": True})
    heads = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks(raw) if _call_parts(c)]
    assert [h["index"] for h in heads if "id" in h] == [0, 1]
    assert all(len(h["id"]) == 29 and h["id"].startswith("call_") for h in heads if "id" in h)


async def test_arguments_arrive_in_small_fragments() -> None:
    raw = await post_openai(openai_body("weather in Paris", tools=[WEATHER], stream=True))
    fragments = [p["function"]["arguments"] for c in chunks(raw) for p in _call_parts(c) if "id" not in p]
    assert len(fragments) > 2 and all(0 < len(f) <= 6 for f in fragments)
    assert json.loads("".join(fragments))["city"] == "Paris"


async def test_parallel_disabled_gives_one_call() -> None:
    completion = await openai_client().chat.completions.create(
        model="sim-1", messages=[user("add 2 and 3, weather in Oslo")], tools=[WEATHER, ADD], parallel_tool_calls=False
    )
    assert len(completion.choices[0].message.tool_calls or []) == 1


@pytest.mark.parametrize(
    ("choice", "expected", "finish"),
    [
        ("none", [], "stop"),
        ("auto", [], "stop"),
        ("required", ["get_weather"], "tool_calls"),
        ({"type": "function", "function": {"name": "add"}}, ["add"], "stop"),  # as recorded: named choice says stop
    ],
)
async def test_tool_choice(choice: Any, expected: list[str], finish: str) -> None:
    completion = await openai_client().chat.completions.create(
        model="sim-1", messages=[user("good morning")], tools=[WEATHER, ADD], tool_choice=choice
    )
    assert [c.function.name for c in completion.choices[0].message.tool_calls or []] == expected
    assert completion.choices[0].finish_reason == finish


async def test_full_tool_loop() -> None:
    client = openai_client()
    messages: list[Any] = [user("add 2 and 3")]
    first = await client.chat.completions.create(model="sim-1", messages=messages, tools=[ADD])
    call = first.choices[0].message.tool_calls[0]
    assert json.loads(call.function.arguments) == {"a": 2, "b": 3}
    messages.append(first.choices[0].message.model_dump(exclude_none=True))
    messages.append({"role": "tool", "tool_call_id": call.id, "content": "5"})
    second = await client.chat.completions.create(model="sim-1", messages=messages, tools=[ADD])
    assert "“5”" in (second.choices[0].message.content or "") and not second.choices[0].message.tool_calls


async def test_usage_chunk_only_when_asked() -> None:
    without = chunks(await post_openai(openai_body("hi", stream=True)))
    assert all("usage" not in c for c in without)
    with_usage = chunks(await post_openai(openai_body("hi", stream=True, stream_options={"include_usage": True})))
    assert with_usage[-1]["choices"] == [] and with_usage[-1]["usage"]["total_tokens"] > 0


async def test_models_list() -> None:
    models = await openai_client().models.list()
    ids = [m.id for m in models.data]
    assert ids[0] == "sim-1" and {"sim-ollama", "sim-429", "sim-hang"} <= set(ids)


async def test_a_missing_key_gets_the_real_401() -> None:
    async with http_client() as client:
        response = await client.post("http://sim/sim/openai/v1/chat/completions", json=openai_body("hi"))
    assert response.status_code == 401
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error" and error["message"].startswith("You didn't provide an API key")
    assert set(error) == {"message", "type", "param", "code"}


async def test_unreadable_json_is_a_400() -> None:
    async with http_client() as client:
        response = await client.post(
            "http://sim/sim/openai/v1/chat/completions", content=b"{oops", headers={"authorization": "Bearer x"}
        )
    assert response.status_code == 400 and "could not parse the JSON body" in response.json()["error"]["message"]


async def test_reasoning_is_streamed_when_a_compat_switch_asks() -> None:
    raw = await post_openai(openai_body("add 2 and 3", tools=[ADD], stream=True, reasoning_effort="low"))
    reasoning = "".join(c["choices"][0]["delta"].get("reasoning_content", "") for c in chunks(raw) if c["choices"])
    assert "add" in reasoning


async def test_unknown_models_behave_like_sim_1() -> None:
    completion = await openai_client().chat.completions.create(
        model="gpt-4o", messages=[user("add 2 and 3")], tools=[ADD]
    )
    assert completion.model == "gpt-4o" and completion.choices[0].message.tool_calls


async def test_sdk_errors_are_typed() -> None:
    with pytest.raises(openai.BadRequestError):
        await openai_client().chat.completions.create(model="sim-1", messages=[])


def _call_parts(chunk: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for choice in chunk.get("choices") or [] for p in choice["delta"].get("tool_calls") or []]
