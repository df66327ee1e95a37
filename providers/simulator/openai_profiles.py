"""OpenAI-compatible servers mimicked by model name: the codec's api.openai.com chunks, reshaped (wire-formats §6).

* ``sim-ollama``: each call whole in one chunk with no ``index``; ``finish_reason: "stop"`` even after calls; no
  usage chunk; ids ``call_`` + 8 characters.
* ``sim-mistral``: every call in one delta, no ``index``, no ``type``; the finish rides on that same chunk;
  9-character ids.
* ``sim-openrouter``: every argument fragment repeats the call's ``id`` and ``name`` (a decoder that appends names
  gets ``get_weatherget_weather``); no ``finish_reason`` at all.
* ``sim-deepseek``: always reasons, ``reasoning_content`` deltas first (and wants them back, see strict_openai);
  ids ``call_00_…``.

Whole (non-streamed) responses get the quirks that exist there: Ollama's ``stop`` and the profiles' ids.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from providers.simulator.result import random_token
from providers.sse import SSEEvent

Chunk = dict[str, Any]


@dataclass(frozen=True)
class Profile:
    name: str
    response_id: Callable[[random.Random], str]
    call_id: Callable[[random.Random, int], str]
    always_reasons: bool = False
    reshape_stream: Callable[[list[Chunk]], list[Chunk]] = lambda chunks: chunks
    reshape_response: Callable[[Chunk], Chunk] = lambda body: body


def _openai_response_id(rng: random.Random) -> str:
    return "chatcmpl-" + random_token(rng, 29)


def _openai_call_id(rng: random.Random, position: int) -> str:
    return "call_" + random_token(rng, 24)


def _deltas(chunk: Chunk) -> list[Chunk]:
    return [c.get("delta") or {} for c in chunk.get("choices") or []]


def _call_parts(chunk: Chunk) -> list[Chunk]:
    return [call for delta in _deltas(chunk) for call in delta.get("tool_calls") or []]


def _is_call_chunk(chunk: Chunk) -> bool:
    return bool(_call_parts(chunk))


def _whole_calls(chunks: list[Chunk]) -> list[Chunk]:
    """The calls of a stream put back together: one dict per call with its full argument text."""
    calls: dict[int, Chunk] = {}
    for part in (p for chunk in chunks for p in _call_parts(chunk)):
        index = part.get("index", len(calls))
        if index not in calls:
            calls[index] = json.loads(json.dumps(part))
            continue
        function = calls[index]["function"]
        function["arguments"] = function.get("arguments", "") + part.get("function", {}).get("arguments", "")
    return [calls[i] for i in sorted(calls)]


def _with_delta(template: Chunk, delta: Chunk, finish: str | None) -> Chunk:
    chunk = json.loads(json.dumps(template))
    chunk["choices"][0]["delta"] = delta
    chunk["choices"][0]["finish_reason"] = finish
    return chunk


def _ollama_stream(chunks: list[Chunk]) -> list[Chunk]:
    calls = _whole_calls(chunks)
    out: list[Chunk] = []
    for chunk in chunks:
        chunk.pop("usage", None)
        if not chunk.get("choices"):
            continue  # Ollama sends no usage chunk
        if _is_call_chunk(chunk):
            if calls:
                out.extend(_with_delta(chunk, {"tool_calls": [_without(c, "index")]}, None) for c in calls)
                calls = []
            continue
        if chunk["choices"][0].get("finish_reason"):
            chunk["choices"][0]["finish_reason"] = "stop"
        out.append(chunk)
    return out


def _mistral_stream(chunks: list[Chunk]) -> list[Chunk]:
    calls = [_without(_without(c, "index"), "type") for c in _whole_calls(chunks)]
    out: list[Chunk] = []
    for chunk in chunks:
        if _is_call_chunk(chunk):
            if calls:
                out.append(_with_delta(chunk, {"tool_calls": calls}, "tool_calls"))
                calls = []
            continue
        if chunk.get("choices") and chunk["choices"][0].get("finish_reason") and not calls and _had_calls(chunks):
            continue  # the finish already rode on the calls' chunk
        out.append(chunk)
    return out


def _had_calls(chunks: list[Chunk]) -> bool:
    return any(_is_call_chunk(c) for c in chunks)


def _openrouter_stream(chunks: list[Chunk]) -> list[Chunk]:
    heads: dict[int, Chunk] = {}
    for chunk in chunks:
        for part in _call_parts(chunk):
            index = part.get("index", 0)
            if "id" in part:
                heads[index] = part
            else:
                head = heads[index]
                part["id"], part["type"] = head["id"], head.get("type", "function")
                part["function"] = {"name": head["function"]["name"], **part.get("function", {})}
        for choice in chunk.get("choices") or []:
            choice["finish_reason"] = None
    return [c for c in chunks if not (c.get("choices") and not any(_deltas(c)[0].values()))]


def _ollama_response(body: Chunk) -> Chunk:
    for choice in body.get("choices") or []:
        choice["finish_reason"] = "stop"
    return body


def _without(mapping: Chunk, key: str) -> Chunk:
    return {k: v for k, v in mapping.items() if k != key}


PROFILES: dict[str, Profile] = {
    "sim-ollama": Profile(
        "sim-ollama",
        lambda rng: f"chatcmpl-{rng.randrange(100, 999)}",
        lambda rng, position: "call_" + random_token(rng, 8, string.ascii_lowercase + string.digits),
        reshape_stream=_ollama_stream,
        reshape_response=_ollama_response,
    ),
    "sim-mistral": Profile(
        "sim-mistral",
        lambda rng: random_token(rng, 32, string.hexdigits[:16]),
        lambda rng, position: random_token(rng, 9),
        reshape_stream=_mistral_stream,
    ),
    "sim-openrouter": Profile(
        "sim-openrouter",
        lambda rng: f"gen-{rng.randrange(10**9, 10**10)}-{random_token(rng, 20)}",
        _openai_call_id,
        reshape_stream=_openrouter_stream,
    ),
    "sim-deepseek": Profile(
        "sim-deepseek",
        lambda rng: "-".join(random_token(rng, n, string.hexdigits[:16]) for n in (8, 4, 4, 4, 12)),
        lambda rng, position: f"call_{position:02d}_" + random_token(rng, 24),
        always_reasons=True,
    ),
}
DEFAULT = Profile("sim-1", _openai_response_id, _openai_call_id)


def profile_for(model: str) -> Profile:
    return PROFILES.get(model, DEFAULT)


def reshape_events(events: list[SSEEvent], profile: Profile) -> list[SSEEvent]:
    """Apply the profile to the JSON chunks; ``[DONE]`` and any non-JSON event keep their place."""
    if profile is DEFAULT:
        return events
    chunks = [json.loads(e.data) for e in events if e.data != "[DONE]"]
    done = [e for e in events if e.data == "[DONE]"]
    return [SSEEvent(_compact(chunk)) for chunk in profile.reshape_stream(chunks)] + done


def _compact(chunk: Chunk) -> str:
    return json.dumps(chunk, ensure_ascii=False, separators=(",", ":"))
