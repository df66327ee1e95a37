"""Small pieces shared by the request, response and stream halves of the OpenAI Responses codec.

Usage: ``input_tokens`` already includes cached tokens (as on Chat), so it maps straight onto ``prompt_tokens``;
``cached_tokens`` and ``cache_write_tokens`` come from ``input_tokens_details``, ``reasoning_tokens`` from
``output_tokens_details`` (and are part of ``output_tokens``).

Finish: a response has a ``status``, not a finish reason. ``completed`` is ``stop`` (the accumulator turns it into
``tool_calls`` when calls were made); ``incomplete`` says why in ``incomplete_details.reason``: ``max_output_tokens``
is ``length``, ``content_filter`` is ``content_filter``, any other reason counts as cut short (``length``). The raw
reason kept is the incomplete reason, else the status.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from providers.types import Message, ProviderData, ToolCall, Usage

NAME = "openai-responses"
ENCRYPTED_REASONING = "reasoning.encrypted_content"  # the `include` value that returns reasoning to replay
DROPPED = "target format has no equivalent"

# Item types of a conversation's assistant side that have a slot of their own in the internal message; every other
# assistant-side item (reasoning, hosted-tool calls, item_reference...) is an opaque block resent unchanged.
MESSAGE = "message"
FUNCTION_CALL = "function_call"
FUNCTION_CALL_OUTPUT = "function_call_output"
REASONING = "reasoning"
# Keys of a function_call item that the internal ToolCall models; the rest (the item ``id`` first) is kept.
CALL_KEYS: frozenset[str] = frozenset({"type", "call_id", "name", "arguments"})

_INCOMPLETE: dict[str, str] = {"max_output_tokens": "length", "content_filter": "content_filter"}
INCOMPLETE_REASONS: frozenset[str] = frozenset(_INCOMPLETE)


def finish_reason(status: str, incomplete_reason: str | None) -> str:
    if status == "incomplete":
        # An unknown reason still means the answer was cut off: whoever runs the calls must not trust the last one.
        return _INCOMPLETE.get(incomplete_reason or "", "length")
    return "stop"


def raw_reason(response: dict[str, Any]) -> str | None:
    details = response.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, dict) else None
    if isinstance(reason, str) and reason:
        return reason
    status = response.get("status")
    return status if isinstance(status, str) else None


def wire_status(finish: str | None, raw: str | None) -> tuple[str, str | None]:
    """(status, incomplete reason) for an internal finish: the raw reason wins when it still says the same.

    ``tool_calls`` is the accumulator's verdict whenever calls were seen (unless cut by length), so with it an
    incomplete raw reason (``content_filter`` after a call) is still what the provider said.
    """
    if raw == "incomplete" and finish in ("length", "content_filter", "tool_calls"):
        return "incomplete", None  # incomplete without details, as it came
    if raw in INCOMPLETE_REASONS and (finish == "tool_calls" or _INCOMPLETE[raw] == finish):
        return "incomplete", raw
    if finish in ("length", "content_filter"):
        return "incomplete", "max_output_tokens" if finish == "length" else "content_filter"
    return "completed", None


# --- usage -------------------------------------------------------------------------------------------------------


def usage_from_wire(raw: dict[str, Any]) -> Usage:
    usage: Usage = {}
    prompt, completion = _int(raw.get("input_tokens")), _int(raw.get("output_tokens"))
    if prompt is not None:
        usage["prompt_tokens"] = prompt
    if completion is not None:
        usage["completion_tokens"] = completion
    total = _int(raw.get("total_tokens"))
    if total is None and prompt is not None and completion is not None:
        total = prompt + completion
    if total is not None:
        usage["total_tokens"] = total
    inputs, outputs = _dict(raw.get("input_tokens_details")), _dict(raw.get("output_tokens_details"))
    for internal, group, key in (
        ("cached_tokens", inputs, "cached_tokens"),
        ("cache_creation_tokens", inputs, "cache_write_tokens"),
        ("reasoning_tokens", outputs, "reasoning_tokens"),
    ):
        value = _int(group.get(key))
        if value is not None:
            usage[internal] = value  # type: ignore[literal-required]
    return usage


def usage_to_wire(usage: Usage | None) -> dict[str, Any]:
    usage = usage or {}
    prompt, completion = usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)
    inputs = {"cached_tokens": usage.get("cached_tokens", 0)}
    if "cache_creation_tokens" in usage:  # newer responses only: recorded ones have no cache_write_tokens
        inputs["cache_write_tokens"] = usage["cache_creation_tokens"]
    return {
        "input_tokens": prompt,
        "input_tokens_details": inputs,
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": usage.get("reasoning_tokens", 0)},
        "total_tokens": usage.get("total_tokens", prompt + completion),
    }


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


# --- ids and arguments -------------------------------------------------------------------------------------------


def synthetic_id(prefix: str, response_id: str, position: int) -> str:
    """A stable id for what arrived without one (or what we write): different between responses, same within one."""
    digest = hashlib.sha1(f"{response_id}:{position}".encode()).hexdigest()[:24]
    return f"{prefix}_{digest}"


def arguments_text(value: Any, where: str, notes: list[str]) -> str:
    """The wire ``arguments`` string: ``""``/null -> ``"{}"``; a JSON value -> its text; non-JSON kept, noted."""
    if value is not None and not isinstance(value, str):
        notes.append(f"{where}: arguments were a JSON value, not a string; sent as its JSON text")
        value = json.dumps(value, ensure_ascii=False)
    if value is None or not value.strip():
        return "{}"
    try:
        json.loads(value)
    except ValueError:
        notes.append(f"{where}: arguments are not valid JSON; kept verbatim: {value[:80]!r}")
    return value


# --- provider_data -----------------------------------------------------------------------------------------------


def same_format(item: Message | ToolCall | dict[str, Any]) -> ProviderData:
    data = item.get("provider_data") or {}
    return data if isinstance(data, dict) and data.get("format") == NAME else {}  # type: ignore[return-value]


def kept_fields(item: Message | ToolCall | dict[str, Any]) -> dict[str, Any]:
    return dict(same_format(item).get("fields") or {})


def note_foreign(data: Any, where: str, notes: list[str]) -> None:
    """provider_data of another format has no meaning here: say what is left behind."""
    if not isinstance(data, dict) or not data or data.get("format") == NAME:
        return
    origin = data.get("format") or "an unlabelled format"
    if data.get("reasoning") or data.get("blocks"):
        notes.append(f"reasoning dropped: {DROPPED} ({where}, from {origin})")
    if data.get("fields"):
        names = ", ".join(sorted(data["fields"]))
        notes.append(f"{where}: {origin} fields dropped ({names}): {DROPPED}")


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
