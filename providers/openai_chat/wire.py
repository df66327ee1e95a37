"""Small pieces shared by the request, response and stream halves of the OpenAI Chat codec.

Usage: ``prompt_tokens`` already includes cached tokens on OpenAI, so it maps straight onto the internal count;
``cached_tokens`` comes from ``prompt_tokens_details`` (DeepSeek: ``prompt_cache_hit_tokens``) and
``reasoning_tokens`` from ``completion_tokens_details``. OpenAI has no cache-creation count, so
``cache_creation_tokens`` is not sent.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from providers.types import Usage

NAME = "openai-chat"
DONE = "[DONE]"  # the stream's last event

# Compat servers put reasoning text under one of these keys (DeepSeek, llama.cpp, xAI, Z.ai: reasoning_content;
# OpenRouter, Groq, newer vLLM: reasoning). The one the server used is the one it expects back.
REASONING_KEYS: tuple[str, ...] = ("reasoning_content", "reasoning")
DEFAULT_REASONING_KEY = "reasoning_content"

_FINISH: dict[str, str] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "content_filter": "content_filter",
    "function_call": "tool_calls",  # legacy functions API
}
WIRE_FINISH: frozenset[str] = frozenset({"stop", "length", "tool_calls", "content_filter"})

# Keys of a wire tool call that the internal ToolCall models; the rest is kept in provider_data.fields. ``index``
# is stream bookkeeping (DeepSeek also puts it in non-streamed messages), not data of the call.
CALL_KEYS: frozenset[str] = frozenset({"id", "type", "function", "index"})


def map_finish(raw: str) -> str:
    """Wire finish_reason -> internal. Unknown values (vLLM ``abort``, ``error``...) count as a plain stop."""
    return _FINISH.get(raw.lower(), "stop")


def synthetic_id(response_id: str, position: int) -> str:
    """A stable id for a call the server sent without one (Gemini compat sends ``""``, some send none).

    Derived from the response id when there is one, so the ids of two turns differ (a conversation must not hold
    two calls with the same id), and short enough for OpenAI's 40-character limit.
    """
    if not response_id:
        return f"call_{position}"
    digest = hashlib.sha1(response_id.encode()).hexdigest()[:8]
    return f"call_{digest}_{position}"


def arguments_text(value: Any) -> str:
    """The raw argument text of a wire call: ``null``/absent -> ``""``; an object some servers send -> its JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


def call_fields(call: dict[str, Any]) -> dict[str, Any] | None:
    """Unknown fields of a wire tool call (e.g. Gemini compat ``extra_content``), kept for the round trip."""
    extra = {key: value for key, value in call.items() if key not in CALL_KEYS}
    return extra or None


def decode_usage(raw: dict[str, Any]) -> Usage:
    usage: Usage = {}
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        value = raw.get(key)
        if isinstance(value, int):
            usage[key] = value  # type: ignore[literal-required]
    cached = _detail(raw, "prompt_tokens_details", "cached_tokens")
    if cached is None and isinstance(raw.get("prompt_cache_hit_tokens"), int):
        cached = raw["prompt_cache_hit_tokens"]
    if cached is not None:
        usage["cached_tokens"] = cached
    reasoning = _detail(raw, "completion_tokens_details", "reasoning_tokens")
    if reasoning is not None:
        usage["reasoning_tokens"] = reasoning
    return usage


def _detail(raw: dict[str, Any], group: str, key: str) -> int | None:
    details = raw.get(group)
    if isinstance(details, dict) and isinstance(details.get(key), int):
        return details[key]
    return None


def encode_usage(usage: Usage | None) -> dict[str, Any]:
    usage = usage or {}
    prompt = usage.get("prompt_tokens", 0)
    completion = usage.get("completion_tokens", 0)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": usage.get("total_tokens", prompt + completion),
        "prompt_tokens_details": {"cached_tokens": usage.get("cached_tokens", 0), "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": usage.get("reasoning_tokens", 0),
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def wire_finish(internal: str | None, raw: str | None) -> str:
    """Internal finish -> wire. The provider's own word wins when it is an OpenAI one: a named tool_choice really
    ends with ``stop`` although calls were made, and a faithful replay says so too."""
    if raw in WIRE_FINISH:
        return raw
    if internal in WIRE_FINISH:
        return internal
    return "stop"
