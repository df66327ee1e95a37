"""Internal ChatRequest -> Gemini ``GenerateContentRequest`` body (``POST /v1beta/models/{model}:generateContent``).

* ``model`` is written in the body, as every codec writes it, for the client to put in the URL
  (``/v1beta/models/{model}:generateContent``; Google's parser accepts the field in the body too). Streaming is the
  endpoint (``:streamGenerateContent?alt=sse``), not a field: ``stream`` is dropped, with a note.
* System messages -> ``systemInstruction``; the conversation -> ``contents`` (``messages``); ``tools`` /
  ``toolConfig`` / ``thinkingConfig`` per ``toplevel``; ``temperature`` and ``max_tokens`` (``maxOutputTokens``) in
  ``generationConfig``, beside what was kept of it at import (``topP``, ``stopSequences``...).
* ``parallel_tool_calls`` has no Gemini switch: dropped, with a note.
* Unknown top-level fields kept at import (``safetySettings``, ``cachedContent``, ``labels``...) go back as they
  came (same format only).
"""

from __future__ import annotations

from typing import Any

from providers.gemini.messages import ContentEncoder
from providers.gemini.toplevel import system_to_wire, thinking_to_wire, tool_config_to_wire, tools_to_wire
from providers.gemini.wire import kept_fields, note_foreign
from providers.translation import Translation, TranslationError
from providers.types import ChatRequest

# Wire keys derived from internal fields; a kept copy of one of these is used only as the rules above say.
DERIVED_KEYS = frozenset({"model", "contents", "systemInstruction", "tools", "toolConfig", "generationConfig"})


def encode_request(request: ChatRequest) -> Translation[dict[str, Any]]:
    if not isinstance(request, dict):
        raise TranslationError("a request must be a JSON object")
    messages = request.get("messages")
    if not isinstance(messages, list):
        raise TranslationError("messages must be a list of message objects")
    notes: list[str] = []
    note_foreign(request.get("provider_data"), "request", notes)
    kept = kept_fields(request)
    encoder = ContentEncoder(notes)
    encoder.run(messages)
    body: dict[str, Any] = {"model": request["model"]} if "model" in request else {}
    system = system_to_wire(encoder.system, kept.get("systemInstruction"), notes)
    if system is not None:
        body["systemInstruction"] = system
    body["contents"] = encoder.out
    if request.get("tools") or "tools" in kept:
        body["tools"] = tools_to_wire(request.get("tools") or [], kept.get("tools"), notes)
    tool_config = tool_config_to_wire(request.get("tool_choice"), kept.get("toolConfig"))
    if tool_config is not None:
        body["toolConfig"] = tool_config
    config = _generation_config(request, kept.get("generationConfig"), notes)
    if config:
        body["generationConfig"] = config
    if "parallel_tool_calls" in request:
        notes.append("parallel_tool_calls dropped: Gemini has no switch for parallel function calls")
    if request.get("stream"):
        notes.append("stream: Gemini streams through :streamGenerateContent?alt=sse (there is no body field)")
    _carry_fields(body, kept, notes)
    return Translation(body, notes)


def _generation_config(request: ChatRequest, kept: Any, notes: list[str]) -> dict[str, Any]:
    config = dict(kept) if isinstance(kept, dict) else {}
    kept_thinking = config.pop("thinkingConfig", None)
    if "temperature" in request:
        config["temperature"] = request["temperature"]
    if "max_tokens" in request:
        config["maxOutputTokens"] = request["max_tokens"]
    thinking = thinking_to_wire(request.get("reasoning"), kept_thinking, notes)
    if thinking is not None:
        config["thinkingConfig"] = thinking
    return config


def _carry_fields(body: dict[str, Any], kept: dict[str, Any], notes: list[str]) -> None:
    extra = {key: value for key, value in kept.items() if key not in DERIVED_KEYS and key not in body}
    body.update(extra)
    if extra:
        notes.append(f"request fields carried back unchanged: {', '.join(extra)}")
