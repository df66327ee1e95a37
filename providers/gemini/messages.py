"""The internal conversation -> Gemini ``contents`` (plus the system messages lifted out of it), in one pass.

* system and developer messages leave the conversation (they become ``systemInstruction``; a developer message or
  one in mid-conversation is noted, Gemini has neither);
* user -> ``role: "user"``, assistant -> ``role: "model"`` (``assistant``), and every run of consecutive tool
  messages -> ONE ``role: "user"`` content of ``functionResponse`` parts (Gemini wants all the responses to a turn
  together), followed by the images of those tool messages as parts of the same content (``parts.tool_images``);
* Gemini (<= 2.5) has no call ids: a response carries the function's ``name`` (and the call's ``id`` only if the
  model gave one), and is paired by name and position. So within a run, responses to calls of the same name without
  an id are put in the order of their calls (noted when that moves them). A response for an unknown call cannot be
  named and is refused (``TranslationError``); a call without a response, or a response to an older turn, is noted
  (Gemini rejects a turn whose calls and responses do not match);
* empty messages are dropped (Gemini rejects a content without parts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from providers.gemini.assistant import has_signature, model_parts, wire_call_id
from providers.gemini.parts import function_response_part, tool_images, user_parts
from providers.gemini.wire import kept_fields, same_format
from providers.translation import TranslationError
from providers.types import Message

# Fields kept on a message that are not content-level wire keys (kept parts, decoded response metadata...).
_NOT_CONTENT_KEYS = frozenset({"parts", "candidate", "response", "functionResponse"})


@dataclass(frozen=True)
class CallRef:
    """A call of an earlier model turn, as its function responses must name it."""

    name: str
    wire_id: str | None
    turn: int  # position of its model content in ``contents``
    position: int  # position among that turn's calls


@dataclass
class ContentEncoder:
    notes: list[str]
    system: list[Message] = field(default_factory=list)
    out: list[dict[str, Any]] = field(default_factory=list)
    calls: dict[str, CallRef] = field(default_factory=dict)  # internal id -> call; a later call wins
    open_calls: dict[str, CallRef] = field(default_factory=dict)  # calls of the latest model turn, unanswered
    answered: set[str] = field(default_factory=set)
    results: dict[str, Any] | None = None  # the user content of function responses being built
    result_calls: list[CallRef] = field(default_factory=list)  # the calls its parts answer, in part order
    result_images: list[dict[str, Any]] = field(default_factory=list)  # the tool messages' images, sent after
    last_turn: Message | None = None  # the latest assistant message with calls
    current: bool = False  # no user text since ``last_turn``: it is the turn being answered

    def run(self, messages: list[Message]) -> None:
        for position, message in enumerate(messages):
            if not isinstance(message, dict):
                raise TranslationError(f"message {position} is not an object")
            self.add(position, message)
        self._close_results()
        self._close_turn(at_end=True)
        self._note_signature()

    def add(self, position: int, message: Message) -> None:
        role = message.get("role")
        handlers = {
            "system": self._system,
            "developer": self._system,
            "user": self._user,
            "assistant": self._assistant,
            "tool": self._tool,
        }
        if role not in handlers:
            raise TranslationError(f"message {position}: unknown role {role!r}")
        if message.get("name") and role != "tool":
            self.notes.append(f"message {position} ({role}): name `{message['name']}` dropped (no Gemini field)")
        if role != "tool":
            self._close_results()
        handlers[role](position, message)

    # --- one method per role -------------------------------------------------------------------------------------

    def _system(self, position: int, message: Message) -> None:
        if message.get("role") == "developer":
            self.notes.append(
                f"message {position}: developer message sent as systemInstruction (Gemini has no developer role)"
            )
        if self.out:
            self.notes.append(
                f"message {position} ({message.get('role')}): moved to `systemInstruction` "
                "(Gemini has no system message inside the conversation)"
            )
        self.system.append(message)

    def _user(self, position: int, message: Message) -> None:
        where = f"message {position} (user)"
        parts = user_parts(message, where, self.notes)
        if not parts:
            self.notes.append(f"{where}: empty user message dropped (Gemini rejects a content without parts)")
            return
        self.out.append({**_content_extras(message), "role": "user", "parts": parts})
        self.current = False

    def _assistant(self, position: int, message: Message) -> None:
        where = f"message {position} (assistant)"
        parts = model_parts(message, where, self.notes)
        if not parts:
            self.notes.append(f"{where}: empty assistant message dropped (no text, no tool calls)")
            return
        self._close_turn(at_end=False)
        self.out.append({**_content_extras(message), "role": "model", "parts": parts})
        turn = len(self.out) - 1
        for number, call in enumerate(message.get("tool_calls") or []):
            call_id = call.get("id")
            if not isinstance(call_id, str) or not call_id:
                continue  # no tool message can answer it; Gemini itself needs no id
            ref = CallRef((call.get("function") or {}).get("name") or "", wire_call_id(call), turn, number)
            self.calls[call_id] = self.open_calls[call_id] = ref
        if message.get("tool_calls"):
            self.last_turn, self.current = message, True
            self._note_unsent_ids(where, message)

    def _tool(self, position: int, message: Message) -> None:
        where = f"message {position} (tool)"
        call_id = message.get("tool_call_id")
        if not isinstance(call_id, str) or not call_id:
            raise TranslationError(f"{where}: the tool message has no tool_call_id")
        ref = self.calls.get(call_id)
        if ref is None:
            raise TranslationError(
                f"{where}: it answers call `{call_id}`, which no earlier assistant message made "
                "(a Gemini function response must name the function it answers)"
            )
        if call_id in self.answered:
            self.notes.append(f"{where}: call `{call_id}` already has a response; this one is sent too")
        elif call_id not in self.open_calls:
            self.notes.append(
                f"{where}: it answers a call of an earlier model turn; Gemini pairs function responses with the "
                "model turn right before them"
            )
        self.open_calls.pop(call_id, None)
        self.answered.add(call_id)
        if self.results is None:
            self.results = {"role": "user", "parts": []}
            self.out.append(self.results)
        self.results["parts"].append(function_response_part(message, ref.name, ref.wire_id, where, self.notes))
        self.result_calls.append(ref)
        self.result_images.extend(tool_images(message, where, self.notes))

    # --- bookkeeping ---------------------------------------------------------------------------------------------

    def _close_results(self) -> None:
        """Responses to same-name calls without ids go in their calls' order: Gemini pairs them by position."""
        if self.results is None:
            return
        parts, calls = self.results["parts"], self.result_calls
        reordered = list(parts)
        for name in sorted({call.name for call in calls if call.wire_id is None}):
            slots = [n for n, call in enumerate(calls) if call.name == name and call.wire_id is None]
            ordered = sorted(slots, key=lambda n: (calls[n].turn, calls[n].position))
            if ordered != slots:
                self.notes.append(
                    f"function responses to `{name}` put in the order of their calls (Gemini pairs them by name "
                    "and position)"
                )
            for slot, source in zip(slots, ordered, strict=True):
                reordered[slot] = parts[source]
        if len(parts) > 1:
            self.notes.append(f"{len(parts)} tool results sent as one user content of function responses")
        # Images after every response: the responses stay together, in the positions Gemini pairs them by.
        self.results["parts"] = [*reordered, *self.result_images]
        self.results, self.result_calls, self.result_images = None, [], []

    def _close_turn(self, *, at_end: bool) -> None:
        if at_end and self.out and self.out[-1]["role"] == "model":
            return  # the conversation ends on the calls: their responses are yet to come
        for call_id, ref in self.open_calls.items():
            self.notes.append(
                f"call `{call_id}` ({ref.name}) has no function response; Gemini rejects a turn whose function calls "
                "and responses do not match"
            )
        self.open_calls = {}

    def _note_unsent_ids(self, where: str, message: Message) -> None:
        """Another format's ids cannot go on the wire (Gemini rejects an id the model did not mint)."""
        if same_format(message):
            return  # a Gemini turn: its calls go back exactly as they came, ids included when it had them
        unsent = [call.get("id") for call in message.get("tool_calls") or [] if not wire_call_id(call)]
        if unsent:
            self.notes.append(
                f"{where}: call ids {', '.join(f'`{call_id}`' for call_id in unsent)} not sent (Gemini takes only ids "
                "it made); the responses name their function and follow the calls' order"
            )

    def _note_signature(self) -> None:
        """Gemini 3 rejects the turn being answered when its first call lost the signature it came with."""
        turn = self.last_turn
        calls = (turn or {}).get("tool_calls") or []
        if turn is None or not self.current or not calls or has_signature(calls[0]) or same_format(turn):
            return
        self.notes.append(
            "the turn being answered has no thoughtSignature on its first call (it did not come from Gemini); "
            "Gemini 3 models reject such a turn"
        )


def _content_extras(message: Message) -> dict[str, Any]:
    return {key: value for key, value in kept_fields(message).items() if key not in _NOT_CONTENT_KEYS}
