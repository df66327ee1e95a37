"""Shared pieces for the simulator tests: the in-process app, SDK clients bound to it, tools and raw requests."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx2
import openai
from starlette.applications import Starlette
from starlette.routing import Mount

from providers.simulator import create_app
from providers.sse import SSEEvent, parse

OPENAI_BASE = "http://sim/sim/openai/v1"
ANTHROPIC_BASE = "http://sim/sim/anthropic"
OPENAI_HEADERS = {"authorization": "Bearer x"}
ANTHROPIC_HEADERS = {"x-api-key": "x", "anthropic-version": "2023-06-01"}

WEATHER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    },
    "required": ["city"],
}
ADD_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
    "required": ["a", "b"],
}
WEATHER = {
    "type": "function",
    "function": {"name": "get_weather", "description": "Current weather for a city", "parameters": WEATHER_SCHEMA},
}
ADD = {"type": "function", "function": {"name": "add", "description": "Add two numbers", "parameters": ADD_SCHEMA}}
A_WEATHER = {"name": "get_weather", "description": "Current weather for a city", "input_schema": WEATHER_SCHEMA}
A_ADD = {"name": "add", "description": "Add two numbers", "input_schema": ADD_SCHEMA}


def mounted(**settings: Any) -> Starlette:
    """``create_app()`` mounted at ``/sim``, as Crosswire's ASGI router does."""
    return Starlette(routes=[Mount("/sim", app=create_app(**settings))])


def http_client(app: Any | None = None) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app or mounted()))


def openai_client(app: Any | None = None, **options: Any) -> openai.AsyncOpenAI:
    options.setdefault("max_retries", 0)
    return openai.AsyncOpenAI(api_key="x", base_url=OPENAI_BASE, http_client=http_client(app), **options)


def anthropic_client(app: Any | None = None, **options: Any) -> anthropic.AsyncAnthropic:
    options.setdefault("max_retries", 0)
    return anthropic.AsyncAnthropic(api_key="x", base_url=ANTHROPIC_BASE, http_client=http_client(app), **options)


async def post_openai(body: dict[str, Any], headers: dict[str, str] | None = None, app: Any = None) -> httpx2.Response:
    async with http_client(app) as client:
        return await client.post(
            f"{OPENAI_BASE}/chat/completions", json=body, headers={**OPENAI_HEADERS, **(headers or {})}
        )


async def post_anthropic(
    body: dict[str, Any], headers: dict[str, str] | None = None, app: Any = None
) -> httpx2.Response:
    async with http_client(app) as client:
        return await client.post(
            f"{ANTHROPIC_BASE}/v1/messages", json=body, headers={**ANTHROPIC_HEADERS, **(headers or {})}
        )


def sse_events(response: httpx2.Response) -> list[SSEEvent]:
    return list(parse([response.content]))


def chunks(response: httpx2.Response) -> list[dict[str, Any]]:
    """The JSON chunks of an OpenAI-style stream (``[DONE]`` left out)."""
    return [json.loads(e.data) for e in sse_events(response) if e.data != "[DONE]"]


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def openai_body(text: str, **extra: Any) -> dict[str, Any]:
    return {"model": "sim-1", "messages": [user(text)], **extra}


def anthropic_body(text: str, **extra: Any) -> dict[str, Any]:
    return {"model": "sim-1", "max_tokens": 1024, "messages": [user(text)], **extra}
