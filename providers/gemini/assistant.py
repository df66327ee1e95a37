"""Model turns: an internal assistant message <-> the ``parts`` of a Gemini ``role: "model"`` content.

Every path (request history, imports, whole responses, streams) maps a turn the same way:

* ``thought: true`` parts and parts that are neither text nor a call (``executableCode``, an ``inlineData``
  image...) are kept verbatim in ``provider_data.blocks`` and resent first; the thoughts' text, joined, is also in
  ``provider_data.reasoning`` (display only). The other text parts, joined, are the internal ``content``.
* Each ``functionCall`` part is one internal call. Its id is the wire ``id`` when the model gave one (Gemini 3),
  else a stable synthetic one (``wire.synthetic_call_id``). What the internal call has no slot for (the part's
  ``thoughtSignature``, the wire ``id``) is kept in the call's ``provider_data.fields``: the part without the call's
  name and args. So the signature goes back byte-exact on the part it came with, and an ``id`` is sent only when the
  model gave one. Another format's calls carry neither (their provider_data is dropped, with a note).
* A turn the internal message cannot hold exactly (a signature on a text part, text after a call, several text
  parts) is also kept whole in ``provider_data.fields["parts"]`` and resent as it was while the turn is unedited.
* Responses are normalised first (``PartsBuilder``): the text pieces of a stream (or of a response) are joined into
  one part per run of plain text or plain thought, and empty plain text parts dropped (Gemini rejects them in a
  request), so a streamed and a whole response give the same parts. Parts carrying anything else stay as they came.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from providers.gemini.wire import (
    NAME,
    args_to_arguments,
    arguments_to_args,
    kept_fields,
    note_foreign,
    plural,
    same_format,
    synthetic_call_id,
)
from providers.translation import TranslationError
from providers.types import Message, ProviderData, ToolCall

_CALL_KEYS = frozenset({"name", "args"})


class KnownCall(NamedTuple):
    """What a stream decoder already made of a call part when it arrived: a whole call's arguments can be tens of
    KB, and serialising and hashing them again when the turn ends doubled the cost of decoding it."""

    body: dict[str, Any]  # the part's ``functionCall``: the call is reused only for that very object
    seed: str
    arguments: str
    id: str


KnownCalls = Sequence[KnownCall]  # by position: the decoder announces calls in the order the parts keep them


def is_text(part: dict[str, Any]) -> bool:
    return isinstance(part.get("text"), str)


def is_thought(part: dict[str, Any]) -> bool:
    return is_text(part) and part.get("thought") is True


def is_call(part: dict[str, Any]) -> bool:
    return isinstance(part.get("functionCall"), dict)


def _plain(part: dict[str, Any]) -> bool:
    """Text and nothing else (a thought flag aside): safe to join with its neighbours."""
    return is_text(part) and set(part) <= {"text", "thought"} and isinstance(part.get("thought", False), bool)


@dataclass
class PartsBuilder:
    """The parts of a model turn as a response delivers them, normalised (see the module docstring)."""

    parts: list[dict[str, Any]] = field(default_factory=list)
    _open: dict[str, Any] | None = None  # the plain text part being joined
    _pieces: list[str] = field(default_factory=list)  # joined once, at the end: no quadratic concatenation

    def add(self, part: dict[str, Any]) -> dict[str, Any]:
        """The part as kept (a no-argument call gets its empty ``args``; text may be joined to the part before)."""
        if _plain(part):
            if not part["text"]:
                return part
            if self._open is not None and is_thought(self._open) == is_thought(part):
                self._pieces.append(part["text"])
                return part
            self._close()
            self._open, self._pieces = part, [part["text"]]
            return part
        self._close()
        if is_call(part) and "args" not in part["functionCall"]:
            part = {**part, "functionCall": {**part["functionCall"], "args": {}}}  # a no-argument call
        self.parts.append(part)
        return part

    def result(self) -> list[dict[str, Any]]:
        if self._open is None:
            return list(self.parts)
        return [*self.parts, {**self._open, "text": "".join(self._pieces)}]

    def _close(self) -> None:
        if self._open is not None:
            self.parts.append({**self._open, "text": "".join(self._pieces)})
            self._open, self._pieces = None, []


def normalise(parts: list[Any]) -> list[dict[str, Any]]:
    builder = PartsBuilder()
    for part in parts:
        if isinstance(part, dict):
            builder.add(part)
    return builder.result()


# --- internal -> wire --------------------------------------------------------------------------------------------


def model_parts(message: Message, where: str, notes: list[str]) -> list[dict[str, Any]]:
    """The parts of a model content for an assistant message (empty when it holds nothing to send)."""
    note_foreign(message.get("provider_data"), where, notes)
    data = same_format(message)
    kept = _kept_parts(message, data, where, notes)
    if kept is not None:
        return kept
    parts = [dict(block) for block in data.get("blocks") or [] if isinstance(block, dict)]
    text = _text(message.get("content"), where, notes)
    if text:
        parts.append({"text": text})
    for position, call in enumerate(message.get("tool_calls") or []):
        parts.append(call_part(call, f"{where} call {position}", notes))
    return parts


def call_part(call: ToolCall, where: str, notes: list[str]) -> dict[str, Any]:
    function = call.get("function") or {}
    name = function.get("name")
    if not name:
        raise TranslationError(f"{where}: the tool call has no function name; Gemini requires one")
    note_foreign(call.get("provider_data"), where, notes)
    fields = kept_fields(call)
    extras = fields.pop("functionCall", None)
    body = {"name": name, "args": arguments_to_args(function.get("arguments"), where, notes)}
    body.update(extras if isinstance(extras, dict) else {})
    return {"functionCall": body, **fields}


def wire_call_id(call: ToolCall) -> str | None:
    """The id the model gave the call, if it gave one (only then is an ``id`` sent back)."""
    extras = kept_fields(call).get("functionCall")
    wire_id = extras.get("id") if isinstance(extras, dict) else None
    return wire_id if isinstance(wire_id, str) and wire_id else None


def has_signature(call: ToolCall) -> bool:
    return isinstance(kept_fields(call).get("thoughtSignature"), str)


def _text(content: Any, where: str, notes: list[str]) -> str:
    if isinstance(content, list):
        notes.append(f"{where}: content parts sent as one text (a model turn's text is one part)")
        return "".join(part.get("text") or "" for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def _kept_parts(message: Message, data: ProviderData, where: str, notes: list[str]) -> list[dict[str, Any]] | None:
    """The turn exactly as it came, if the message was not edited since (see the module docstring)."""
    original = (data.get("fields") or {}).get("parts")
    if not isinstance(original, list) or not all(isinstance(part, dict) for part in original):
        return None
    imported, _ = assistant_from_parts(original, seed="")
    if _view(imported) != _view(message):
        notes.append(f"{where}: the model turn was edited since import; its kept parts are not sent")
        return None
    notes.append(f"{where}: model turn sent exactly as it came (its parts do not fit an internal message)")
    return [dict(part) for part in original]


def _view(message: Message) -> tuple[Any, Any, Any]:
    """What an edit changes. Ids are left out: a synthetic id depends on where the turn was read."""
    calls = [
        ((call.get("function") or {}).get("name"), (call.get("function") or {}).get("arguments"))
        for call in message.get("tool_calls") or []
    ]
    return message.get("content") or None, calls, (message.get("provider_data") or {}).get("blocks")


# --- wire -> internal --------------------------------------------------------------------------------------------


def assistant_from_parts(
    parts: list[dict[str, Any]], *, seed: str, extras: dict[str, Any] | None = None, known: KnownCalls | None = None
) -> tuple[Message, list[str]]:
    """The parts of a model content as one internal message, plus notes; ``seed`` makes the synthetic call ids;
    ``known``: the calls a stream decoder has already made, reused as they are."""
    message = _bare_message(parts, seed, known)
    fields = dict(extras or {})
    if not _reproduces(message, parts):
        fields["parts"] = parts
    if fields:
        message.setdefault("provider_data", {"format": NAME})["fields"] = fields
    return message, _notes(message, "parts" in fields)


def call_from_part(part: dict[str, Any], seed: str, position: int, known: KnownCalls | None = None) -> ToolCall:
    body = part["functionCall"]
    name = body.get("name") if isinstance(body.get("name"), str) else ""
    made = known[position] if known and position < len(known) and known[position].body is body else None
    arguments = made.arguments if made is not None else args_to_arguments(body.get("args"))
    wire_id = body.get("id")
    if isinstance(wire_id, str) and wire_id:
        call_id = wire_id
    elif made is not None and made.seed == seed:
        call_id = made.id
    else:
        call_id = synthetic_call_id(seed, position, name, arguments)
    call: ToolCall = {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }
    fields = call_fields(part)
    if fields:
        call["provider_data"] = {"format": NAME, "fields": fields}
    return call


def call_fields(part: dict[str, Any]) -> dict[str, Any] | None:
    """The part without the call's name and args: its signature, the wire id..."""
    fields = {key: value for key, value in part.items() if key != "functionCall"}
    extras = {key: value for key, value in part["functionCall"].items() if key not in _CALL_KEYS}
    if extras:
        fields["functionCall"] = extras
    return fields or None


def turn_fields(
    parts: list[dict[str, Any]], extras: dict[str, Any], seed: str, known: KnownCalls | None = None
) -> dict[str, Any]:
    """The message-level fields kept for a turn: what a stream decoder adds once the turn is complete."""
    message, _ = assistant_from_parts(parts, seed=seed, extras=extras, known=known)
    return dict((message.get("provider_data") or {}).get("fields") or {})


def blocks_of(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [part for part in parts if is_thought(part) or not (is_text(part) or is_call(part))]


def _bare_message(parts: list[dict[str, Any]], seed: str, known: KnownCalls | None = None) -> Message:
    texts = [part["text"] for part in parts if is_text(part) and not is_thought(part)]
    calls = [part for part in parts if is_call(part)]
    message: Message = {"role": "assistant", "content": "".join(texts) or None}
    if calls:
        message["tool_calls"] = [call_from_part(part, seed, position, known) for position, part in enumerate(calls)]
    data: ProviderData = {}
    blocks = blocks_of(parts)
    if blocks:
        data["blocks"] = blocks
    reasoning = "".join(part["text"] for part in parts if is_thought(part))
    if reasoning:
        data["reasoning"] = reasoning
    if data:
        message["provider_data"] = {"format": NAME, **data}
    return message


def _reproduces(message: Message, parts: list[dict[str, Any]]) -> bool:
    try:
        return model_parts(message, "", []) == parts
    except TranslationError:
        return False  # a call without a name: only the kept parts can say it


def _notes(message: Message, whole: bool) -> list[str]:
    notes = []
    blocks = (message.get("provider_data") or {}).get("blocks") or []
    if blocks:
        notes.append(f"{plural(len(blocks), 'thought or opaque part')} kept unchanged in provider_data, to be resent")
    signed = [call["function"]["name"] for call in message.get("tool_calls") or [] if has_signature(call)]
    if signed:
        notes.append(f"thoughtSignature kept on the call to {', '.join(signed)}, to be resent on the same part")
    if whole:
        notes.append(f"model parts kept whole for {NAME} (signed text, or an order the internal message cannot hold)")
    return notes
