"""Before a chat's first request goes, the portability check says what the target will refuse, in that round trip's
notes; what the translation changes is noted once, by the codec, not twice."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from playground.chat.registry import ActiveRun
from playground.chat.service import run_conversation
from playground.conversations.models import Conversation, Message
from playground.endpoints.models import Endpoint
from playground.tools.models import Tool

if TYPE_CHECKING:
    from django.contrib.auth.models import User


pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]

# An integer format on a string: Gemini refuses it. The email format it never takes: its codec drops that one.
COUNTER = {
    "type": "object",
    "properties": {"count": {"type": "string", "format": "int64"}, "mail": {"type": "string", "format": "email"}},
    "required": ["count"],
}


async def first_notes(conversation: Conversation, alice: User, endpoint_name: str, strategy: str) -> list[str]:
    endpoint = await Endpoint.objects.aget(name=endpoint_name)
    tool = await Tool.objects.acreate(team_id=conversation.team_id, name="counter", parameters=COUNTER)
    conversation.endpoint, conversation.format, conversation.model = endpoint, endpoint.format, "sim-1"
    conversation.tools = [tool.config().to_dict()]
    conversation.settings = {"endpoint_id": endpoint.pk, "model": "sim-1", "tools": ["counter"], "strategy": strategy}
    conversation.status = "running"
    await conversation.asave()
    user = {"role": "user", "content": "hello"}
    await Message.objects.acreate(conversation=conversation, position=0, role="user", data=user)
    run = ActiveRun(conversation.pk)
    run.emit = lambda frame, live=True: None  # type: ignore[method-assign]
    await run_conversation(conversation.pk, run)
    first = await conversation.round_trips.order_by("position").afirst()
    assert first is not None
    return list(first.notes)


async def test_a_refusal_is_said_in_the_first_round_trips_notes(conversation: Conversation, alice: User) -> None:
    notes = await first_notes(conversation, alice, "Simulated Gemini", "native")

    refusals = [n for n in notes if "will refuse it" in n]
    assert refusals == [
        "tool `counter`: Gemini will refuse it: `$.count`: format 'int64' is refused "
        "(only 'enum' and 'date-time' for STRING)"
    ]
    # The email format is dropped by the codec, which says so once.
    assert sum('`format: "email"` dropped' in n for n in notes) == 1


async def test_a_target_that_takes_the_tools_gets_no_such_note(conversation: Conversation, alice: User) -> None:
    notes = await first_notes(conversation, alice, "Simulated Anthropic", "native")

    assert not any("will refuse it" in n for n in notes)
