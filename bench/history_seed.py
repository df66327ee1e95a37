"""Seed data for bench/history.py: saved conversations as the app writes them, generated fast and loaded by COPY.

Each generated conversation has what a finished run leaves behind: a ToolConfig snapshot, settings, messages (user
text, assistant turns with parallel tool calls, tool results, a closing answer), and one round trip per assistant
message with the internal request (the whole history so far, as the chat loop sends it), the wire request the codec
of its format builds, and the raw SSE events that format's ``encode_stream`` produces for the answer, timestamped
like a live stream. The search fields are computed with the helpers ``index_conversation`` uses, so the list never
indexes lazily while it is measured (bench/history.py checks a sample against ``index_conversation`` itself).

Needs Django set up (DJANGO_SETTINGS_MODULE and DATABASE_URL in the environment) before it is imported.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from playground.chat.options import ChatOptions
from playground.conversations import search_index
from playground.conversations.models import Conversation
from playground.tools.config import ToolConfig
from playground.tools.schema import check_arguments
from providers.errors import ProviderError
from providers.formats import get_format
from providers.streaming import StreamResult
from providers.types import ChatRequest, Message

RARE_WORD = "kittiwake"  # planted in ~1% of conversations and nowhere else: the search the target is about
RARE_SHARE = 0.01
COMMON_WORD = "refund"  # planted in ~30%: a broad search, reported beside the target
COMMON_SHARE = 0.30
TURNS = 4  # user, assistant with two parallel calls, two tool results, answer: 5 messages and 2 round trips each
BIG_ROUND_TRIPS = 100
BIG_EVENTS_PER_ROUND_TRIP = 500  # 100 x 500 = 50,000 raw events
BIG_TURN_EVERY = 10  # a new user message every 10 round trips of the agent loop
DAYS_OF_HISTORY = 365

CONVERSATION_COLUMNS = (
    "id title endpoint_name format model settings tools status status_message created_at updated_at created_by_id "
    "team_id endpoint_id run_by_id run_owner recorded_results forked_at forked_from_id called_tools has_error "
    "indexed_at invalid_calls search_text"
).split()
ROUND_TRIP_COLUMNS = (
    "id position format model request notes wire_request wire_events status_code finish_reason raw_finish_reason "
    "usage error complete ttfb_ms total_ms started_at conversation_id"
).split()
MESSAGE_COLUMNS = "id position role data complete meta created_at conversation_id round_trip_id".split()

WORDS = """
the a to of and in is that for it you with on this be are as can we at or have not from by an will if your
what so about which when there one all would they do more out use up then only also just some into how time
like could than first other new make any these after should need call result value data user model check
request response tool tools order city weather forecast temperature rain wind report customer account price
total amount invoice shipping delivery status date week today tomorrow morning evening number list search
query document page section example error retry again please thanks sure here found looks seems result
details summary table field argument schema format json string integer array object name field update change
step plan next last previous before during while because however therefore although instead whether both
each every many most few several small large quick slow early late high low warm cold dry wet north south
east west center office team project meeting schedule calendar note email message ticket issue priority
support product feature release version build deploy server region cluster database backup storage limit
""".split()
CITIES = """Oslo Bergen Paris Lyon Berlin Munich Madrid Lisbon Rome Milan Vienna Prague Warsaw Krakow Dublin
Edinburgh London Leeds Amsterdam Utrecht Brussels Zurich Geneva Copenhagen Stockholm Helsinki Reykjavik Tallinn
Riga Vilnius Athens Istanbul Cairo Nairobi Lagos Accra Mumbai Delhi Pune Chennai Tokyo Osaka Kyoto Seoul Busan
Beijing Shanghai Taipei Manila Jakarta Sydney Melbourne Auckland Toronto Montreal Vancouver Chicago Boston Denver
Seattle Austin Miami Lima Bogota Santiago""".split()
TOPICS = ["shipping", "billing", "onboarding", "migration", "latency", "pricing", "outage", "quota", "renewal"]
LANGUAGES = ["fr", "de", "es", "it", "nl", "pt", "ja", "ko", "pl", "sv"]


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


STRING, INTEGER, NUMBER = {"type": "string"}, {"type": "integer"}, {"type": "number"}
# Tools beyond the demo team's own four, as a team builds up: conversations snapshot 2 to 5 of them.
EXTRA_TOOLS = [
    ToolConfig(
        "create_ticket",
        "Open a support ticket.",
        _object(
            {
                "title": STRING,
                "priority": {"enum": ["low", "normal", "high"]},
                "tags": {"type": "array", "items": STRING},
            },
            ["title", "priority"],
        ),
    ),
    ToolConfig(
        "send_email",
        "Send an email.",
        _object({"to": STRING, "subject": STRING, "body": STRING}, ["to", "subject", "body"]),
    ),
    ToolConfig("get_stock_price", "Latest price of a stock.", _object({"symbol": STRING}, ["symbol"])),
    ToolConfig(
        "convert_currency",
        "Convert money.",
        _object({"amount": NUMBER, "from": STRING, "to": STRING}, ["amount", "from", "to"]),
    ),
    ToolConfig(
        "book_meeting",
        "Book a meeting.",
        _object(
            {"attendees": {"type": "array", "items": STRING}, "start": STRING, "minutes": INTEGER},
            ["attendees", "start"],
        ),
    ),
    ToolConfig("query_inventory", "Stock of a product.", _object({"sku": STRING, "warehouse": STRING}, ["sku"])),
    ToolConfig(
        "translate_text", "Translate text.", _object({"text": STRING, "target_lang": STRING}, ["text", "target_lang"])
    ),
    ToolConfig("fetch_url", "Fetch a web page.", _object({"url": STRING}, ["url"])),
]


@dataclass(frozen=True)
class EndpointProfile:
    name: str
    format: str
    url: str
    models: tuple[str, ...]
    weight: float
    endpoint_id: int | None = None  # None: a team endpoint since deleted (the conversation keeps its name)


@dataclass(frozen=True)
class Catalog:
    """What the seeded rows point at: the demo team, its people, endpoints and tools."""

    team_id: int
    user_ids: tuple[int, ...]  # demo first
    endpoints: tuple[EndpointProfile, ...]
    tools: tuple[dict[str, Any], ...]  # ToolConfig dicts, as Conversation.tools snapshots them


@dataclass
class Rows:
    conversations: list[tuple[Any, ...]] = field(default_factory=list)
    round_trips: list[tuple[Any, ...]] = field(default_factory=list)
    messages: list[tuple[Any, ...]] = field(default_factory=list)
    events: int = 0

    def extend(self, other: Rows) -> None:
        self.conversations += other.conversations
        self.round_trips += other.round_trips
        self.messages += other.messages
        self.events += other.events


def endpoint_profiles(simulated: dict[str, int]) -> tuple[EndpointProfile, ...]:
    """``simulated``: the built-in endpoints' ids by name. Weighted so a few endpoints dominate, as in real use."""
    sim = "http://127.0.0.1:8000/sim"
    return (
        EndpointProfile(
            "Simulated OpenAI",
            "openai-chat",
            f"{sim}/openai/v1/chat/completions",
            ("sim-1", "sim-mistral", "sim-deepseek"),
            3,
            simulated.get("Simulated OpenAI"),
        ),
        EndpointProfile(
            "Simulated Anthropic",
            "anthropic",
            f"{sim}/anthropic/v1/messages",
            ("sim-1",),
            1.5,
            simulated.get("Simulated Anthropic"),
        ),
        EndpointProfile(
            "Simulated OpenAI Responses",
            "openai-responses",
            f"{sim}/openai/v1/responses",
            ("sim-1",),
            1,
            simulated.get("Simulated OpenAI Responses"),
        ),
        EndpointProfile(
            "Simulated Gemini",
            "gemini",
            f"{sim}/gemini/v1beta/models/sim-1:streamGenerateContent?alt=sse",
            ("sim-1",),
            0.7,
            simulated.get("Simulated Gemini"),
        ),
        EndpointProfile(
            "OpenAI",
            "openai-chat",
            "https://api.openai.com/v1/chat/completions",
            ("gpt-4.1-mini", "gpt-4.1", "gpt-4o"),
            2,
        ),
        EndpointProfile(
            "Anthropic",
            "anthropic",
            "https://api.anthropic.com/v1/messages",
            ("claude-sonnet-4-5", "claude-haiku-4-5"),
            1.5,
        ),
        EndpointProfile(
            "OpenRouter",
            "openai-chat",
            "https://openrouter.ai/api/v1/chat/completions",
            ("meta-llama/llama-3.3-70b-instruct", "qwen/qwen3-32b", "mistralai/mistral-small-3.2"),
            1,
        ),
    )


def tool_snapshots(team_tools: list[ToolConfig]) -> tuple[dict[str, Any], ...]:
    return tuple(t.to_dict() for t in [*team_tools, *EXTRA_TOOLS])


# Status of a finished conversation, weighted: most runs end well; a few fail, stop or were interrupted.
STATUSES = [("done", 80), ("error", 7), ("stopped", 4), ("limit", 3), ("interrupted", 2), ("idle", 4)]
STATUS_MESSAGES = {
    "error": "The provider failed: upstream overloaded, try again.",
    "stopped": "Stopped by you.",
    "limit": "Stopped after 8 round trips (the limit in the settings).",
    "interrupted": "The server restarted while this ran; what had arrived is saved.",
}
RAW_FINISH = {
    "openai-chat": {"tool_calls": "tool_calls", "stop": "stop"},
    "anthropic": {"tool_calls": "tool_use", "stop": "end_turn"},
    "openai-responses": {"tool_calls": "completed", "stop": "completed"},
    "gemini": {"tool_calls": "STOP", "stop": "STOP"},
}
HEADERS = {
    "openai-chat": {"authorization": "[redacted]"},
    "openai-responses": {"authorization": "[redacted]"},
    "anthropic": {"x-api-key": "[redacted]", "anthropic-version": "2023-06-01"},
    "gemini": {"x-goog-api-key": "[redacted]"},
}


class Text:
    """Plausible prose from a small vocabulary with a Zipf-like spread, so the full-text index has real skew."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.cum_weights = list(_accumulate([1 / (rank + 1) ** 0.9 for rank in range(len(WORDS))]))

    def sentence(self) -> str:
        words = self.rng.choices(WORDS, cum_weights=self.cum_weights, k=self.rng.randint(8, 18))
        return " ".join(words).capitalize() + "."

    def prose(self, chars: int) -> str:
        parts: list[str] = []
        size = 0
        while size < chars:
            parts.append(self.sentence())
            size += len(parts[-1]) + 1
        return " ".join(parts)


def _accumulate(values: list[float]) -> Iterator[float]:
    total = 0.0
    for value in values:
        total += value
        yield total


def _arguments(name: str, rng: random.Random, text: Text) -> dict[str, Any]:
    """Arguments that fit each tool's schema, with values varied enough to be worth searching for."""
    city, other = rng.sample(CITIES, 2)
    makers: dict[str, Callable[[], dict[str, Any]]] = {
        "get_weather": lambda: {"city": city, "unit": rng.choice(["celsius", "fahrenheit"])},
        "calculator": lambda: {"expression": f"({rng.randint(2, 900)} + {rng.randint(2, 900)}) * {rng.randint(2, 9)}"},
        "lookup_order": lambda: {"order_id": f"A-{rng.randint(1000, 99999)}"},
        "search_docs": lambda: {"query": f"{rng.choice(TOPICS)} {text.sentence()[:40]}", "limit": rng.randint(1, 10)},
        "create_ticket": lambda: {
            "title": text.sentence()[:60],
            "priority": rng.choice(["low", "normal", "high"]),
            "tags": rng.sample(TOPICS, 2),
        },
        "send_email": lambda: {
            "to": f"{rng.choice(WORDS)}@example.com",
            "subject": text.sentence()[:50],
            "body": text.prose(160),
        },
        "get_stock_price": lambda: {"symbol": rng.choice(["ACME", "GLOBX", "INITC", "UMBR", "HOOLI", "VEHI"])},
        "convert_currency": lambda: {
            "amount": round(rng.uniform(5, 5000), 2),
            "from": "EUR",
            "to": rng.choice(["USD", "NOK", "JPY"]),
        },
        "book_meeting": lambda: {
            "attendees": [f"{w}@example.com" for w in rng.sample(WORDS, 2)],
            "start": f"2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T{rng.randint(8, 17)}:00",
            "minutes": rng.choice([15, 30, 45, 60]),
        },
        "query_inventory": lambda: {"sku": f"SKU-{rng.randint(10000, 99999)}", "warehouse": other},
        "translate_text": lambda: {"text": text.sentence(), "target_lang": rng.choice(LANGUAGES)},
        "fetch_url": lambda: {"url": f"https://docs.example.com/{rng.choice(TOPICS)}/{rng.randint(1, 400)}"},
    }
    return makers.get(name, lambda: {"input": text.sentence()})()


def _spoiled(arguments: dict[str, Any], rng: random.Random) -> str:
    """Arguments a model got wrong (about 3% of calls): a required key dropped or a value of the wrong type."""
    key = rng.choice(list(arguments))
    if rng.random() < 0.5:
        return json.dumps({k: v for k, v in arguments.items() if k != key})
    return json.dumps({**arguments, key: 12345 if isinstance(arguments[key], str) else "twelve"})


def _result(name: str, arguments: dict[str, Any], rng: random.Random, text: Text) -> str:
    if name == "get_weather":
        return json.dumps(
            {
                "city": arguments.get("city"),
                "temperature": rng.randint(-10, 33),
                "condition": rng.choice(["sunny", "fog", "light rain", "snow"]),
            }
        )
    if name == "lookup_order":
        return json.dumps(
            {"status": rng.choice(["shipped", "processing", "delivered"]), "eta": f"{rng.randint(1, 9)} days"}
        )
    return json.dumps({"ok": True, "summary": text.prose(rng.randint(80, 260))})


@dataclass
class Clock:
    """The moments of one conversation, moving forward as its run did."""

    now: datetime

    def advance(self, rng: random.Random, low: float, high: float) -> datetime:
        self.now += timedelta(seconds=rng.uniform(low, high))
        return self.now


@dataclass
class Builder:
    """Rows for one conversation; round trips and messages are appended as the run would have produced them."""

    catalog: Catalog
    rng: random.Random
    text: Text
    conversation_id: int
    round_trip_id: int
    message_id: int
    profile: EndpointProfile
    model: str
    tools: list[dict[str, Any]]
    clock: Clock
    history: list[Message] = field(default_factory=list)
    rows: Rows = field(default_factory=Rows)
    search_parts: list[str] = field(default_factory=list)
    called: list[str] = field(default_factory=list)
    invalid: int = 0
    errored: bool = False

    @property
    def base_request(self) -> ChatRequest:
        specs = [ToolConfig.from_dict(t).spec() for t in self.tools]
        return {
            "model": self.model,
            "tools": specs,
            "tool_choice": "auto",
            "temperature": 0.2,
            "max_tokens": 2048,
            "stream": True,
        }

    def message(
        self, data: Message, *, round_trip: int | None = None, meta: dict[str, Any] | None = None, complete: bool = True
    ) -> None:
        at = self.clock.advance(self.rng, 0.2, 6)
        position = len(self.history)
        self.history.append(data)
        row = (
            self.message_id + position,
            position,
            data["role"],
            _json(data),
            complete,
            _json(meta or {}),
            at,
            self.conversation_id,
            round_trip,
        )
        self.rows.messages.append(row)
        self._index(data)

    def _index(self, data: Message) -> None:
        """What index_conversation collects from a message, in the same order."""
        self.search_parts.append(search_index._text(data.get("content")))
        schemas = {t["name"]: t.get("parameters") for t in self.tools}
        for call in (data.get("tool_calls") or []) if data["role"] == "assistant" else []:
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            self.search_parts += [name, search_index._arguments_text(arguments)]
            self.called.append(name)
            self.invalid += not check_arguments(schemas.get(name), arguments).ok

    def round_trip(self, answer: Message, *, events: int | None = None, error: ProviderError | None = None) -> int:
        """Save a round trip whose answer is ``answer``; returns its id. ``events``: the exact raw event count."""
        position = len(self.rows.round_trips)
        codec = get_format(self.profile.format)
        request: ChatRequest = {**self.base_request, "messages": list(self.history)}
        finish = "tool_calls" if answer.get("tool_calls") else "stop"
        usage = {"prompt_tokens": 40 * len(self.history) + 300, "completion_tokens": self.rng.randint(20, 600)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        result = StreamResult(answer, finish, RAW_FINISH[self.profile.format][finish], usage, error, error is None)  # type: ignore[arg-type]
        # 4-character deltas where the count must be exact (big_conversation sizes its text for them), else
        # whatever size gives 26-54 events, as a provider streaming a short answer does.
        fragment = 4 if events is not None else self._fragment_size(answer)
        sse = codec.encode_stream(
            result, model=self.model, response_id=f"resp_{self.round_trip_id + position}", fragment_size=fragment
        )
        started = self.clock.advance(self.rng, 0.05, 0.5)
        t_ms = round(self.rng.uniform(150, 1200), 2)
        wire_events = []
        for event in sse:
            wire_events.append({"t_ms": t_ms, "event": event.event, "data": event.data})
            t_ms = round(t_ms + self.rng.expovariate(1 / 18), 2)
        self.clock.advance(self.rng, t_ms / 1000, t_ms / 1000)
        self.errored |= error is not None
        headers = {**HEADERS[self.profile.format], "content-type": "application/json"}
        wire = {
            "method": "POST",
            "url": self.profile.url,
            "headers": headers,
            "body": codec.encode_request(request).value,
        }
        row = (
            self.round_trip_id + position,
            position,
            self.profile.format,
            self.model,
            _json(request),
            "[]",
            _json(wire),
            _json(wire_events),
            200,
            finish if error is None else "error",
            result.raw_finish_reason if error is None else "",
            _json(usage) if error is None else None,
            _json(error.to_dict()) if error else None,
            error is None,
            wire_events[0]["t_ms"],
            t_ms,
            started,
            self.conversation_id,
        )
        self.rows.round_trips.append(row)
        self.rows.events += len(wire_events)
        return self.round_trip_id + position

    def _fragment_size(self, answer: Message) -> int:
        calls = answer.get("tool_calls") or []
        chars = len(answer.get("content") or "") + sum(len(c["function"]["arguments"]) for c in calls)
        return max(2, math.ceil(chars / self.rng.randint(26, 54)))

    def conversation_row(self, status: str, created_by: int) -> tuple[Any, ...]:
        title = str(self.history[0]["content"]).strip().splitlines()[0][:80]
        parts = [title, *self.search_parts]
        called_tools = f" {' '.join(dict.fromkeys(self.called))} " if self.called else ""
        has_error = self.errored or status in (Conversation.Status.ERROR, "interrupted")
        created = self.rows.messages[0][6]
        options = ChatOptions(
            endpoint_id=self.profile.endpoint_id or 0, model=self.model, tools=[t["name"] for t in self.tools]
        )
        return (
            self.conversation_id,
            title,
            self.profile.name,
            self.profile.format,
            self.model,
            _json(options.to_dict()),
            _json(self.tools),
            status,
            STATUS_MESSAGES.get(status, ""),
            created,
            self.clock.now,
            created_by,
            self.catalog.team_id,
            self.profile.endpoint_id,
            None,
            "",
            "[]",
            None,
            None,
            called_tools,
            has_error,
            self.clock.now,
            self.invalid,
            "\n".join(p for p in parts if p)[: search_index.MAX_SEARCH_CHARS],
        )


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _weighted(rng: random.Random, pairs: list[tuple[Any, float]]) -> Any:
    return rng.choices([p[0] for p in pairs], weights=[p[1] for p in pairs])[0]


def _builder(
    catalog: Catalog, rng: random.Random, ids: tuple[int, int, int], tool_count: int, start: datetime
) -> Builder:
    profile = _weighted(rng, [(p, p.weight) for p in catalog.endpoints])
    tools = rng.sample(list(catalog.tools), tool_count)
    return Builder(catalog, rng, Text(rng), *ids, profile, rng.choice(profile.models), tools, Clock(start))


def _call(builder: Builder, name: str, index: int) -> dict[str, Any]:
    arguments = _arguments(name, builder.rng, builder.text)
    text = _spoiled(arguments, builder.rng) if builder.rng.random() < 0.03 else json.dumps(arguments)
    call_id = f"call_{builder.conversation_id}_{len(builder.history)}_{index}"
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def _user_text(builder: Builder, turn: int, planted: list[str]) -> str:
    tool_names = " and ".join(t["name"].replace("_", " ") for t in builder.tools[:2])
    topic, city = builder.rng.choice(TOPICS), builder.rng.choice(CITIES)
    opener = f"Can you use {tool_names} to help with the {topic} question for {city}?"
    body = builder.text.prose(builder.rng.randint(150, 420))
    extra = " ".join(f"Also check the {word} note from last week." for word in planted) if turn == 0 else ""
    return f"{opener} {body} {extra}".strip()


def conversation(catalog: Catalog, index: int, ids: tuple[int, int, int], now: datetime, seed: int) -> Rows:
    """One conversation of 20 messages and 8 round trips (4 turns); ``index`` picks what is planted in it."""
    rng = random.Random(seed * 1_000_003 + index)
    start = now - timedelta(days=rng.uniform(0, DAYS_OF_HISTORY))
    builder = _builder(catalog, rng, ids, rng.randint(2, 5), start)
    status = _weighted(rng, STATUSES)
    planted = [w for w, share in ((RARE_WORD, RARE_SHARE), (COMMON_WORD, COMMON_SHARE)) if rng.random() < share]
    for turn in range(TURNS):
        builder.message({"role": "user", "content": _user_text(builder, turn, planted)})
        names = [rng.choice(builder.tools)["name"] for _ in range(2)]
        calls = [_call(builder, name, i) for i, name in enumerate(names)]
        ask: Message = {"role": "assistant", "content": None, "tool_calls": calls}  # type: ignore[typeddict-item]
        builder.message(ask, round_trip=builder.round_trip(ask))
        for call in calls:
            arguments = json.loads(call["function"]["arguments"])
            content = _result(call["function"]["name"], arguments, rng, builder.text)
            meta = {
                "source": rng.choice(["builtin", "canned", "manual"]),
                "attempt": 1,
                "tool": call["function"]["name"],
            }
            builder.message({"role": "tool", "tool_call_id": call["id"], "content": content}, meta=meta)
        _answer(builder, failing=status == "error" and turn == TURNS - 1)
    created_by = catalog.user_ids[0] if rng.random() < 0.7 else rng.choice(catalog.user_ids)
    return _finished(builder, status, created_by)


def _answer(builder: Builder, *, failing: bool) -> None:
    """The closing answer of a turn; a failing one breaks off mid-stream with an in-stream error, what came kept."""
    text = builder.text.prose(builder.rng.randint(200, 480))
    error = ProviderError("stream", "upstream overloaded, try again", status=200, retryable=True) if failing else None
    answer: Message = {"role": "assistant", "content": text[: len(text) // 2] if failing else text}
    builder.message(answer, round_trip=builder.round_trip(answer, error=error), complete=not failing)


def _finished(builder: Builder, status: str, created_by: int) -> Rows:
    builder.clock.advance(builder.rng, 0.5, 3)
    builder.rows.conversations.append(builder.conversation_row(status, created_by))
    return builder.rows


def big_conversation(catalog: Catalog, ids: tuple[int, int, int], now: datetime) -> Rows:
    """An agent loop of 100 round trips with exactly 500 raw events each (50,000), as one long run leaves it:
    each round trip streams ~1,900 characters in 4-character deltas and calls a tool, a user steps in every 10."""
    rng = random.Random(7)
    builder = _builder(catalog, rng, ids, 5, now - timedelta(hours=3))
    builder.profile = next(p for p in catalog.endpoints if p.format == "openai-chat")
    builder.model = builder.profile.models[0]
    for position in range(BIG_ROUND_TRIPS):
        if position % BIG_TURN_EVERY == 0:
            builder.message({"role": "user", "content": _user_text(builder, position, [])})
        last = position % BIG_TURN_EVERY == BIG_TURN_EVERY - 1
        calls = [] if last else [_call(builder, rng.choice(builder.tools)["name"], 0)]
        answer: Message = {"role": "assistant", "content": _sized_text(builder, calls)}
        if calls:
            answer["tool_calls"] = calls  # type: ignore[typeddict-item]
        builder.message(answer, round_trip=builder.round_trip(answer, events=BIG_EVENTS_PER_ROUND_TRIP))
        for call in calls:
            content = _result(call["function"]["name"], json.loads(call["function"]["arguments"]), rng, builder.text)
            builder.message(
                {"role": "tool", "tool_call_id": call["id"], "content": content},
                meta={"source": "builtin", "attempt": 1, "tool": call["function"]["name"]},
            )
    rows = _finished(builder, "done", catalog.user_ids[0])
    if rows.events != BIG_ROUND_TRIPS * BIG_EVENTS_PER_ROUND_TRIP:
        raise AssertionError(f"the big conversation has {rows.events} raw events, not 50,000")
    return rows


def _sized_text(builder: Builder, calls: list[dict[str, Any]]) -> str:
    """Text whose 4-character deltas, with the role, call and closing chunks of openai-chat, make exactly 500 events:
    1 role chunk + text pieces + per call (1 head + argument pieces) + finish + usage + [DONE]."""
    fixed = 1 + 3 + sum(1 + math.ceil(len(c["function"]["arguments"]) / 4) for c in calls)
    chars = (BIG_EVENTS_PER_ROUND_TRIP - fixed) * 4
    return builder.text.prose(chars)[:chars]


def batch(catalog: Catalog, first: int, count: int, base_ids: tuple[int, int, int], now: datetime, seed: int) -> Rows:
    """Conversations ``first`` .. ``first + count - 1``; row ids are derived from the index, so batches built in
    parallel never collide."""
    rows = Rows()
    conversation_base, round_trip_base, message_base = base_ids
    for index in range(first, first + count):
        ids = (conversation_base + index, round_trip_base + index * 2 * TURNS, message_base + index * 5 * TURNS)
        rows.extend(conversation(catalog, index, ids, now, seed))
    return rows
