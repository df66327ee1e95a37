"""A saved conversation with everything an export carries: tool calls and results, several round trips, an error."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from playground.conversations.models import Conversation, Message, RoundTrip, WireEventBatch
from playground.demo.catalog import load_simulated_endpoints
from playground.endpoints.models import Endpoint
from playground.tools.config import ToolConfig
from playground.tools.models import Tool

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from playground.teams.models import Team

T0 = datetime(2026, 3, 14, 9, 26, 53, 589_000, tzinfo=UTC)
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
TOOLS = [
    ToolConfig(name="get_weather", description="Current weather for a city.", parameters=SCHEMA).to_dict(),
    {
        **ToolConfig(name="lookup_order", parameters={"type": "object", "properties": {}}).to_dict(),
        "mode": "canned",
        "canned_rules": [{"when": {"order_id": "A-1"}, "response": "shipped", "is_error": False}],
        "canned_default": "unknown order",
    },
]


def wire(fmt: str = "openai-chat", body: dict[str, Any] | None = None) -> dict[str, Any]:
    url = (
        "https://api.anthropic.com/v1/messages"
        if fmt == "anthropic"
        else "http://127.0.0.1:8000/sim/openai/v1/chat/completions"
    )
    return {
        "method": "POST",
        "url": url,
        "headers": {"authorization": "[redacted]", "content-type": "application/json"},
        "body": body
        or {"model": "sim-1", "messages": [{"role": "user", "content": "weather in Oslo?"}], "stream": True},
    }


def endpoint_named(name: str = "Simulated OpenAI") -> Endpoint:
    load_simulated_endpoints()
    return Endpoint.objects.get(name=name)


def saved_conversation(team: Team, user: User, *, endpoint: Endpoint | None = None, **fields: Any) -> Conversation:
    """Messages: 0 user, 1 assistant calling get_weather (round trip 0), 2 its result, 3 assistant text (round trip
    1), 4 a second user message whose round trip (2) failed with a 429."""
    endpoint = endpoint or endpoint_named()
    Tool.objects.get_or_create(team=team, name="get_weather", defaults={"parameters": SCHEMA})
    settings = {
        "endpoint_id": endpoint.pk,
        "model": "sim-1",
        "system": "Answer in one line.",
        "tools": ["get_weather", "lookup_order"],
        "tool_choice": "auto",
        "parallel_tool_calls": True,
        "temperature": 0.2,
        "max_tokens": 256,
        "reasoning": False,
        "stream": True,
        "approve": False,
        "max_round_trips": 8,
        "max_invalid_retries": 2,
    }
    conversation = Conversation.objects.create(
        team=team,
        created_by=user,
        title="weather in Oslo?",
        endpoint=endpoint,
        endpoint_name=endpoint.name,
        format=endpoint.format,
        model="sim-1",
        status=Conversation.Status.ERROR,
        status_message="Rate limited. Retry after 2 s.",
        settings=settings,
        tools=TOOLS,
        **fields,
    )
    rts = [
        _round_trip(conversation, 0, endpoint.format, finish="tool_calls", usage=(12, 7)),
        _round_trip(conversation, 1, endpoint.format, finish="stop", usage=(30, 9)),
        _round_trip(
            conversation,
            2,
            endpoint.format,
            finish="error",
            usage=None,
            error={"type": "rate_limit", "message": "Rate limited.", "retry_after": 2},
            status_code=429,
        ),
    ]
    rows = [
        ("user", {"role": "user", "content": "weather in Oslo?"}, None, {}),
        ("assistant", {"role": "assistant", "content": None, "tool_calls": [CALL]}, rts[0], {}),
        (
            "tool",
            {"role": "tool", "tool_call_id": "call_1", "content": '{"temp": -3, "sky": "snow"}'},
            None,
            {"source": "manual", "attempt": 1},
        ),
        ("assistant", {"role": "assistant", "content": "It is -3 °C and snowing in Oslo."}, rts[1], {}),
        ("user", {"role": "user", "content": "And tomorrow?"}, None, {}),
    ]
    for position, (role, data, round_trip, meta) in enumerate(rows):
        message = Message.objects.create(
            conversation=conversation, position=position, role=role, data=data, round_trip=round_trip, meta=meta
        )
        at = T0 + timedelta(seconds=[0, 1.2, 3, 4.5, 10][position])
        Message.objects.filter(pk=message.pk).update(created_at=at)
    conversation.refresh_from_db()
    return conversation


def _round_trip(
    conversation: Conversation,
    position: int,
    fmt: str,
    *,
    finish: str,
    usage: tuple[int, int] | None,
    error: dict[str, Any] | None = None,
    status_code: int = 200,
) -> RoundTrip:
    rt = RoundTrip.objects.create(
        conversation=conversation,
        position=position,
        format=fmt,
        model="sim-1",
        request={
            "model": "sim-1",
            "max_tokens": 256,
            "temperature": 0.2,
            "messages": [{"role": "user", "content": "weather in Oslo?"}],
            "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}],
        },
        notes=["reasoning dropped: target format has no equivalent"] if position == 0 else [],
        wire_request=wire(fmt),
        wire_events=[
            {"t_ms": 12.5, "event": None, "data": '{"choices":[]}'},
            {"t_ms": 40.0, "event": None, "data": "[DONE]"},
        ],
        status_code=status_code,
        finish_reason=finish,
        raw_finish_reason=finish,
        usage={"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)} if usage else None,
        error=error,
        complete=error is None,
        ttfb_ms=12.5,
        total_ms=40.0 + position,
    )
    RoundTrip.objects.filter(pk=rt.pk).update(started_at=T0 + timedelta(seconds=[1, 3.2, 10.1][position]))
    rt.refresh_from_db()
    return rt


def as_streamed(rt: RoundTrip, per_batch: int = 2) -> list[dict[str, Any]]:
    """Keep the round trip's raw events as a streamed one keeps them: in batches, its row only counting them.
    Returns the events, as a reader must give them back."""
    events = list(rt.wire_events)
    triples = [[e["t_ms"], e["data"], e["event"]] for e in events]
    for seq, start in enumerate(range(0, len(triples), per_batch)):
        WireEventBatch.objects.create(round_trip=rt, seq=seq, events=triples[start : start + per_batch])
    RoundTrip.objects.filter(pk=rt.pk).update(wire_events=[], event_count=len(events))
    rt.refresh_from_db()
    return events
