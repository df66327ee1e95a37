"""Gemini request body -> internal ChatRequest (what a pasted or recorded request becomes).

The reverse of ``request.py``: ``systemInstruction`` becomes system messages at the start; a ``model`` content one
assistant message (``assistant``); a ``user`` content's ``functionResponse`` parts become ``role: "tool"`` messages
(first), its other parts one user message after them. Gemini (<= 2.5) sends no call ids, so calls get stable
synthetic ones (from their content's position) and each response is paired with a call of the model content before
it: by ``id`` when both have one, else by name, in order. Whatever has no internal slot is kept in
``provider_data`` of format ``gemini`` (unknown request keys and ``generationConfig`` keys verbatim; ``tools``,
``toolConfig``, ``thinkingConfig``, ``systemInstruction`` whole when re-encoding would not give them back), so
``encode_request(import_request(body))`` sends the same request.

Lossy on purpose: a content without ``role`` comes back with ``role: "user"``, legacy ``role: "function"`` as
``user``; text and function responses in one content come back as two contents (responses, then the text), and so
do images sent beside function responses (the wire does not say which result an image belonged to, so they become
a user message after the tool messages); an empty ``generationConfig`` is not sent back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from providers.gemini.assistant import assistant_from_parts, wire_call_id
from providers.gemini.parts import tool_message, user_message
from providers.gemini.toplevel import (
    needs_keeping,
    reasoning_from_wire,
    system_from_wire,
    system_to_wire,
    thinking_to_wire,
    tool_choice_from_wire,
    tool_config_to_wire,
    tools_from_wire,
    tools_to_wire,
)
from providers.gemini.wire import NAME, plural
from providers.translation import Translation, TranslationError
from providers.types import ChatRequest, Message, ToolCall

_KNOWN = frozenset({"model", "contents", "systemInstruction", "tools", "toolConfig", "generationConfig"})
_MAPPED_CONFIG = frozenset({"temperature", "maxOutputTokens", "thinkingConfig"})
# Kept keys that are derived values (noted on their own), not unknown request fields.
_WHOLE = frozenset({"tools", "toolConfig", "systemInstruction", "generationConfig"})


def import_request(body: dict[str, Any]) -> Translation[ChatRequest]:
    if not isinstance(body, dict) or not isinstance(body.get("contents"), list):
        raise TranslationError("a Gemini request needs a `contents` list")
    notes: list[str] = []
    kept: dict[str, Any] = {key: value for key, value in body.items() if key not in _KNOWN}
    request: ChatRequest = {}
    if "model" in body:
        request["model"] = body["model"]
    system = system_from_wire(body.get("systemInstruction"))
    if system:
        notes.append(f"`systemInstruction` became {plural(len(system), 'system message')} at the start")
    request["messages"] = system + _messages(body["contents"], notes)
    _generation(body.get("generationConfig"), request, kept)
    _derived(body, request, kept)
    plain = [key for key in kept if key not in _WHOLE]
    if plain:
        notes.append(f"request fields kept in provider_data for {NAME}: {', '.join(plain)}")
    for key in (key for key in ("tools", "toolConfig", "systemInstruction") if key in kept):
        notes.append(f"`{key}` kept whole in provider_data for {NAME} (it has entries with no internal equivalent)")
    if isinstance(kept.get("generationConfig"), dict):
        names = ", ".join(kept["generationConfig"])
        notes.append(f"generationConfig fields kept in provider_data for {NAME}: {names}")
    if kept:
        request["provider_data"] = {"format": NAME, "fields": kept}
    return Translation(request, notes)


def _generation(config: Any, request: ChatRequest, kept: dict[str, Any]) -> None:
    if config is None:
        return
    if not isinstance(config, dict):
        raise TranslationError("`generationConfig` must be an object")
    if "temperature" in config:
        request["temperature"] = config["temperature"]
    if "maxOutputTokens" in config:
        request["max_tokens"] = config["maxOutputTokens"]
    rest = {key: value for key, value in config.items() if key not in _MAPPED_CONFIG}
    if "thinkingConfig" in config:
        thinking = config["thinkingConfig"]
        reasoning = reasoning_from_wire(thinking)
        if reasoning is not None:
            request["reasoning"] = reasoning
        if needs_keeping(thinking, reasoning_from_wire, lambda r: thinking_to_wire(r, None, [])):
            rest["thinkingConfig"] = thinking
    if rest:
        kept["generationConfig"] = rest


def _derived(body: dict[str, Any], request: ChatRequest, kept: dict[str, Any]) -> None:
    """tools, toolConfig, systemInstruction: the internal value, plus the original when it would not come back."""
    if "tools" in body:
        request["tools"] = tools_from_wire(body["tools"])
        if needs_keeping(body["tools"], tools_from_wire, lambda tools: tools_to_wire(tools, None, [])):
            kept["tools"] = body["tools"]
    if "toolConfig" in body:
        choice = tool_choice_from_wire(body["toolConfig"])
        if choice is not None:
            request["tool_choice"] = choice
        if needs_keeping(body["toolConfig"], tool_choice_from_wire, lambda c: tool_config_to_wire(c, None)):
            kept["toolConfig"] = body["toolConfig"]
    system = body.get("systemInstruction")
    if system is not None and needs_keeping(system, system_from_wire, lambda m: system_to_wire(m, None, [])):
        kept["systemInstruction"] = system


# --- contents ----------------------------------------------------------------------------------------------------


@dataclass
class _Pairing:
    """The calls of the latest model content, for the function responses that follow it."""

    calls: list[ToolCall] = field(default_factory=list)
    matched: set[int] = field(default_factory=set)

    def match(self, response: dict[str, Any]) -> ToolCall | None:
        """By id when both have one; else the first unmatched call of that name."""
        response_id = response.get("id")
        candidates = (
            [n for n, call in enumerate(self.calls) if n not in self.matched and wire_call_id(call) == response_id]
            if response_id
            else []
        )
        if not candidates:
            name = response.get("name")
            candidates = [
                n for n, call in enumerate(self.calls) if n not in self.matched and call["function"]["name"] == name
            ]
        if not candidates:
            return None
        self.matched.add(candidates[0])
        return self.calls[candidates[0]]


def _messages(contents: list[Any], notes: list[str]) -> list[Message]:
    messages: list[Message] = []
    pairing = _Pairing()
    for position, content in enumerate(contents):
        if not isinstance(content, dict):
            raise TranslationError(f"contents[{position}] is not an object")
        parts = content.get("parts")
        if parts is not None and not isinstance(parts, list):
            raise TranslationError(f"contents[{position}]: `parts` must be a list")
        parts = [part for part in parts or [] if isinstance(part, dict)]
        extras = {key: value for key, value in content.items() if key not in ("role", "parts")}
        role = content.get("role")
        if role == "model":
            message, turn_notes = assistant_from_parts(parts, seed=f"contents.{position}", extras=extras)
            notes.extend(f"contents[{position}]: {note}" for note in turn_notes)
            messages.append(message)
            pairing = _Pairing(list(message.get("tool_calls") or []))
        elif role in ("user", "function", None):
            if role != "user":
                notes.append(f"contents[{position}]: role {role or 'missing'} read as user")
            messages.extend(_user(position, parts, extras, pairing, notes))
        else:
            raise TranslationError(f"contents[{position}]: role {role!r} is neither user nor model")
    return messages


def _user(
    position: int, parts: list[dict[str, Any]], extras: dict[str, Any], pairing: _Pairing, notes: list[str]
) -> list[Message]:
    responses = [part for part in parts if isinstance(part.get("functionResponse"), dict)]
    others = [part for part in parts if not isinstance(part.get("functionResponse"), dict)]
    messages = [_tool(position, part, pairing) for part in responses]
    if responses:
        how = "by id" if all(part["functionResponse"].get("id") for part in responses) else "by name and position"
        notes.append(
            f"contents[{position}]: {plural(len(responses), 'function response')} became tool messages "
            f"(paired with their calls {how})"
        )
    if responses and others:
        notes.append(f"contents[{position}]: its other parts became a user message after the tool messages")
    if others or not responses:
        messages.append(user_message(others, extras))
    elif extras:
        notes.append(f"contents[{position}]: content fields dropped (a responses-only content has no internal home)")
    return messages


def _tool(position: int, part: dict[str, Any], pairing: _Pairing) -> Message:
    response = part["functionResponse"]
    call = pairing.match(response)
    if call is None:
        raise TranslationError(
            f"contents[{position}]: the function response to {response.get('name')!r} answers no call of the model "
            "content before it"
        )
    return tool_message(part, call["id"], wire_call_id(call), call["function"]["name"])
