"""The agreement line of a comparison: what it compares, and that it says which columns it could not."""

from __future__ import annotations

from playground.compare.agreement import agreement
from playground.compare.summary import CallSummary, ColumnSummary
from playground.conversations.models import Conversation


def column(position: int, *calls: tuple[str, dict[str, str]], round_trips: int = 1) -> ColumnSummary:
    summary = ColumnSummary(position, Conversation(), round_trips=round_trips)
    summary.calls = [CallSummary(name, arguments, True) for name, arguments in calls]
    return summary


def test_columns_that_agree_are_counted_and_one_without_a_round_trip_is_said_to_be_left_out() -> None:
    weather = ("get_weather", {"city": "Paris"})
    same = agreement([column(0, weather), column(1, weather), column(2, weather), column(3, round_trips=0)])
    assert same.agree and same.compared == 3 and same.left_out == 1
    assert same.headline == (
        "All 3 columns called the same tools with JSON-equal arguments. 1 column without a round trip left out."
    )
    assert agreement([column(0, weather), column(1, weather)]).headline.endswith("JSON-equal arguments.")


def test_columns_that_differ_say_where_and_name_the_fields() -> None:
    result = agreement([column(0, ("get_weather", {"city": "Paris"})), column(1, ("get_weather", {"city": "Oslo"}))])
    assert not result.agree and result.headline == "The columns differ in 1 place."
    assert [(d.kind, d.fields) for d in result.differences] == [("arguments", ["city"])]
    assert result.differing_calls == {0: {0: ["city"]}, 1: {0: ["city"]}}


def test_columns_that_called_nothing_or_still_run_are_not_said_to_agree_on_calls() -> None:
    quiet = agreement([column(0), column(1)])
    assert quiet.headline == "None of the 2 columns called a tool."
    weather = ("get_weather", {"city": "Paris"})
    busy = column(1, weather)
    busy.conversation.status = Conversation.Status.RUNNING
    so_far = agreement([column(0, weather), busy])
    assert so_far.headline == (
        "So far: all 2 columns called the same tools with JSON-equal arguments. 1 still running."
    )


def test_a_stopped_or_failed_repeat_counts_neither_for_consistency_nor_for_time() -> None:
    from playground.compare.repeats import repeat_stats

    runs = []
    for status, city, total in (("done", "Paris", 100.0), ("done", "Paris", 300.0), ("stopped", "Oslo", 5.0)):
        run = column(0, ("get_weather", {"city": city}))
        run.conversation.status, run.total_ms = status, total
        runs.append(run)
    failed = column(0)
    failed.conversation.status = "error"
    stats = repeat_stats(0, "Simulated OpenAI · sim-1", [*runs, failed])
    assert (stats.runs, stats.finished) == (4, 2)
    assert stats.agreement_percent == "100%"
    assert (stats.latency_min, stats.latency_max) == (100.0, 300.0)


def test_a_column_still_running_is_not_said_to_miss_a_call_it_has_not_made_yet() -> None:
    weather = ("get_weather", {"city": "Paris"})
    busy = column(1)
    busy.conversation.status = Conversation.Status.WAITING
    waiting = agreement([column(0, weather), busy])
    assert waiting.agree and waiting.differing_calls == {}
    done = column(1)
    done.conversation.status = Conversation.Status.DONE
    assert not agreement([column(0, weather), done]).agree, "a column that ended without the call does differ"
