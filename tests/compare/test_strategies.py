"""A strategy per compare column: the same model side by side under native and prompted tool calling."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from channels.db import database_sync_to_async
from django.http import QueryDict

from playground.compare.forms import posted_columns
from playground.compare.models import ComparisonRun
from playground.compare.pages import comparison_context
from playground.compare.service import CompareRefused, create_comparison, parse_plan, run_comparison
from playground.conversations.models import Conversation, Message, RoundTrip

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from playground.teams.models import Team

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


def test_each_column_posts_its_own_strategy() -> None:
    data = QueryDict(mutable=True)
    data.update({"col-0-model": "sim-1", "col-0-strategy": "native", "col-1-model": "sim-1"})
    data.update({"col-1-strategy": "prompted"})
    assert [c.get("strategy") for c in posted_columns(data)] == ["native", "prompted"]
    shared = {"text": "hi", "tools": [], "tool_choice": "auto"}
    plan = parse_plan(shared, [{"endpoint_id": 1, "model": "sim-1", "strategy": "prompted"}], 1)
    assert plan.columns[0].strategy == "prompted"
    with pytest.raises(CompareRefused) as refused:
        parse_plan(shared, [{"endpoint_id": 1, "model": "m", "strategy": "x"}], 1)
    assert "strategy" in str(refused.value)


async def test_the_same_model_under_native_and_prompted_side_by_side(
    team: Team, alice: User, simulated: dict[str, int]
) -> None:
    endpoint = simulated["Simulated OpenAI"]
    shared = {"text": "What's the weather in Paris?", "tools": ["get_weather"], "tool_choice": "auto"}
    columns = [
        {"endpoint_id": endpoint, "model": "sim-1", "max_tokens": 512, "strategy": strategy}
        for strategy in ("native", "prompted")
    ]
    comparison = await database_sync_to_async(create_comparison)(team, alice, parse_plan(shared, columns, 1))
    await run_comparison(comparison.pk, alice)
    rows = [row async for row in ComparisonRun.objects.filter(comparison=comparison).order_by("position")]
    native, prompted = [await Conversation.objects.aget(pk=row.conversation_id) for row in rows]
    assert (native.status, prompted.status) == ("done", "done")
    assert (native.settings["strategy"], prompted.settings["strategy"]) == ("native", "prompted")
    for conversation, sends_tools in ((native, True), (prompted, False)):
        first = await RoundTrip.objects.filter(conversation=conversation).order_by("position").afirst()
        assert first is not None and ("tools" in first.wire_request["body"]) is sends_tools
        answer = await Message.objects.filter(conversation=conversation, role="assistant").order_by("position").afirst()
        assert answer is not None
        [call] = answer.data["tool_calls"]
        assert json.loads(call["function"]["arguments"])["city"] == "Paris", "both columns made the same call"
        assert answer.meta == ({} if sends_tools else {"strategy": "prompted"})

    context = await database_sync_to_async(comparison_context)(comparison, True, QueryDict())
    cards = [[c for m in column.transcript for c in m.calls] for column in context["columns"]]
    assert [[c.strategy for c in column] for column in cards] == [[""], ["prompted"]]
