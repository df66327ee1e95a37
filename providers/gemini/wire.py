"""Small pieces shared by the request, response and stream halves of the Gemini codec.

Finish: ``finishReason`` has no tool-call value (a turn with calls says ``STOP``; the accumulator decides
``tool_calls`` from the calls). ``MAX_TOKENS`` is ``length``; the safety family (``SAFETY``, ``RECITATION``,
``BLOCKLIST``, ``PROHIBITED_CONTENT``, ``SPII``, ``IMAGE_SAFETY``...) is ``content_filter``; the calls the model
botched (``MALFORMED_FUNCTION_CALL``, ``UNEXPECTED_TOOL_CALL``, ``TOO_MANY_TOOL_CALLS``) are ``error``, so a broken
call is never read as a finished answer; anything else (``OTHER``, an enum value added later) is ``stop``. The raw
value always stays in ``Finish.raw_reason``.

Usage: ``promptTokenCount`` includes cached tokens (as on OpenAI), ``thoughtsTokenCount`` is *not* part of
``candidatesTokenCount``, so completion_tokens = candidates + thoughts; ``totalTokenCount`` includes the thoughts.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from providers.types import Message, ProviderData, ToolCall, Usage

NAME = "gemini"
DROPPED = "target format has no equivalent"
RAW_ARGUMENTS_KEY = "_raw_arguments"  # carries argument text that is not a JSON object (see args_to_wire)
SIGNATURE = "thoughtSignature"

FINISH_REASONS: dict[str, str] = {
    "STOP": "stop",
    "OTHER": "stop",
    "FINISH_REASON_UNSPECIFIED": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "LANGUAGE": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "IMAGE_PROHIBITED_CONTENT": "content_filter",
    "IMAGE_RECITATION": "content_filter",
    "MALFORMED_FUNCTION_CALL": "error",
    "UNEXPECTED_TOOL_CALL": "error",
    "TOO_MANY_TOOL_CALLS": "error",
}
# The wire reason written for an internal one when the raw reason is unknown or belongs to another format.
_WIRE_FINISH: dict[str, str] = {
    "stop": "STOP",
    "tool_calls": "STOP",
    "length": "MAX_TOKENS",
    "content_filter": "SAFETY",
    "error": "OTHER",
}


def finish_reason(raw: str | None) -> str:
    return FINISH_REASONS.get(raw or "", "stop")


def wire_finish(reason: str | None, raw: str | None) -> str | None:
    """The raw reason when it still means ``reason``, else the table's; None when there is no finish.

    ``tool_calls`` is the accumulator's verdict whenever calls were seen, so with it any raw reason but
    ``MAX_TOKENS`` is still what the provider said (``SAFETY`` right after a call, for one).
    """
    if reason is None:
        return None
    if raw in FINISH_REASONS and (FINISH_REASONS[raw] == reason or reason == "tool_calls"):
        return raw
    return _WIRE_FINISH.get(reason, "STOP")


# --- usage -------------------------------------------------------------------------------------------------------


def usage_from_wire(raw: dict[str, Any]) -> Usage:
    """Only what the wire says: a count Gemini left out stays out (it omits candidates on a blocked prompt)."""
    prompt, candidates = _int(raw.get("promptTokenCount")), _int(raw.get("candidatesTokenCount"))
    thoughts, cached, total = (
        _int(raw.get("thoughtsTokenCount")),
        _int(raw.get("cachedContentTokenCount")),
        _int(raw.get("totalTokenCount")),
    )
    usage: Usage = {}
    if prompt is not None:
        usage["prompt_tokens"] = prompt
    if candidates is not None or thoughts is not None:
        usage["completion_tokens"] = (candidates or 0) + (thoughts or 0)
    if total is None and prompt is not None and "completion_tokens" in usage:
        total = prompt + usage["completion_tokens"]
    if total is not None:
        usage["total_tokens"] = total
    if cached is not None:
        usage["cached_tokens"] = cached
    if thoughts is not None:
        usage["reasoning_tokens"] = thoughts
    return usage


def usage_to_wire(usage: Usage | None) -> dict[str, int]:
    usage = usage or {}
    wire: dict[str, int] = {}
    if "prompt_tokens" in usage:
        wire["promptTokenCount"] = usage["prompt_tokens"]
    reasoning = usage.get("reasoning_tokens")
    if "completion_tokens" in usage:
        wire["candidatesTokenCount"] = max(usage["completion_tokens"] - (reasoning or 0), 0)
    if "total_tokens" in usage:
        wire["totalTokenCount"] = usage["total_tokens"]
    if "cached_tokens" in usage:
        wire["cachedContentTokenCount"] = usage["cached_tokens"]
    if reasoning is not None:
        wire["thoughtsTokenCount"] = reasoning
    return wire


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# --- ids and arguments -------------------------------------------------------------------------------------------


def synthetic_call_id(seed: str, position: int, name: str, arguments: str) -> str:
    """A stable id for a call that came without one (Gemini <= 2.5 sends none).

    ``seed`` is the response id (decoding) or the content's position (importing); the name and arguments are mixed
    in so that two turns of a response without ``responseId`` still get different ids. The same call decoded from
    a stream or from the whole response gets the same id: both see the whole call.
    """
    digest = hashlib.sha1(f"{seed}:{position}:{name}:{arguments}".encode()).hexdigest()[:24]
    return f"call_{digest}"


def args_to_arguments(value: Any) -> str:
    """Gemini ``args`` -> the internal JSON string, serialised once (compact, like OpenAI's own)."""
    if value is None or value == {}:
        return "{}"
    if isinstance(value, str):
        return value or "{}"  # not an object on the wire; keep the text as it came
    raw = value.get(RAW_ARGUMENTS_KEY) if isinstance(value, dict) and len(value) == 1 else None
    if isinstance(raw, str) and not _is_json_object(raw):
        return raw
    return compact(value)


def arguments_to_args(arguments: Any, where: str, notes: list[str]) -> dict[str, Any]:
    """The internal JSON string -> Gemini's ``args`` object, parsed exactly once, here.

    Text that is not a JSON object cannot be ``args``; it travels as ``{"_raw_arguments": "<text>"}`` so the call is
    neither dropped nor refused, the model sees what was sent, and importing restores the text verbatim.
    """
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        return {}
    if isinstance(arguments, dict):
        return arguments
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return value
    notes.append(f'{where}: arguments are not a JSON object; sent verbatim as {{"{RAW_ARGUMENTS_KEY}": …}}')
    return {RAW_ARGUMENTS_KEY: text}


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


# --- provider_data -----------------------------------------------------------------------------------------------


def same_format(item: Message | ToolCall | dict[str, Any]) -> ProviderData:
    data = item.get("provider_data") or {}
    return data if isinstance(data, dict) and data.get("format") == NAME else {}  # type: ignore[return-value]


def kept_fields(item: Message | ToolCall | dict[str, Any]) -> dict[str, Any]:
    fields = same_format(item).get("fields")
    return dict(fields) if isinstance(fields, dict) else {}


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
