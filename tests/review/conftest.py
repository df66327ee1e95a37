"""Review fixtures: a saved conversation with one good, one invalid, one failed and one unanswered tool call and a
failed round trip, as a run leaves them; and signed-in clients of the team's owner, editor and viewer."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from django.test import Client

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from playground.conversations.models import Conversation
    from playground.teams.models import Team

HTMX = {"HTTP_HX_REQUEST": "true"}
WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}
CALLS = {"good": "call_good", "invalid": "call_invalid", "failed": "call_failed", "open": "call_open"}


@pytest.fixture
def mallory(django_user_model: type[User]) -> User:
    """Signed in, but in no team of the conversation: an outsider."""
    return django_user_model.objects.create_user("mallory", password="another-password-77")


def _call(call_id: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": arguments}}


def _tool_result(call_id: str, content: str, *, is_error: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {"role": "tool", "tool_call_id": call_id, "content": content}
    if is_error:
        data["is_error"] = True
    return data


def build_conversation(team: Team, author: User) -> Conversation:
    from playground.conversations.models import Conversation, Message, RoundTrip

    tool = {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA}}
    conversation = Conversation.objects.create(
        team=team,
        created_by=author,
        title="Weather in four cities",
        endpoint_name="Simulated OpenAI",
        format="openai-chat",
        model="sim-1",
        status=Conversation.Status.ERROR,
        tools=[{"name": "get_weather", "parameters": WEATHER_SCHEMA}],
    )
    first = RoundTrip.objects.create(
        conversation=conversation,
        position=0,
        format="openai-chat",
        model="sim-1",
        complete=True,
        request={"model": "sim-1", "tools": [tool], "messages": [{"role": "user", "content": "Weather?"}]},
        wire_request={
            "method": "POST",
            "url": "http://127.0.0.1/sim/openai/v1/chat/completions",
            "headers": {"authorization": "[redacted]", "content-type": "application/json"},
            "body": {"model": "sim-1", "stream": True},
        },
        wire_events=[{"t_ms": 3.0, "event": None, "data": '{"choices": []}'}],
        status_code=200,
        finish_reason="tool_calls",
        raw_finish_reason="tool_calls",
    )
    calls = [
        _call(CALLS["good"], '{"city": "Paris"}'),
        _call(CALLS["invalid"], '{"town": "Lyon"}'),
        _call(CALLS["failed"], '{"city": "Atlantis"}'),
        _call(CALLS["open"], '{"city": "Oslo"}'),
    ]
    rows = [
        ("user", {"role": "user", "content": "What's the weather in Paris, Lyon, Atlantis and Oslo?"}, None, {}),
        ("assistant", {"role": "assistant", "content": "Let me look.", "tool_calls": calls}, first, {}),
        ("tool", _tool_result(CALLS["good"], '{"temp": 21}'), None, {"source": "builtin"}),
        ("tool", _tool_result(CALLS["invalid"], "city is required", is_error=True), None, {"source": "validation"}),
        ("tool", _tool_result(CALLS["failed"], "No such city", is_error=True), None, {"source": "builtin"}),
    ]
    for position, (role, data, round_trip, meta) in enumerate(rows):
        Message.objects.create(
            conversation=conversation, position=position, role=role, data=data, round_trip=round_trip, meta=meta
        )
    # The next round trip failed before any text arrived: it saved no message, and stands alone in the timeline.
    RoundTrip.objects.create(
        conversation=conversation,
        position=1,
        format="openai-chat",
        model="sim-1",
        complete=False,
        request={"model": "sim-1", "tools": [tool]},
        status_code=429,
        error={"type": "rate_limit", "message": "Too many requests", "retry_after": 2},
    )
    return conversation


@pytest.fixture
def reviewed(team: Team, alice: User) -> Conversation:
    return build_conversation(team, alice)


@pytest.fixture
def client_for() -> Callable[[User | None], Client]:
    """A client of its own per user (None: signed out), so several people can act in one test."""

    def make(user: User | None) -> Client:
        client = Client()
        if user is not None:
            client.force_login(user)
        return client

    return make
