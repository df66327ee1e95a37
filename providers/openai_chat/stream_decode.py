"""OpenAI Chat stream decoder: ``data:`` chunks from api.openai.com or any compat server -> clean internal events.

Quirks absorbed (wire-formats.md §6-§7), so that every call is announced once with its 0-based position in
``tool_calls``:

* A fragment is routed by its non-empty ``id`` first (a new id is a new call, even at an ``index`` already used:
  Ollama sends ``index: 0`` for every parallel call), then by ``index`` (whatever it starts at: Anthropic compat
  starts at 1), then, with neither, a fragment carrying a ``name`` starts a new call (Gemini compat, Mistral's two
  calls in one delta) and one without continues the last call.
* A fragment that repeats the name of its call adds nothing (OpenRouter sends the whole call twice: never
  ``llm_versionllm_version``). At a reused ``index`` without an id, a *different* name starts a new call.
* ``arguments`` ``null`` or absent is an empty fragment; whole calls in one chunk are one fragment. Fragments are
  passed on raw and never parsed here (a long stream costs the same per fragment from start to end).
* Ids that are empty or absent get ``call_<8 hex of the response id>_<position>`` (``call_<position>`` when the
  chunks carry no id): stable for one response, different between turns.
* ``finish_reason`` may be missing (OpenRouter), arrive with the last call (Mistral) or carry usage inline
  (Z.ai, Gemini compat); usage may also come in a trailing ``choices: []`` chunk.
* ``reasoning_content`` / ``reasoning`` deltas become ReasoningDelta; the full text is also kept, under the key
  the server used, in a MessageFields event at the end so it is sent back as the server expects (DeepSeek 400s
  without it). OpenRouter ``reasoning_details`` fragments are merged per ``index`` and kept the same way.
* ``{"error": {...}}`` inside a 200 chunk (OpenRouter) and an ``event: error`` SSE event (Groq) -> StreamError.
* ``[DONE]`` -> StreamEnd. A stream cut before it only closes the open call (``close()``), so the result is
  marked incomplete by the accumulator.
* A fragment for a call that was already closed (a server interleaving two calls) is still passed on, after the
  ToolCallEnd: the data wins over the tidiness of the live events.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from providers import events as ev
from providers import jsontext
from providers.errors import ProviderError
from providers.openai_chat.errors import stream_error
from providers.openai_chat.wire import DONE, REASONING_KEYS, call_fields, decode_usage, map_finish, synthetic_id
from providers.sse import SSEEvent

_TEXT_PARTS = ("text", "summary", "data")  # string fields of a reasoning_details entry that arrive in pieces


@dataclass
class _Call:
    id: str
    name: str


@dataclass
class _Detail:
    """One ``reasoning_details`` entry being assembled from its streamed pieces."""

    item: dict[str, Any]
    parts: dict[str, list[str]] = field(default_factory=dict)

    def merged(self) -> dict[str, Any]:
        return {**self.item, **{key: "".join(pieces) for key, pieces in self.parts.items()}}


@dataclass
class OpenAIChatStreamState:
    response_id: str = ""
    calls: list[_Call] = field(default_factory=list)
    by_index: dict[int, int] = field(default_factory=dict)  # wire index -> position in tool_calls
    by_id: dict[str, int] = field(default_factory=dict)  # wire id -> position
    open_call: int | None = None
    reasoning_key: str | None = None
    reasoning: list[str] = field(default_factory=list)
    details: list[_Detail] = field(default_factory=list)
    ended: bool = False


@dataclass
class OpenAIChatStreamDecoder:
    state: OpenAIChatStreamState = field(default_factory=OpenAIChatStreamState)

    def feed(self, event: SSEEvent) -> list[ev.Event]:
        data = event.data.strip()
        if self.state.ended or not data:
            return []
        if data == DONE:
            return self._done()
        try:
            chunk = jsontext.loads(data)
        except ValueError:
            if event.event == "error":  # an error event is an error even when its text is not JSON
                return self._fail(ProviderError("stream", data[:300], raw=data))
            return self._fail(ProviderError("invalid_response", f"stream chunk is not JSON: {data[:120]}", raw=data))
        if not isinstance(chunk, dict):
            return self._fail(ProviderError("invalid_response", f"stream chunk is not an object: {data[:120]}"))
        if event.event == "error" or isinstance(chunk.get("error"), dict):
            return self._fail(stream_error(chunk))
        return self._chunk(chunk)

    def close(self) -> list[ev.Event]:
        if self.state.ended:
            return []
        self.state.ended = True
        return self._end_open_call() + self._kept_fields()

    def _done(self) -> list[ev.Event]:
        events = self.close()
        events.append(ev.StreamEnd())
        return events

    def _fail(self, error: ProviderError) -> list[ev.Event]:
        return [*self._end_open_call(), ev.StreamError(error)]

    def _chunk(self, chunk: dict[str, Any]) -> list[ev.Event]:
        if not self.state.response_id and isinstance(chunk.get("id"), str):
            self.state.response_id = chunk["id"]
        text = _plain_text(chunk)
        if text is not None:
            return [ev.TextDelta(text)] if text else []
        events: list[ev.Event] = []
        choices = chunk.get("choices")
        for choice in choices if isinstance(choices, list) else []:
            if isinstance(choice, dict) and choice.get("index") in (0, None):  # other choices (n > 1) are not ours
                events.extend(self._choice(choice))
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            events.append(ev.UsageUpdate(decode_usage(usage)))
        return events

    def _choice(self, choice: dict[str, Any]) -> list[ev.Event]:
        delta = choice.get("delta")
        events: list[ev.Event] = []
        if isinstance(delta, dict):
            events.extend(self._reasoning(delta))
            self._reasoning_details(delta)
            content = delta.get("content")
            if isinstance(content, str) and content:
                events.append(ev.TextDelta(content))
            events.extend(self._tool_calls(delta))
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            events.extend(self._end_open_call())
            events.append(ev.Finish(map_finish(reason), reason))
        return events

    def _reasoning(self, delta: dict[str, Any]) -> list[ev.Event]:
        state = self.state
        # Some servers send the same text under both keys: the first non-empty one wins, the recorded key first.
        keys = (state.reasoning_key, *REASONING_KEYS) if state.reasoning_key else REASONING_KEYS
        for key in keys:
            text = delta.get(key)
            if isinstance(text, str) and text:
                state.reasoning_key = state.reasoning_key or key
                state.reasoning.append(text)
                return [ev.ReasoningDelta(text)]
        return []

    def _reasoning_details(self, delta: dict[str, Any]) -> None:
        items = delta.get("reasoning_details")
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                self._merge_detail(item)

    def _merge_detail(self, item: dict[str, Any]) -> None:
        details = self.state.details
        last = details[-1] if details else None
        if last is None or (last.item.get("index"), last.item.get("type")) != (item.get("index"), item.get("type")):
            last = _Detail({})
            details.append(last)
        for key, value in item.items():
            if key in _TEXT_PARTS and isinstance(value, str):
                last.parts.setdefault(key, []).append(value)
            elif value is not None or key not in last.item:
                last.item[key] = value

    def _tool_calls(self, delta: dict[str, Any]) -> list[ev.Event]:
        entries = delta.get("tool_calls")
        if not isinstance(entries, list):
            legacy = delta.get("function_call")  # the old functions API: one call, no id, no index
            entries = [{"function": legacy}] if isinstance(legacy, dict) else []
        events: list[ev.Event] = []
        for entry in entries:
            if isinstance(entry, dict):
                events.extend(self._fragment(entry))
        return events

    def _fragment(self, entry: dict[str, Any]) -> list[ev.Event]:
        function = entry.get("function")
        function = function if isinstance(function, dict) else {}
        name = function.get("name") if isinstance(function.get("name"), str) else ""
        position = self._route(entry, name)
        events: list[ev.Event] = []
        if position is None:
            position = len(self.state.calls)
            events.extend(self._start(entry, name, position))
        elif name and not self.state.calls[position].name:
            self.state.calls[position].name = name  # so that a later repeat of it is recognised
        arguments = function.get("arguments")
        if isinstance(arguments, str) and arguments:
            events.append(ev.ToolCallDelta(position, arguments))
        elif arguments is not None and not isinstance(arguments, str):
            events.append(ev.ToolCallDelta(position, json.dumps(arguments, ensure_ascii=False)))
        return events

    def _route(self, entry: dict[str, Any], name: str) -> int | None:
        """The position of the call this fragment continues, or None when it starts a new one."""
        state = self.state
        wire_id = entry.get("id")
        if isinstance(wire_id, str) and wire_id:
            return state.by_id.get(wire_id)
        index = entry.get("index")
        if isinstance(index, int) and not isinstance(index, bool):
            position = state.by_index.get(index)
            if position is not None and name and state.calls[position].name not in ("", name):
                return None  # a server reusing index 0 for every call and sending no ids
            return position
        if name or not state.calls:
            return None
        return state.open_call if state.open_call is not None else len(state.calls) - 1

    def _start(self, entry: dict[str, Any], name: str, position: int) -> list[ev.Event]:
        state = self.state
        wire_id = entry.get("id")
        has_id = isinstance(wire_id, str) and bool(wire_id)
        call_id = wire_id if has_id else synthetic_id(state.response_id, position)
        state.calls.append(_Call(call_id, name))
        if has_id:
            state.by_id[call_id] = position
        index = entry.get("index")
        if isinstance(index, int) and not isinstance(index, bool):
            state.by_index[index] = position
        events = self._end_open_call()
        state.open_call = position
        events.append(ev.ToolCallStart(position, call_id, name, call_fields(entry)))
        return events

    def _end_open_call(self) -> list[ev.Event]:
        position = self.state.open_call
        if position is None:
            return []
        self.state.open_call = None
        return [ev.ToolCallEnd(position)]

    def _kept_fields(self) -> list[ev.Event]:
        state = self.state
        fields: dict[str, Any] = {}
        if state.reasoning and state.reasoning_key:
            fields[state.reasoning_key] = "".join(state.reasoning)
        if state.details:
            fields["reasoning_details"] = [detail.merged() for detail in state.details]
        return [ev.MessageFields(fields)] if fields else []


def new_stream_decoder() -> OpenAIChatStreamDecoder:
    return OpenAIChatStreamDecoder()


# What the delta of a chunk that only carries text may hold besides its text.
_PLAIN_DELTA_KEYS = frozenset({"content", "role"})


def _plain_text(chunk: dict[str, Any]) -> str | None:
    """The text of a chunk that carries nothing else (one choice, no finish, no usage, no reasoning, no call), or
    None for any other chunk: nearly every chunk of an answer, read in a few lookups instead of the whole walk."""
    choices = chunk.get("choices")
    if type(choices) is not list or len(choices) != 1 or chunk.get("usage") is not None:
        return None
    choice = choices[0]
    if type(choice) is not dict or choice.get("index") not in (0, None) or choice.get("finish_reason") is not None:
        return None
    delta = choice.get("delta")
    if type(delta) is not dict or not delta.keys() <= _PLAIN_DELTA_KEYS:
        return None
    content = delta.get("content")
    return content if type(content) is str else None
