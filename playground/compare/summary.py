"""What each column did, read from its saved conversation: timings, calls, tokens, cost, stop reasons, errors.

Everything here is computed from saved rows, so the table reads the same live (refreshed as round trips end), after
a reload and for a teammate opening the comparison later.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from genai_prices import Usage as PriceUsage
from genai_prices import calc_price

from playground.conversations.models import BUSY_STATUSES, Conversation, RoundTrip
from playground.tools.schema import check_arguments

# genai-prices' provider ids for the wire formats that name one provider; other servers are matched by model name.
PRICE_PROVIDERS = {"anthropic": "anthropic", "gemini": "google"}


@dataclass(frozen=True)
class CallSummary:
    name: str
    arguments: Any  # parsed when the text is JSON, else the raw text
    valid: bool
    problems: str = ""

    def key(self) -> tuple[str, str]:
        """The call as compared across columns: JSON-equal arguments give the same key."""
        return self.name, json.dumps(self.arguments, sort_keys=True)


@dataclass
class Tokens:
    input: int = 0
    output: int = 0
    cached: int = 0
    reasoning: int = 0
    seen: bool = False  # no round trip reported usage: the table says so instead of showing zeros


@dataclass
class ColumnSummary:
    position: int
    conversation: Conversation
    ttfb_ms: float | None = None
    total_ms: float | None = None
    round_trips: int = 0
    calls: list[CallSummary] = field(default_factory=list)
    tokens: Tokens = field(default_factory=Tokens)
    cost: str = "unknown"
    cost_source: str = ""  # "reported" by the provider, "estimated" from genai-prices, "" when unknown
    stop_said: str = ""
    stop_mapped: str = ""
    errors: list[str] = field(default_factory=list)
    status_note: str = ""  # the run's own message, less what its errors already say

    @property
    def running(self) -> bool:
        return self.conversation.status in BUSY_STATUSES

    @property
    def valid_count(self) -> int:
        return sum(1 for c in self.calls if c.valid)

    @property
    def invalid_count(self) -> int:
        return len(self.calls) - self.valid_count

    def call_keys(self) -> list[tuple[str, str]]:
        return [c.key() for c in self.calls]


def summarize(position: int, conversation: Conversation) -> ColumnSummary:
    trips = list(conversation.round_trips.order_by("position"))
    summary = ColumnSummary(position, conversation, round_trips=len(trips))
    if trips:
        summary.ttfb_ms = trips[0].ttfb_ms
        timed = [t.total_ms for t in trips if t.total_ms is not None]  # a round trip in flight has no time yet
        summary.total_ms = sum(timed) if timed else None
        summary.stop_said, summary.stop_mapped = trips[-1].raw_finish_reason, trips[-1].finish_reason
    summary.calls = column_calls(conversation)
    summary.tokens = _tokens(trips)
    summary.cost, summary.cost_source = _cost(conversation, trips, summary.tokens)
    summary.errors = _errors(conversation, trips)
    summary.status_note = _status_note(conversation, trips)
    return summary


def column_calls(conversation: Conversation) -> list[CallSummary]:
    """Every tool call the model made, in order, checked against the tools the conversation offered."""
    schemas = {t["name"]: t.get("parameters") for t in conversation.tools}
    calls: list[CallSummary] = []
    for message in conversation.messages.filter(role="assistant").order_by("position"):
        for raw in message.data.get("tool_calls") or []:
            name, text = raw["function"]["name"], raw["function"]["arguments"]
            check = check_arguments(schemas.get(name), text)
            value = check.value if check.value is not None else text
            calls.append(CallSummary(name, value, check.ok, check.summary()))
    return calls


def _tokens(trips: list[RoundTrip]) -> Tokens:
    tokens = Tokens()
    for trip in trips:
        usage = trip.usage or {}
        if not usage:
            continue
        tokens.seen = True
        tokens.input += int(usage.get("prompt_tokens") or 0)
        tokens.output += int(usage.get("completion_tokens") or 0)
        tokens.cached += int(usage.get("cached_tokens") or 0)
        tokens.reasoning += int(usage.get("reasoning_tokens") or 0)
    return tokens


def _cost(conversation: Conversation, trips: list[RoundTrip], tokens: Tokens) -> tuple[str, str]:
    """The provider's own figure when it sends one (OpenRouter does), else genai-prices' estimate, else unknown."""
    reported = [(t.usage or {}).get("cost") for t in trips]
    if any(isinstance(c, int | float) for c in reported):
        total = sum(Decimal(str(c)) for c in reported if isinstance(c, int | float))
        return _dollars(total), "reported"
    if not tokens.seen or conversation.endpoint is None or conversation.endpoint.is_simulated:
        return "unknown", ""
    usage = PriceUsage(input_tokens=tokens.input, output_tokens=tokens.output, cache_read_tokens=tokens.cached or None)
    try:
        price = calc_price(usage, conversation.model, provider_id=PRICE_PROVIDERS.get(conversation.format))
    except LookupError:  # a model the price library does not know
        return "unknown", ""
    return _dollars(price.total_price), "estimated"


def _dollars(amount: Decimal) -> str:
    return f"${amount:.6f}".rstrip("0").rstrip(".") if amount else "$0"


def _errors(conversation: Conversation, trips: list[RoundTrip]) -> list[str]:
    """Each round trip's error, and the run's own when it says something else: a run that ended on a round trip's
    error repeats its message, often with more after it ("… Retry after 1 s."), and is not listed twice."""
    failures = [t.error for t in trips if t.error]
    errors = [f"{e.get('type', 'error')}: {e.get('message', '')}" for e in failures]
    said = conversation.status_message
    failed = conversation.status in (Conversation.Status.ERROR, Conversation.Status.INTERRUPTED)
    messages = [str(e.get("message") or "") for e in failures]
    if failed and said and not any(m and (m in said or said in m) for m in messages):
        errors.append(said)
    return errors


def _status_note(conversation: Conversation, trips: list[RoundTrip]) -> str:
    """The run's message as its column's status line gives it, beside the errors (``_errors``): a failed run's message
    repeats its round trip's error, listed there, and only what it adds ("Retry after 1 s.") is said again; one that
    repeats none is listed there whole."""
    said = conversation.status_message
    if conversation.status not in (Conversation.Status.ERROR, Conversation.Status.INTERRUPTED):
        return said
    messages = [str(t.error.get("message") or "") for t in trips if t.error]
    if any(said in m for m in messages):
        return ""
    rest = said
    for message in filter(None, messages):
        rest = rest.replace(message, "")
    return "" if rest == said else rest.strip()
