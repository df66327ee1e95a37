"""Determinism and pacing: the same request and seed give the same bytes; the pace spaces the events out."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.providers.simulator_fixtures import (
    A_WEATHER,
    WEATHER,
    anthropic_body,
    mounted,
    openai_body,
    post_anthropic,
    post_openai,
    sse_events,
)

REQUESTS: list[tuple[str, Any, dict[str, Any]]] = [
    ("openai stream", post_openai, openai_body("weather in Paris and Tokyo", tools=[WEATHER], stream=True)),
    ("openai whole", post_openai, openai_body("hello there", tools=[WEATHER], tool_choice="required")),
    (
        "deepseek stream",
        post_openai,
        openai_body("weather in Rome", model="sim-deepseek", tools=[WEATHER], stream=True),
    ),
    (
        "anthropic thinking stream",
        post_anthropic,
        anthropic_body(
            "weather in Oslo",
            tools=[A_WEATHER],
            max_tokens=2048,
            stream=True,
            thinking={"type": "enabled", "budget_tokens": 1024},
        ),
    ),
    ("anthropic whole", post_anthropic, anthropic_body("good morning", tools=[A_WEATHER])),
    ("anthropic error", post_anthropic, anthropic_body("hi", model="sim-429")),
]


@pytest.mark.parametrize(("post", "body"), [r[1:] for r in REQUESTS], ids=[r[0] for r in REQUESTS])
async def test_same_request_same_bytes(post: Any, body: dict[str, Any]) -> None:
    first = await post(body)
    second = await post(body)
    assert first.content == second.content
    assert first.headers.get("request-id") == second.headers.get("request-id")


async def test_the_seed_header_decides_and_key_order_does_not() -> None:
    body = openai_body("hello", tools=[WEATHER], tool_choice="required")
    reordered = dict(reversed(list(body.items())))
    assert (await post_openai(body)).content == (await post_openai(reordered)).content
    seven = await post_openai(body, headers={"x-sim-seed": "7"})
    assert seven.content == (await post_openai(body, headers={"x-sim-seed": "7"})).content
    assert seven.content != (await post_openai(body, headers={"x-sim-seed": "8"})).content


async def test_ids_differ_from_turn_to_turn_under_one_seed() -> None:
    first = await post_openai(openai_body("weather in Paris", tools=[WEATHER]), headers={"x-sim-seed": "1"})
    call = first.json()["choices"][0]["message"]["tool_calls"][0]
    follow_up = openai_body("weather in Paris", tools=[WEATHER])
    follow_up["messages"] += [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"], "content": "sunny"},
        {"role": "user", "content": "and the weather in Paris again?"},
    ]
    second = await post_openai(follow_up, headers={"x-sim-seed": "1"})
    assert second.json()["choices"][0]["message"]["tool_calls"][0]["id"] != call["id"]
    assert second.json()["id"] != first.json()["id"]


async def test_pace_spaces_the_events_and_the_header_overrides_it() -> None:
    app = mounted(pace_ms=15)
    body = openai_body("weather in Paris", tools=[WEATHER], stream=True)
    started = time.monotonic()
    paced = await post_openai(body, app=app)
    count = len(sse_events(paced))
    assert time.monotonic() - started >= 0.015 * (count - 1)
    started = time.monotonic()
    await post_openai(body, headers={"x-sim-pace-ms": "0"}, app=app)
    assert time.monotonic() - started < 0.015 * (count - 1)
