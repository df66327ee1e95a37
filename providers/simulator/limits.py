"""``max_tokens`` as the real APIs apply it: the reply stops where the budget runs out, mid-word or mid-call.

Tokens are counted the way ``estimate_usage`` counts them (about four characters each), in the order a model
writes: reasoning, then text, then the tool calls one after the other. A call the budget cuts keeps the arguments
written so far (usually not valid JSON, exactly what a truncated real call looks like), later calls are not made,
and the finish reason becomes ``length`` (``max_tokens`` on the Anthropic wire).
"""

from __future__ import annotations

from dataclasses import replace

from providers.simulator.model import PlannedCall, Reply

CHARS_PER_TOKEN = 4


def apply_max_tokens(reply: Reply, max_tokens: object) -> Reply:
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        return reply  # absent (OpenAI makes it optional) or invalid (the strict validators answered that already)
    budget = max_tokens * CHARS_PER_TOKEN
    if _written(reply) <= budget:
        return reply
    reasoning, budget = _take(reply.reasoning, budget)
    text, budget = _take(reply.text, budget)
    calls: list[PlannedCall] = []
    for call in reply.calls:
        if budget <= 0:
            break
        budget -= len(call.name)  # the name comes whole, before the arguments (both wires send it first)
        arguments, budget = _take(call.arguments, max(budget, 0))
        calls.append(PlannedCall(call.name, arguments or ""))
    return replace(reply, reasoning=reasoning, text=text, calls=tuple(calls), truncated=True)


def _written(reply: Reply) -> int:
    calls = sum(len(c.name) + len(c.arguments) for c in reply.calls)
    return len(reply.reasoning or "") + len(reply.text or "") + calls


def _take(part: str | None, budget: int) -> tuple[str | None, int]:
    """As much of ``part`` as the budget allows (None when nothing of it fits), and the budget left."""
    if not part or budget <= 0:
        return None, budget
    return part[:budget], budget - min(len(part), budget)
