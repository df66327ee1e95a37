"""Internal ChatRequest -> OpenAI Responses request body (``POST /v1/responses``).

* A first system message with text content becomes ``instructions``; every other system or developer message
  stays in place as an input item with its role (Responses has both roles).
* Messages become ``input`` items (``messages``), assistant turns runs of items (``assistant``), tool messages
  ``function_call_output`` items paired on ``call_id``. Unlike Chat, outputs need not follow their call directly,
  but each must answer a call of an earlier assistant message (else ``TranslationError``), and a call without an
  output is noted (the API rejects it: "No tool output found for function call").
* ``max_tokens`` -> ``max_output_tokens`` (which also counts reasoning tokens); ``tools``/``tool_choice``/
  ``reasoning`` per ``toplevel``; ``parallel_tool_calls``, ``temperature``, ``stream`` as they are.
* Reasoning on: ``store: false`` and ``include: ["reasoning.encrypted_content"]``, so every reasoning item comes
  back with its encrypted content and can be resent (Crosswire keeps no server-side state). A ``store`` or
  ``include`` kept at import wins; the encrypted content is added to a kept ``include`` whenever ``store`` is false.
* Unknown top-level fields kept at import (``metadata``, ``text``, ``truncation``, ``previous_response_id``...) go
  back as they came (same format only).
"""

from __future__ import annotations

from typing import Any

from providers.openai_responses.assistant import assistant_items
from providers.openai_responses.messages import encode_message, encode_tool_message
from providers.openai_responses.toplevel import reasoning_on, reasoning_to_wire, tool_choice_to_wire, tools_to_wire
from providers.openai_responses.wire import ENCRYPTED_REASONING, REASONING, kept_fields, note_foreign, plural
from providers.translation import Translation, TranslationError
from providers.types import ChatRequest, Message

# Wire keys derived from internal fields; a kept copy of one of these is used only as the rules above say.
DERIVED_KEYS = frozenset({"instructions", "input", "tools", "tool_choice", "reasoning", "store", "include"})
_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})


def encode_request(request: ChatRequest) -> Translation[dict[str, Any]]:
    if not isinstance(request, dict):
        raise TranslationError("a request must be a JSON object")
    messages = request.get("messages")
    notes = check_calls(messages)
    note_foreign(request.get("provider_data"), "request", notes)
    kept = kept_fields(request)
    body: dict[str, Any] = {"model": request["model"]} if "model" in request else {}
    lifted = _instructions(messages, kept, notes)  # type: ignore[arg-type]
    if lifted is not None:
        body["instructions"] = lifted
    body["input"] = _input(messages[1 if lifted is not None else 0 :], 1 if lifted is not None else 0, kept, notes)  # type: ignore[index]
    if request.get("tools") or "tools" in kept:
        body["tools"] = tools_to_wire(request.get("tools") or [], kept.get("tools"), notes)
    choice = tool_choice_to_wire(request.get("tool_choice"), kept.get("tool_choice"))
    if choice is not None:
        body["tool_choice"] = choice
    for key in ("parallel_tool_calls", "temperature"):
        if key in request:
            body[key] = request[key]  # type: ignore[literal-required]
    if "max_tokens" in request:
        body["max_output_tokens"] = request["max_tokens"]
    _reasoning(body, request, kept, notes)
    _note_unreplayable(body, notes)
    if "stream" in request:
        body["stream"] = request["stream"]
    _carry_fields(body, kept, notes)
    return Translation(body, notes)


def check_calls(messages: Any) -> list[str]:
    """Reject what the API cannot pair (outputs for unknown calls, empty ids); return notes on the rest."""
    if not isinstance(messages, list):
        raise TranslationError("messages must be a list of message objects")
    notes: list[str] = []
    called: dict[str, int] = {}
    answered: set[str] = set()
    for position, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in _ROLES:
            raise TranslationError(f"message {position}: not a message object with a known role")
        if message["role"] == "assistant":
            called.update((call_id, position) for call_id in _call_ids(message, position))
        elif message["role"] == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str) or not call_id.strip():
                raise TranslationError(f"message {position} (tool): tool_call_id is empty or missing")
            if call_id not in called:
                raise TranslationError(
                    f"message {position} (tool): tool_call_id {call_id!r} matches no call of an earlier assistant "
                    "message (a function_call_output must answer a function_call before it)"
                )
            if call_id in answered:
                notes.append(f"message {position} (tool): call {call_id!r} already has an output; this one is sent too")
            answered.add(call_id)
    notes.extend(
        f"message {position}: call {call_id!r} has no function_call_output; OpenAI rejects an unanswered call"
        for call_id, position in called.items()
        if call_id not in answered
    )
    return notes


def _call_ids(message: dict[str, Any], position: int) -> list[str]:
    calls = message.get("tool_calls")
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise TranslationError(f"message {position} (assistant): tool_calls must be a list")
    ids: list[str] = []
    for number, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("function", {}), dict):
            raise TranslationError(f"message {position} (assistant): tool call {number} is not a call object")
        call_id = call.get("id")
        if not isinstance(call_id, str) or not call_id.strip():
            raise TranslationError(
                f"message {position} (assistant): tool call {number} has an empty or missing id "
                "(its function_call_output could not refer to it)"
            )
        ids.append(call_id)
    return ids


def _instructions(messages: list[Message], kept: dict[str, Any], notes: list[str]) -> str | None:
    """The first system message's text, lifted to ``instructions`` (unless it came in as an input item)."""
    first = messages[0] if messages else None
    if first is None or first.get("role") != "system" or not isinstance(first.get("content"), str):
        return None
    if "instructions" in kept and kept["instructions"] is None:
        return None  # imported from an input item, not from instructions: it goes back there
    if (first.get("provider_data") or {}).get("fields"):
        return None  # an input item with fields of its own (an id, a type) is resent as that item
    notes.append("message 0 (system): sent as `instructions`")
    return first["content"]


def _input(messages: list[Message], offset: int, kept: dict[str, Any], notes: list[str]) -> Any:
    items: list[dict[str, Any]] = []
    for position, message in enumerate(messages, start=offset):
        role = message.get("role")
        where = f"message {position} ({role})"
        if role == "assistant":
            run = assistant_items(message, where, notes)
            if not run:
                notes.append(f"{where}: empty assistant message dropped (no text, no tool calls, no items)")
            elif all(item.get("type") == REASONING for item in run):
                notes.append(
                    f"{where}: its reasoning items have no item after them (no text, no call); OpenAI rejects a "
                    "reasoning item sent without its following item"
                )
            items.extend(run)
        elif role == "tool":
            items.append(encode_tool_message(message, where, notes))
        else:
            items.append(encode_message(message, where, notes))
    carried = sum(1 for item in items if item.get("type") == REASONING)
    if carried:
        notes.append(
            f"{plural(carried, 'reasoning item')} carried back unchanged, each before the item that followed it"
        )
    original = kept.get("input")
    if isinstance(original, str) and items == [{"role": "user", "content": original}]:
        return original  # it came as a bare string: it goes back as one
    return items


def _reasoning(body: dict[str, Any], request: ChatRequest, kept: dict[str, Any], notes: list[str]) -> None:
    reasoning = reasoning_to_wire(request.get("reasoning"), kept.get("reasoning"), notes)
    if reasoning is not None:
        body["reasoning"] = reasoning
    if not reasoning_on(request.get("reasoning")):
        return
    if "temperature" in body:
        notes.append("temperature with reasoning on: OpenAI reasoning models reject it")
    if "max_output_tokens" in body:
        notes.append("max_output_tokens also counts the reasoning tokens")
    body["store"] = kept.get("store", False)
    include = list(kept["include"]) if isinstance(kept.get("include"), list) else []
    if body["store"] is False and ENCRYPTED_REASONING not in include:
        include.append(ENCRYPTED_REASONING)
        notes.append(
            "reasoning on: store: false with include reasoning.encrypted_content, so reasoning items come back "
            "and are resent with the conversation"
        )
    if include:
        body["include"] = include


def _note_unreplayable(body: dict[str, Any], notes: list[str]) -> None:
    """Without storage the API cannot look a reasoning item up by its id: it must carry its encrypted content."""
    if body.get("store") is not False or not isinstance(body.get("input"), list):
        return
    missing = [
        str(item.get("id"))
        for item in body["input"]
        if item.get("type") == REASONING and not item.get("encrypted_content")
    ]
    if missing:
        notes.append(
            f"reasoning items without encrypted_content ({', '.join(missing)}): with store: false OpenAI cannot find "
            "them and rejects the request"
        )


def _carry_fields(body: dict[str, Any], kept: dict[str, Any], notes: list[str]) -> None:
    derived = DERIVED_KEYS if "store" in body else DERIVED_KEYS - {"store", "include"}
    extra = {key: value for key, value in kept.items() if key not in derived and key not in body}
    body.update(extra)
    if extra:
        notes.append(f"request fields carried back unchanged: {', '.join(extra)}")
