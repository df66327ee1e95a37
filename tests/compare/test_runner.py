"""The comparison runner: columns run at once through the chat service, a failing column leaves the others alone,
a Stop ends one column, and everything is saved as it happens (the comparison reads the same after a reload)."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

import pytest
from channels.db import database_sync_to_async
from django.http import QueryDict
from django.template.loader import render_to_string
from django.utils.html import escape

from playground.chat.processes import PROCESS_ID
from playground.chat.registry import REGISTRY, send_control
from playground.compare.models import Comparison, ComparisonRun
from playground.compare.pages import column_view, comparison_context, diff_context
from playground.compare.service import (
    NOT_RUN_AFTER_STOP,
    CompareRefused,
    create_comparison,
    parse_plan,
    run_comparison,
    stop_column,
)
from playground.conversations.models import Conversation, RoundTrip
from playground.conversations.raw_events import add_batched
from tests.compare.conftest import plan

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from playground.teams.models import Team

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


async def _conversations(comparison: Comparison) -> list[Conversation]:
    rows = ComparisonRun.objects.filter(comparison=comparison).order_by("position", "repeat")
    return [await Conversation.objects.aget(pk=row.conversation_id) async for row in rows]


async def test_three_columns_run_concurrently_and_each_finishes_its_tool_loop(
    team: Team, alice: User, simulated: dict[str, int], settings: object
) -> None:
    settings.CROSSWIRE_SIMULATOR_PACE_MS = 40  # type: ignore[attr-defined]  # slow enough to overlap measurably
    columns = [
        (simulated["Simulated OpenAI"], "sim-1"),
        (simulated["Simulated Anthropic"], "sim-1"),
        (simulated["Simulated OpenAI"], "sim-mistral"),
    ]
    comparison = await database_sync_to_async(create_comparison)(team, alice, plan(columns))

    running_together = 0

    async def watch() -> None:
        nonlocal running_together
        while True:
            ids = [c.pk for c in await _conversations(comparison)]
            running_together = max(running_together, sum(REGISTRY.is_running(i) for i in ids))
            await asyncio.sleep(0.02)

    watcher = asyncio.create_task(watch())
    await asyncio.wait_for(run_comparison(comparison.pk, alice), 60)
    watcher.cancel()
    assert running_together == 3, "all three columns were running at the same moment"

    conversations = await _conversations(comparison)
    assert [c.status for c in conversations] == ["done", "done", "done"]
    for conversation in conversations:
        trips = [rt async for rt in RoundTrip.objects.filter(conversation=conversation).order_by("position")]
        assert len(trips) == 2, "a round trip with the weather calls, then the answer with their results"
        tools_sent = {t["function"]["name"] for t in trips[0].request["tools"]}
        assert tools_sent == {"get_weather", "calculator"}
    formats = [c.format for c in conversations]
    assert formats == ["openai-chat", "anthropic", "openai-chat"]
    # The wire diff profiles each first round trip's raw events, which its streaming kept in batches.
    diff = (await database_sync_to_async(diff_context)(comparison, QueryDict()))["diff"]
    first = [await RoundTrip.objects.aget(conversation=c, position=0) for c in conversations[:2]]
    assert [diff["events_left"].events, diff["events_right"].events] == [rt.event_count for rt in first]
    assert all(rt.event_count > 2 and not rt.wire_events for rt in first)


async def test_a_failing_column_does_not_stop_the_others(team: Team, alice: User, simulated: dict[str, int]) -> None:
    columns = [
        (simulated["Simulated OpenAI"], "sim-429"),
        (simulated["Simulated Anthropic"], "sim-1"),
        (simulated["Simulated OpenAI"], "sim-cut"),
    ]
    comparison = await database_sync_to_async(create_comparison)(team, alice, plan(columns))
    await asyncio.wait_for(run_comparison(comparison.pk, alice), 60)

    rate_limited, fine, cut = await _conversations(comparison)
    assert rate_limited.status == "error"
    limited_trip = await RoundTrip.objects.filter(conversation=rate_limited).afirst()
    assert limited_trip is not None and limited_trip.status_code == 429 and limited_trip.error["type"] == "rate_limit"
    assert fine.status == "done"
    assert cut.status == "error"
    cut_trip = await RoundTrip.objects.filter(conversation=cut).afirst()
    assert cut_trip is not None and not cut_trip.complete
    await database_sync_to_async(add_batched)([cut_trip])
    assert cut_trip.wire_events, "what arrived is kept"
    # The run ended on the round trip's error and says it again, with its retry-after: one error, listed once.
    assert "Retry after" in rate_limited.status_message
    context = await database_sync_to_async(comparison_context)(comparison, True, QueryDict())
    errors = context["columns"][0].summary.errors
    assert len(errors) == 1 and errors[0].startswith("rate_limit: "), errors


async def test_a_column_that_failed_gives_its_error_once(team: Team, alice: User, simulated: dict[str, int]) -> None:
    """The status line says what the run's message adds to its round trip's error, which the error card shows."""
    columns = [(simulated["Simulated OpenAI"], "sim-429"), (simulated["Simulated Anthropic"], "sim-1")]
    comparison = await database_sync_to_async(create_comparison)(team, alice, plan(columns))
    await asyncio.wait_for(run_comparison(comparison.pk, alice), 60)

    def body() -> str:
        return render_to_string("compare/_column_body.html", {"column": column_view(comparison, 0)})

    html = await database_sync_to_async(body)()
    trip = await RoundTrip.objects.aget(conversation=(await _conversations(comparison))[0])
    assert html.count(escape(trip.error["message"])) == 1, html
    assert '<span class="run-message">Retry after 1 s.</span>' in html


async def test_stop_on_one_column_ends_it_and_its_repeats_while_the_others_finish(
    team: Team, alice: User, simulated: dict[str, int]
) -> None:
    columns = [(simulated["Simulated OpenAI"], "sim-slow"), (simulated["Simulated Anthropic"], "sim-1")]
    comparison = await database_sync_to_async(create_comparison)(team, alice, plan(columns, repeat=2))
    runner = asyncio.create_task(run_comparison(comparison.pk, alice))
    slow = (await _conversations(comparison))[0]
    deadline = time.monotonic() + 10
    # Started, not only registered: its control channel is listening, so the Stop cannot arrive before it does.
    while not ((run := REGISTRY.get(slow.pk)) is not None and run.started):
        assert time.monotonic() < deadline, "the slow column never started"
        await asyncio.sleep(0.02)
    await send_control(slow.pk, {"type": "stop"})
    await asyncio.wait_for(runner, 60)

    slow_first, slow_repeat, other_first, other_repeat = await _conversations(comparison)
    assert slow_first.status == "stopped"
    assert slow_repeat.status == "stopped" and not await slow_repeat.messages.aexists(), "the next repeat never ran"
    assert slow_repeat.status_message == "Not run: an earlier repeat of this column did not finish."
    assert (other_first.status, other_repeat.status) == ("done", "done")


async def _waiting_call(conversation_id: int) -> str:
    """The id of the call a run waits on for a person's answer, once it waits."""
    deadline = time.monotonic() + 20
    while not ((run := REGISTRY.get(conversation_id)) is not None and run.waiting):
        assert time.monotonic() < deadline, f"conversation {conversation_id} never asked for an answer"
        await asyncio.sleep(0.02)
    return next(iter(run.waiting))


async def test_a_columns_stop_ends_the_repeat_running_after_its_first_and_the_rest_are_not_run(
    team: Team, alice: User, simulated: dict[str, int]
) -> None:
    """The column shows its first run; Stop must still reach the repeat running after it, and the ones after that."""
    manual = plan(
        [(simulated["Simulated OpenAI"], "sim-1")], '/call search_docs {"query": "refunds"}', 3, tools=["search_docs"]
    )
    comparison = await database_sync_to_async(create_comparison)(team, alice, manual)
    runner = asyncio.create_task(run_comparison(comparison.pk, alice))
    first, second, third = await _conversations(comparison)
    call = await _waiting_call(first.pk)
    await send_control(first.pk, {"type": "tool_result", "call_id": call, "content": "5 days.", "is_error": False})
    await _waiting_call(second.pk)  # the first run is done; the second waits for its answer
    await stop_column(comparison.pk, 0)
    await asyncio.wait_for(runner, 30)

    first, second, third = await _conversations(comparison)
    assert first.status == "done"
    assert second.status == "stopped"
    assert (third.status, third.status_message) == ("stopped", NOT_RUN_AFTER_STOP)
    assert not await third.messages.aexists(), "the last repeat never ran"
    context = await database_sync_to_async(comparison_context)(comparison, True, QueryDict())
    assert context["busy"] is False and not context["columns"][0].progress.active


async def test_a_refused_column_says_its_repeats_will_not_run_and_the_results_settle(
    team: Team, alice: User, simulated: dict[str, int], settings: Any
) -> None:
    """Over the per-person limit, a column is refused: its other repeats are marked, not left to wait for ever."""
    settings.CROSSWIRE_MAX_RUNS_PER_USER = 1
    await Conversation.objects.acreate(team=team, run_by=alice, status="running", run_owner=PROCESS_ID, title="Busy")
    columns = [(simulated["Simulated OpenAI"], "sim-1"), (simulated["Simulated Anthropic"], "sim-1")]
    comparison = await database_sync_to_async(create_comparison)(team, alice, plan(columns, repeat=2))
    await asyncio.wait_for(run_comparison(comparison.pk, alice), 60)
    statuses = [(c.status, c.status_message) for c in await _conversations(comparison)]
    limit = "You have 1 run going already (at most 1 at once), in “Busy”: stop one or wait for one to finish."
    refused = ("error", limit)
    not_run = ("stopped", "Not run: an earlier repeat of this column did not finish.")
    assert statuses == [refused, not_run, refused, not_run]
    context = await database_sync_to_async(comparison_context)(comparison, True, QueryDict())
    assert context["busy"] is False, "nothing is left to fill in"


async def test_the_saved_comparison_reads_the_same_after_the_runs(
    team: Team, alice: User, simulated: dict[str, int]
) -> None:
    columns = [(simulated["Simulated OpenAI"], "sim-1"), (simulated["Simulated Anthropic"], "sim-1")]
    comparison = await database_sync_to_async(create_comparison)(team, alice, plan(columns, repeat=2))
    await asyncio.wait_for(run_comparison(comparison.pk, alice), 60)

    def read() -> dict[str, object]:
        from django.http import QueryDict

        fresh = Comparison.objects.get(pk=comparison.pk)
        return comparison_context(fresh, True, QueryDict())

    context = await database_sync_to_async(read)()
    columns_view = context["columns"]
    assert [c.summary.round_trips for c in columns_view] == [2, 2]
    assert all(c.summary.calls and c.summary.invalid_count == 0 for c in columns_view)
    assert all(c.summary.ttfb_ms is not None and c.summary.total_ms for c in columns_view)
    assert context["agreement"].compared == 2
    stats = context["repeat_stats"]
    assert [(s.runs, s.finished) for s in stats] == [(2, 2), (2, 2)]
    assert all(s.latency_min is not None and s.latency_min <= s.latency_median <= s.latency_max for s in stats)
    diff = context["diff"]
    assert diff is not None
    assert diff["left_url"].endswith("/chat/completions") and diff["right_url"].endswith("/v1/messages")
    changed = {row.path for row in diff["rows"] if row.state != "same"}
    assert "tools[0].function.parameters.type" in changed or any(p.startswith("tools[0].input_schema") for p in changed)
    same = await database_sync_to_async(diff_context)(comparison, QueryDict("a=0&b=0"))
    assert (same["a"], same["b"]) == (0, 1), "a column is never compared with itself"
    assert same["diff"]["events_left"].events > 0 and same["diff"]["events_right"].events > 0


def test_a_plan_refuses_bad_columns_and_repeat_counts(team: Team, alice: User, simulated: dict[str, int]) -> None:
    with pytest.raises(CompareRefused) as refused:
        parse_plan({"text": " "}, [{"endpoint_id": "x", "model": ""}] * 5, 11)
    errors = refused.value.errors
    assert "text" in errors and "repeat" in errors and "column-0" in errors
    assert errors[""] == ["At most 4 columns."]
    with pytest.raises(CompareRefused) as unknown:
        create_comparison(team, alice, plan([(999_999, "sim-1")]))
    assert unknown.value.errors == {"column-0": ["Pick a provider endpoint."]}
    assert not Comparison.objects.exists()
