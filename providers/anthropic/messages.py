"""The internal conversation -> Anthropic ``messages`` (plus the system messages lifted out of it).

Anthropic's structural rules, applied here in one pass:

* system and developer messages leave the conversation (they become the top-level ``system``);
* the N ``role: "tool"`` messages answering one assistant turn become ONE user message of N ``tool_result`` blocks,
  results first; a user message that follows (or sits between) the results joins that same message, after them;
* a result must answer a call of the assistant message right before it: a result for an unknown call, or for a call
  of an older turn, cannot be expressed and is refused with ``TranslationError``;
* no ``content: null``, no empty text block, no empty message (dropped, with a note).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from providers.anthropic.assistant import REASONING_BLOCKS, assistant_to_blocks
from providers.anthropic.content import (
    content_to_blocks,
    extra_fields,
    kept_content,
    note_foreign,
    same_format_data,
    tool_result_block,
)
from providers.anthropic.mapping import IdMap, plural
from providers.translation import TranslationError
from providers.types import Message


@dataclass
class _ResultTurn:
    """The user message answering the latest assistant calls."""

    wire: dict[str, Any]
    positions: list[int] = field(default_factory=list)  # internal positions of the tool messages merged here
    text_before: bool = False  # user text arrived before a result (results are moved in front of it)
    text_after: bool = False

    def blocks(self) -> list[dict[str, Any]]:
        if isinstance(self.wire["content"], str):
            self.wire["content"] = [{"type": "text", "text": self.wire["content"]}]
        return self.wire["content"]


@dataclass
class MessageEncoder:
    notes: list[str]
    ids: IdMap = field(default_factory=IdMap)
    system: list[Message] = field(default_factory=list)
    out: list[dict[str, Any]] = field(default_factory=list)
    called: set[str] = field(default_factory=set)
    answered: set[str] = field(default_factory=set)
    open_calls: dict[str, str] = field(default_factory=dict)  # id -> name: calls of the latest turn, unanswered
    turn: _ResultTurn | None = None
    carried: dict[str, int] = field(default_factory=dict)  # thinking block type -> count sent back

    def run(self, messages: list[Message]) -> None:
        for position, message in enumerate(messages):
            self.add(position, message)
        self._close_turn(at_end=True)
        self._note_carried()

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
            self.notes.append(f"message {position} ({role}): name `{message['name']}` dropped (no Anthropic field)")
        handlers[role](position, message)

    # --- one method per role -------------------------------------------------------------------------------------

    def _system(self, position: int, message: Message) -> None:
        if message.get("role") == "developer":
            self.notes.append(f"message {position}: developer message sent as system (Anthropic has no developer role)")
        if self.out or self.called:
            self.notes.append(
                f"message {position} ({message.get('role')}): moved to the top-level `system` field "
                "(Anthropic has no system message inside the conversation)"
            )
        self.system.append(message)

    def _user(self, position: int, message: Message) -> None:
        where = f"message {position} (user)"
        note_foreign(message.get("provider_data"), where, self.notes)
        data = same_format_data(message)
        content = message.get("content")
        kept = kept_content(data, content, where, self.notes)
        blocks = kept if kept is not None else content_to_blocks(content, where, self.notes)
        if not blocks:
            self.notes.append(f"{where}: empty user message dropped (Anthropic requires non-empty content)")
            return
        if self.turn is not None and self.out and self.out[-1] is self.turn.wire:
            self.turn.blocks().extend(blocks)
            self.turn.text_after = self.turn.text_after or bool(self.turn.positions)
            self.turn.text_before = self.turn.text_before or not self.turn.positions
            return
        plain = isinstance(content, str) and kept is None
        # a copy: tool results may be inserted into this message, and ``kept`` belongs to the internal message
        wire = {**extra_fields(data), "role": "user", "content": content if plain else list(blocks)}
        self.out.append(wire)
        if self.open_calls:
            self.turn = _ResultTurn(wire, text_before=True)

    def _assistant(self, position: int, message: Message) -> None:
        where = f"message {position} (assistant)"
        blocks = assistant_to_blocks(message, self.ids, self.notes, where)
        if not blocks:
            self.notes.append(f"{where}: empty assistant message dropped (no text and no tool calls)")
            return
        self._close_turn(at_end=False)
        for block in blocks:
            if block.get("type") in REASONING_BLOCKS:
                self.carried[block["type"]] = self.carried.get(block["type"], 0) + 1
        self.out.append({**extra_fields(same_format_data(message)), "role": "assistant", "content": blocks})
        for call in message.get("tool_calls") or []:
            self.called.add(call["id"])
            self.open_calls[call["id"]] = (call.get("function") or {}).get("name") or ""

    def _tool(self, position: int, message: Message) -> None:
        where = f"message {position} (tool)"
        original = message.get("tool_call_id")
        self._check_answerable(original, where)
        block = tool_result_block(message, self.ids.wire_id(original, where, self.notes), where, self.notes)
        turn = self._result_turn()
        turn.blocks().insert(len(turn.positions), block)  # results go first, before any user text
        turn.positions.append(position)
        del self.open_calls[str(original)]
        self.answered.add(str(original))

    # --- tool-result bookkeeping ---------------------------------------------------------------------------------

    def _check_answerable(self, call_id: Any, where: str) -> None:
        if not isinstance(call_id, str) or not call_id:
            raise TranslationError(f"{where}: the tool message has no tool_call_id")
        if call_id not in self.called:
            raise TranslationError(f"{where}: it answers call `{call_id}`, which no earlier assistant message made")
        if call_id in self.answered:
            raise TranslationError(f"{where}: call `{call_id}` already has a result; Anthropic takes one per call")
        if call_id not in self.open_calls:
            raise TranslationError(
                f"{where}: the result for call `{call_id}` does not follow the assistant message that made the call "
                "(Anthropic needs every result in the user message right after its call)"
            )

    def _result_turn(self) -> _ResultTurn:
        if self.turn is None or not self.out or self.out[-1] is not self.turn.wire:
            self.turn = _ResultTurn({"role": "user", "content": []})
            self.out.append(self.turn.wire)
        return self.turn

    def _close_turn(self, *, at_end: bool) -> None:
        turn, unanswered = self.turn, dict(self.open_calls)
        if turn is not None and len(turn.positions) > 1:
            where = ", ".join(str(p) for p in turn.positions)
            self.notes.append(f"{len(turn.positions)} tool results (messages {where}) merged into one user message")
        if turn is not None and turn.positions and turn.text_before:
            self.notes.append("tool results moved before the user text of their message (Anthropic wants them first)")
        elif turn is not None and turn.text_after:
            self.notes.append("user text placed after the tool results, in the same user message")
        if unanswered and not (at_end and turn is None):
            for call_id, name in unanswered.items():
                self.notes.append(f"call `{call_id}` ({name}) has no tool result; Anthropic will reject the request")
        self.turn, self.open_calls = None, {}

    def _note_carried(self) -> None:
        if not self.carried:
            return
        counts = [plural(count, f"{kind} block") for kind, count in sorted(self.carried.items(), reverse=True)]
        where = "its assistant message" if sum(self.carried.values()) == 1 else "their assistant messages"
        self.notes.append(f"{' and '.join(counts)} carried back unchanged, first in {where}")
