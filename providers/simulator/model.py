"""The scripted model: an internal ``ChatRequest`` in, a ``Reply`` (reasoning, text, tool calls) out.

Deterministic: the same request and seed give the same reply. How it decides, in order:

1. ``tool_choice: "none"`` never calls; ``required`` always calls (the best match, else the first tool); a named
   tool is always the one called.
2. The plan of the current turn (since the last user message) comes from the ``/call`` directives, or else from
   the tools the message names or describes (``matching``), one call per place named when a tool takes a city.
3. Calls of the plan not made yet in this turn are made now: all at once (parallel), or one per reply when
   parallel calls are disabled. The plan's arguments are seeded by the user message, so they stay put across the
   turns of one tool loop.
4. Nothing left to call: after tool results, a text answer quoting them; otherwise the ``/text`` reply or a short
   reply naming the tools on offer. Either says how many images (and of what type and size) it was sent, if any.
5. Reasoning comes first when the request enables it or the message says ``/think``.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from dataclasses import dataclass

from providers.simulator.arguments import generate_arguments
from providers.simulator.conversation import Choice, Turn, read_choice, read_turn
from providers.simulator.directives import Directives, parse_directives
from providers.simulator.matching import extract_hints, match_tools, tool_name
from providers.simulator.replies import reasoning_text, reply_text
from providers.simulator.values import PLACE_WORDS, Cursor, Hints, name_words
from providers.types import ChatRequest, ToolSpec

_MAX_CALLS_PER_TOOL = 4


@dataclass(frozen=True)
class PlannedCall:
    name: str
    arguments: str  # JSON text as it goes on the wire; verbatim from a /call line, so possibly invalid


@dataclass(frozen=True)
class Reply:
    reasoning: str | None
    text: str | None
    calls: tuple[PlannedCall, ...]
    truncated: bool = False  # cut by max_tokens (providers.simulator.limits)


def respond(request: ChatRequest, *, seed: int, force_call: bool = False) -> Reply:
    """``force_call`` makes the reply call a tool whatever the message says (faults that break a call need one)."""
    turn = read_turn(request.get("messages") or [])
    tools = list(request.get("tools") or [])
    choice = read_choice(request, tools)
    if force_call and choice.mode in ("auto", "none"):
        choice = Choice("required", None, choice.parallel)
    directives = parse_directives(turn.user_text)
    calls = _calls(turn, directives, tools, choice, seeded(seed, "plan", turn.user_text))
    think = bool(directives.think or (request.get("reasoning") or {}).get("enabled"))
    text = reply_text(request.get("model") or "sim-1", turn, directives, tools, choice, has_calls=bool(calls))
    reasoning = None
    if think:
        reasoning = directives.reasoning or reasoning_text(turn, directives, tools, choice, [c.name for c in calls])
    return Reply(reasoning, text, tuple(calls))


def seeded(seed: int, purpose: str, *parts: object) -> random.Random:
    """A generator of its own for each purpose, so adding randomness in one place never shifts another."""
    digest = hashlib.sha256(json.dumps([seed, purpose, *map(str, parts)]).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _calls(
    turn: Turn, directives: Directives, tools: list[ToolSpec], choice: Choice, rng: random.Random
) -> list[PlannedCall]:
    if choice.mode == "none":
        return []
    plan = _plan(directives, tools, rng)
    if choice.mode == "named":
        plan = [c for c in plan if c.name == choice.name]
    pending = _pending(plan, [name for name, _ in turn.made])
    if not pending and choice.mode in ("required", "named"):
        forced = choice.name if choice.mode == "named" else (plan[0].name if plan else _first_tool(tools))
        pending = [_generated(forced, tools, rng, _Numbers(extract_hints(directives.prose)))] if forced else []
    return pending if choice.parallel else pending[:1]


def _plan(directives: Directives, tools: list[ToolSpec], rng: random.Random) -> list[PlannedCall]:
    numbers = _Numbers(extract_hints(directives.prose))
    if directives.calls:
        return [
            PlannedCall(d.name, d.arguments) if d.arguments is not None else _generated(d.name, tools, rng, numbers)
            for d in directives.calls
        ]
    plan: list[PlannedCall] = []
    for name in match_tools(directives.prose, tools):
        plan.extend(_calls_for_tool(name, tools, rng, numbers))
    return plan


def _calls_for_tool(name: str, tools: list[ToolSpec], rng: random.Random, numbers: _Numbers) -> list[PlannedCall]:
    """One call per place named ("Paris and Tokyo") when the tool takes a place; one call otherwise."""
    places = numbers.hints.places
    if len(places) < 2 or not _takes_place(_find_tool(name, tools)):
        return [_generated(name, tools, rng, numbers)]
    return [_generated(name, tools, rng, numbers, (place,)) for place in places[:_MAX_CALLS_PER_TOOL]]


def _takes_place(tool: ToolSpec | None) -> bool:
    properties = ((tool or {}).get("function", {}).get("parameters") or {}).get("properties") or {}
    return any(name_words(key) & PLACE_WORDS for key in properties)


@dataclass
class _Numbers:
    """The user's numbers, shared by the calls of one plan: "add 2 and 3, multiply 4 by 5" uses each once."""

    hints: Hints
    used: int = 0


def _generated(
    name: str, tools: list[ToolSpec], rng: random.Random, numbers: _Numbers, places: tuple[str, ...] | None = None
) -> PlannedCall:
    tool = _find_tool(name, tools)
    schema = (tool or {}).get("function", {}).get("parameters") if tool else None
    hints = numbers.hints
    cursor = Cursor(Hints(hints.text, hints.numbers[numbers.used :], hints.places if places is None else places))
    arguments = generate_arguments(schema, rng, cursor=cursor)
    numbers.used += cursor.next_number
    return PlannedCall(name, json.dumps(arguments, ensure_ascii=False, separators=(",", ":")))


def _find_tool(name: str, tools: list[ToolSpec]) -> ToolSpec | None:
    return next((t for t in tools if tool_name(t) == name), None)


def _first_tool(tools: list[ToolSpec]) -> str | None:
    return tool_name(tools[0]) if tools else None


def _pending(plan: list[PlannedCall], made: list[str]) -> list[PlannedCall]:
    """The plan minus the calls this turn already made (matched by name, in order)."""
    left = Counter(made)
    pending: list[PlannedCall] = []
    for call in plan:
        if left[call.name] > 0:
            left[call.name] -= 1
        else:
            pending.append(call)
    return pending
