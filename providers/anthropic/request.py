"""Internal ChatRequest -> Anthropic Messages request body.

Request-level rules: ``max_tokens`` is required (4096 when missing) and must exceed the thinking budget; system
messages become the top-level ``system``; tools carry ``input_schema``; ``tool_choice`` is an object that also holds
the parallel switch; ``reasoning`` becomes ``thinking``. Wire values kept at import (``provider_data.fields`` of this
format) go back as they came: unknown keys always, ``system``/``tools``/``tool_choice``/``thinking`` only while the
internal request still says the same thing.
"""

from __future__ import annotations

from typing import Any

from providers.anthropic.assistant import REASONING_BLOCKS
from providers.anthropic.content import note_foreign, same_format_data
from providers.anthropic.mapping import DEFAULT_MAX_TOKENS, tool_choice_from_wire, tool_choice_to_wire
from providers.anthropic.messages import MessageEncoder
from providers.anthropic.toplevel import system_to_wire, thinking_to_wire, tools_to_wire, unchanged
from providers.translation import Translation
from providers.types import ChatRequest

# Wire keys derived from internal fields; a kept copy of one of these is used only while it still matches.
DERIVED_KEYS = frozenset({"system", "tools", "tool_choice", "thinking"})


def encode_request(request: ChatRequest) -> Translation[dict[str, Any]]:
    notes: list[str] = []
    note_foreign(request.get("provider_data"), "request", notes)
    kept = dict(same_format_data(request).get("fields") or {})
    encoder = MessageEncoder(notes)
    encoder.run(request.get("messages") or [])
    thinking, budget = thinking_to_wire(request.get("reasoning"), kept.get("thinking"), notes)
    body: dict[str, Any] = {"model": request.get("model") or "", "max_tokens": _max_tokens(request, budget, notes)}
    system = system_to_wire(encoder.system, kept.get("system"), notes)
    if system is not None:
        body["system"] = system
    body["messages"] = encoder.out
    if request.get("tools") or "tools" in kept:
        body["tools"] = tools_to_wire(request.get("tools") or [], kept.get("tools"), notes)
    choice = _tool_choice(request, kept.get("tool_choice"), notes)
    if choice is not None:
        body["tool_choice"] = choice
    if thinking is not None:
        body["thinking"] = thinking
    for key in ("temperature", "stream"):
        if key in request:
            body[key] = request[key]  # type: ignore[literal-required]
    if thinking and thinking.get("type") == "enabled":
        _check_thinking(body, notes)
    _carry_fields(body, kept, notes)
    return Translation(body, notes)


def _carry_fields(body: dict[str, Any], kept: dict[str, Any], notes: list[str]) -> None:
    extra = {key: value for key, value in kept.items() if key not in DERIVED_KEYS and key not in body}
    body.update(extra)
    if extra:
        notes.append(f"request fields carried back unchanged: {', '.join(extra)}")


def _check_thinking(body: dict[str, Any], notes: list[str]) -> None:
    """What Anthropic refuses with thinking on, said before the request goes (the request is sent unchanged)."""
    if body.get("temperature", 1) != 1:
        notes.append(f"temperature {body['temperature']} with thinking enabled: Anthropic accepts only 1")
    turns = [message for message in body["messages"] if message["role"] == "assistant"]
    last = turns[-1]["content"] if turns else []
    if any(block.get("type") == "tool_use" for block in last) and last[0].get("type") not in REASONING_BLOCKS:
        notes.append(
            "thinking is enabled but the last assistant turn has no thinking block to send back "
            "(from another format, or made without thinking); Anthropic rejects such a tool loop"
        )


def _max_tokens(request: ChatRequest, budget: int | None, notes: list[str]) -> int:
    value = request.get("max_tokens")
    if value is None:
        value = DEFAULT_MAX_TOKENS
        notes.append(f"max_tokens set to {value} (required by Anthropic)")
    if budget is not None and value <= budget:
        raised = budget + DEFAULT_MAX_TOKENS
        notes.append(f"max_tokens raised from {value} to {raised}: it must exceed the thinking budget ({budget})")
        value = raised
    return value


def _tool_choice(request: ChatRequest, kept: Any, notes: list[str]) -> dict[str, Any] | None:
    choice, parallel = request.get("tool_choice"), request.get("parallel_tool_calls")
    if unchanged(kept, (choice, parallel), tool_choice_from_wire):
        return dict(kept)
    wire = tool_choice_to_wire(choice, parallel, notes)
    reasoning = request.get("reasoning")
    thinking_on = reasoning is not None and reasoning.get("enabled", True)
    if wire is not None and wire["type"] in ("any", "tool") and thinking_on:
        notes.append(f"tool_choice `{wire['type']}` with thinking enabled: Anthropic accepts only auto or none")
    return wire
