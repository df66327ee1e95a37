"""A scripted ``Reply`` -> the internal ``StreamResult`` a codec encodes, with ids, usage and finish reason.

Built directly rather than folded from events, so that a call whose arguments are ``""`` (the ``sim-empty-args``
fault) reaches the encoder as ``""`` instead of the accumulator's ``"{}"``.
"""

from __future__ import annotations

import json
import random
import string
from typing import Any

from providers.errors import ProviderError
from providers.simulator.model import Reply
from providers.streaming import StreamResult
from providers.types import Message, ProviderData, ToolCall, Usage

_ALPHABET = string.ascii_letters + string.digits


def random_token(rng: random.Random, length: int, alphabet: str = _ALPHABET) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def estimate_usage(body: dict[str, Any], reply: Reply) -> Usage:
    """About four characters per token, as tokenizers average on English: plausible numbers, stable per request."""
    prompt = max(1, len(json.dumps(body, sort_keys=True)) // 4)
    reasoning = len(reply.reasoning or "") // 4
    written = len(reply.text or "") + sum(len(c.name) + len(c.arguments) for c in reply.calls)
    completion = max(1, written // 4 + reasoning)
    usage: Usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    if reasoning:
        usage["reasoning_tokens"] = reasoning
    return usage


def build_result(
    reply: Reply,
    *,
    call_ids: list[str],
    format: str,
    usage: Usage,
    blocks: list[dict[str, Any]] | None = None,
    raw_finish: str | None = None,
    error: ProviderError | None = None,
) -> StreamResult:
    message: Message = {"role": "assistant", "content": reply.text or None}
    if reply.calls:
        message["tool_calls"] = [
            _call(call_id, c.name, c.arguments) for call_id, c in zip(call_ids, reply.calls, strict=True)
        ]
    data: ProviderData = {}
    if reply.reasoning:
        data["reasoning"] = reply.reasoning
    if blocks:
        data["blocks"] = blocks
    if data:
        message["provider_data"] = {"format": format, **data}
    finish = "length" if reply.truncated else "tool_calls" if reply.calls else "stop"
    if error is not None:
        return StreamResult(message, "error", None, usage, error, complete=False)
    return StreamResult(message, finish, raw_finish, usage, None, complete=True)


def _call(call_id: str, name: str, arguments: str) -> ToolCall:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
