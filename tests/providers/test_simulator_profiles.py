"""Compat-server profiles: each stream has its documented quirk, and Crosswire's decoder still reads it right."""

from __future__ import annotations

import json
from typing import Any

from providers import openai_chat
from providers.sse import parse
from providers.streaming import MessageAccumulator, StreamResult
from tests.providers.simulator_fixtures import ADD, WEATHER, chunks, openai_body, post_anthropic, post_openai, user

PARALLEL = "add 2 and 3, and the weather in Oslo"


async def _stream(model: str, text: str = PARALLEL, **extra: Any) -> tuple[list[dict[str, Any]], bytes]:
    body = openai_body(text, model=model, tools=[ADD, WEATHER], stream=True, **extra)
    response = await post_openai(body)
    assert response.status_code == 200, response.text
    return chunks(response), response.content


def _decoded(raw: bytes) -> StreamResult:
    decoder, acc = openai_chat.new_stream_decoder(), MessageAccumulator(format=openai_chat.NAME)
    for event in parse([raw]):
        acc.extend(decoder.feed(event))
    acc.extend(decoder.close())
    return acc.result()


def _parts(chunk: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for choice in chunk.get("choices") or [] for p in choice["delta"].get("tool_calls") or []]


def _finishes(stream: list[dict[str, Any]]) -> list[str]:
    return [c["finish_reason"] for chunk in stream for c in chunk.get("choices") or [] if c.get("finish_reason")]


def _expect_two_calls(result: StreamResult) -> None:
    calls = result.message.get("tool_calls") or []
    assert [c["function"]["name"] for c in calls] == ["add", "get_weather"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"a": 2, "b": 3}
    assert json.loads(calls[1]["function"]["arguments"])["city"] == "Oslo"
    assert result.finish_reason == "tool_calls"


async def test_ollama_whole_calls_without_index_and_finish_stop() -> None:
    stream, raw = await _stream("sim-ollama", stream_options={"include_usage": True})
    call_chunks = [c for c in stream if _parts(c)]
    assert len(call_chunks) == 2 and all(len(_parts(c)) == 1 for c in call_chunks)
    for chunk in call_chunks:
        part = _parts(chunk)[0]
        assert "index" not in part and json.loads(part["function"]["arguments"])
        assert len(part["id"]) == len("call_") + 8
    assert _finishes(stream) == ["stop"]
    assert all(c["choices"] for c in stream) and all("usage" not in c for c in stream)  # no usage chunk
    _expect_two_calls(_decoded(raw))


async def test_mistral_two_calls_in_one_delta() -> None:
    stream, raw = await _stream("sim-mistral")
    call_chunks = [c for c in stream if _parts(c)]
    assert len(call_chunks) == 1
    parts = _parts(call_chunks[0])
    assert len(parts) == 2 and all("index" not in p and "type" not in p for p in parts)
    assert all(len(p["id"]) == 9 for p in parts)
    assert call_chunks[0]["choices"][0]["finish_reason"] == "tool_calls" and _finishes(stream) == ["tool_calls"]
    _expect_two_calls(_decoded(raw))


async def test_openrouter_repeats_names_and_never_finishes() -> None:
    stream, raw = await _stream("sim-openrouter", text="weather in Oslo")
    parts = [p for c in stream for p in _parts(c)]
    assert len(parts) > 2 and all(p["function"]["name"] == "get_weather" and p["id"] == parts[0]["id"] for p in parts)
    assert _finishes(stream) == []
    result = _decoded(raw)
    call = (result.message.get("tool_calls") or [])[0]
    assert call["function"]["name"] == "get_weather"  # not get_weatherget_weather...
    assert json.loads(call["function"]["arguments"])["city"] == "Oslo"


async def test_deepseek_streams_reasoning_content_first() -> None:
    stream, raw = await _stream("sim-deepseek", text="add 2 and 3")
    deltas = [c["choices"][0]["delta"] for c in stream if c.get("choices")]
    kinds = [next((k for k in ("reasoning_content", "content", "tool_calls") if d.get(k)), None) for d in deltas]
    seen = [k for k in kinds if k]
    assert seen[0] == "reasoning_content" and "tool_calls" in seen
    assert seen.index("tool_calls") > max(i for i, k in enumerate(seen) if k == "reasoning_content")
    assert _parts(next(c for c in stream if _parts(c)))[0]["id"].startswith("call_00_")
    result = _decoded(raw)
    assert "add" in (result.message.get("provider_data") or {}).get("reasoning", "")


async def test_deepseek_whole_response_carries_reasoning_content() -> None:
    response = await post_openai(openai_body("hi", model="sim-deepseek"))
    assert response.json()["choices"][0]["message"]["reasoning_content"]


async def test_ollama_whole_response_says_stop_after_calls() -> None:
    response = await post_openai(openai_body("add 2 and 3", model="sim-ollama", tools=[ADD]))
    choice = response.json()["choices"][0]
    assert choice["finish_reason"] == "stop" and choice["message"]["tool_calls"]


async def test_profiles_do_not_change_the_anthropic_api() -> None:
    plain = {"model": "sim-1", "max_tokens": 64, "messages": [user("hi")]}
    for model in ("sim-ollama", "sim-deepseek"):
        response = await post_anthropic({**plain, "model": model})
        assert [b["type"] for b in response.json()["content"]] == ["text"]


async def test_deepseek_tool_loop_through_the_codec() -> None:
    request: Any = {"model": "sim-deepseek", "messages": [user("add 2 and 3")], "tools": [ADD], "stream": True}
    first = _decoded((await post_openai(openai_chat.encode_request(request).value)).content)
    call = (first.message.get("tool_calls") or [])[0]
    request["messages"] += [first.message, {"role": "tool", "tool_call_id": call["id"], "content": "5"}]
    wire = openai_chat.encode_request(request).value
    assert wire["messages"][1]["reasoning_content"]  # the codec sends the reasoning back, as DeepSeek wants
    second = await post_openai(wire)
    assert second.status_code == 200 and "“5”" in _decoded(second.content).message.get("content", "")
    wire["messages"][1].pop("reasoning_content")
    refused = await post_openai(wire)
    assert refused.status_code == 400 and "reasoning_content" in refused.json()["error"]["message"]
