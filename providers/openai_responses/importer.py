"""OpenAI Responses request body -> internal ChatRequest (what a pasted or recorded request becomes).

The reverse of ``request.py``: ``instructions`` becomes a system message at the start; ``input`` (a string, or a
list of items) becomes messages: user/system/developer items one message each, each ``function_call_output`` one
tool message, and every run of assistant-side items (reasoning, the assistant's message, function calls, hosted-tool
items...) one assistant message (see ``assistant``). Whatever has no internal slot is kept in ``provider_data`` of
format ``openai-responses`` (unknown request keys verbatim; ``tools``, ``tool_choice``, ``reasoning`` whole when
re-encoding would not give them back), so ``encode_request(import_request(body))`` sends the same request.

Lossy on purpose: a request with reasoning on but without ``store: false`` comes back with it (and with the
encrypted reasoning included), since Crosswire replays reasoning itself.
"""

from __future__ import annotations

from typing import Any

from providers.openai_responses.assistant import assistant_from_items, item_kind
from providers.openai_responses.messages import message_from_item, tool_message_from_item
from providers.openai_responses.toplevel import (
    needs_keeping,
    reasoning_from_wire,
    reasoning_on,
    reasoning_to_wire,
    tool_choice_from_wire,
    tool_choice_to_wire,
    tools_from_wire,
    tools_to_wire,
)
from providers.openai_responses.wire import (
    ENCRYPTED_REASONING,
    FUNCTION_CALL,
    FUNCTION_CALL_OUTPUT,
    MESSAGE,
    NAME,
    REASONING,
    plural,
)
from providers.translation import Translation, TranslationError
from providers.types import ChatRequest, Message

_KNOWN = frozenset(
    {"model", "instructions", "input", "tools", "tool_choice", "parallel_tool_calls", "temperature"}
    | {"max_output_tokens", "reasoning", "stream"}
)
_INPUT_ROLES = frozenset({"user", "system", "developer"})
# Kept keys that are derived values (noted on their own), not unknown request fields.
_WHOLE = frozenset({"tools", "tool_choice", "reasoning", "input", "instructions"})


def import_request(body: dict[str, Any]) -> Translation[ChatRequest]:
    if not isinstance(body, dict):
        raise TranslationError("a Responses request body must be a JSON object")
    notes: list[str] = []
    kept: dict[str, Any] = {key: value for key, value in body.items() if key not in _KNOWN}
    request: ChatRequest = {}
    if "model" in body:
        request["model"] = body["model"]
    messages = _instructions(body, kept, notes) + _input(body.get("input"), kept, notes)
    if messages and messages[0].get("role") == "system" and not isinstance(body.get("instructions"), str):
        kept["instructions"] = None  # an input item, not instructions: encoding must not lift it
    request["messages"] = messages
    for key in ("parallel_tool_calls", "temperature", "stream"):
        if key in body:
            request[key] = body[key]  # type: ignore[literal-required]
    if "max_output_tokens" in body:
        request["max_tokens"] = body["max_output_tokens"]
    _derived(body, request, kept, notes)
    plain = [key for key in kept if key not in _WHOLE]
    if plain:
        notes.append(f"request fields kept in provider_data for {NAME}: {', '.join(plain)}")
    for key in (key for key in ("tools", "tool_choice", "reasoning") if key in kept):
        notes.append(f"`{key}` kept whole in provider_data for {NAME} (it has entries with no internal equivalent)")
    if kept:
        request["provider_data"] = {"format": NAME, "fields": kept}
    return Translation(request, notes)


def _instructions(body: dict[str, Any], kept: dict[str, Any], notes: list[str]) -> list[Message]:
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        notes.append("`instructions` became a system message at the start")
        return [{"role": "system", "content": instructions}]
    if instructions is not None:
        kept["instructions"] = instructions
    return []


def _input(value: Any, kept: dict[str, Any], notes: list[str]) -> list[Message]:
    if isinstance(value, str):
        kept["input"] = value
        notes.append("`input` was a string: one user message")
        return [{"role": "user", "content": value}]
    if value is None:
        return []
    if not isinstance(value, list):
        raise TranslationError("`input` must be a string or a list of items")
    return _messages(value, notes)


def _messages(items: list[Any], notes: list[str]) -> list[Message]:
    messages: list[Message] = []
    run: list[dict[str, Any]] = []
    run_start = 0
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            raise TranslationError(f"input item {position} is not an object")
        kind, role = item_kind(item), item.get("role")
        if (kind == MESSAGE and role in _INPUT_ROLES) or kind == FUNCTION_CALL_OUTPUT:
            messages.extend(_flush(run, run_start, notes))
            run = []
            messages.append(_single(item, position))
            continue
        if kind == MESSAGE and role != "assistant":
            raise TranslationError(f"input item {position}: role {role!r} is not user, system, developer or assistant")
        if kind == FUNCTION_CALL and not _has_call_id(item):
            raise TranslationError(f"input item {position} (function_call): call_id is empty or missing")
        if not run:
            run_start = position
        run.append(item)
    messages.extend(_flush(run, run_start, notes))
    return messages


def _single(item: dict[str, Any], position: int) -> Message:
    if item_kind(item) == FUNCTION_CALL_OUTPUT:
        if not _has_call_id(item):
            raise TranslationError(f"input item {position} (function_call_output): call_id is empty or missing")
        return tool_message_from_item(item)
    return message_from_item(item)


def _flush(run: list[dict[str, Any]], start: int, notes: list[str]) -> list[Message]:
    if not run:
        return []
    message, run_notes = assistant_from_items(run)
    where = f"input items {start}-{start + len(run) - 1}" if len(run) > 1 else f"input item {start}"
    notes.extend(f"{where}: {note}" for note in run_notes)
    blocks = (message.get("provider_data") or {}).get("blocks") or []
    reasoning = sum(1 for block in blocks if block.get("type") == REASONING)
    if reasoning:
        notes.append(f"{where}: {plural(reasoning, 'reasoning item')} kept unchanged in provider_data, to be resent")
    others = sorted({str(block.get("type")) for block in blocks if block.get("type") != REASONING})
    if others:
        notes.append(f"{where}: {', '.join(others)} kept as opaque items of the assistant turn (no internal slot)")
    return [message]


def _has_call_id(item: dict[str, Any]) -> bool:
    return isinstance(item.get("call_id"), str) and bool(item["call_id"].strip())


def _derived(body: dict[str, Any], request: ChatRequest, kept: dict[str, Any], notes: list[str]) -> None:
    """tools, tool_choice, reasoning: the internal value, plus the original when it would not come back."""
    if "tools" in body:
        request["tools"] = tools_from_wire(body["tools"])
        if needs_keeping(body["tools"], tools_from_wire, lambda tools: tools_to_wire(tools, None, [])):
            kept["tools"] = body["tools"]
    if "tool_choice" in body:
        choice = tool_choice_from_wire(body["tool_choice"])
        if choice is not None:
            request["tool_choice"] = choice
        if needs_keeping(body["tool_choice"], tool_choice_from_wire, lambda c: tool_choice_to_wire(c, None)):
            kept["tool_choice"] = body["tool_choice"]
    if "reasoning" in body:
        reasoning = reasoning_from_wire(body["reasoning"])
        if reasoning is not None:
            request["reasoning"] = reasoning
        if needs_keeping(body["reasoning"], reasoning_from_wire, lambda r: reasoning_to_wire(r, None, [])):
            kept["reasoning"] = body["reasoning"]
    if reasoning_on(request.get("reasoning")):
        _implied_storage(kept, notes)


def _implied_storage(kept: dict[str, Any], notes: list[str]) -> None:
    """With reasoning on, ``store: false`` and the encrypted reasoning are what encoding sends anyway."""
    if kept.get("store", False) is False:
        if "store" not in kept:
            notes.append("reasoning is on without `store: false`: encoding will send `store: false`")
        kept.pop("store", None)
        if kept.get("include") == [ENCRYPTED_REASONING]:
            del kept["include"]
