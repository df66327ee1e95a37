"""Did the columns call the same tools with JSON-equal arguments, and where not, which fields differ."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from playground.compare.summary import CallSummary, ColumnSummary


@dataclass(frozen=True)
class Difference:
    index: int  # the call's position in each column's sequence
    kind: str  # "tool": different tools (or a call missing); "arguments": same tool, fields differ
    names: list[str]  # per column, "" where that column made no call at this position
    fields: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Agreement:
    compared: int  # columns compared (those that made at least one round trip)
    agree: bool
    differences: list[Difference]
    # Column position -> index of a call that differs from another column's -> the fields that differ ("" for the
    # tool itself): the cards and fields the page highlights.
    differing_calls: dict[int, dict[int, list[str]]]
    left_out: int = 0  # columns with no round trip to compare (refused, or not run yet)
    running: int = 0  # compared columns still at work: what they called so far may change
    called: bool = True  # at least one compared column called a tool

    @property
    def headline(self) -> str:
        if self.compared < 2:
            return "Run at least two columns to compare their tool calls."
        if self.agree and not self.called:
            said = f"None of the {self.compared} columns called a tool."
        elif self.agree:
            said = f"All {self.compared} columns called the same tools with JSON-equal arguments."
        else:
            said = f"The columns differ in {len(self.differences)} place{'s' if len(self.differences) != 1 else ''}."
        if self.running:  # the calls of a column at work are not all in yet
            said = f"So far: {said[0].lower()}{said[1:]} {self.running} still running."
        if self.left_out:  # "all" must not read as every column of the page
            said += f" {self.left_out} column{'s' if self.left_out != 1 else ''} without a round trip left out."
        return said


def agreement(columns: list[ColumnSummary]) -> Agreement:
    compared = [c for c in columns if c.round_trips]
    sequences = [c.calls for c in compared]
    # A column still at work that has not made its Nth call yet is not "missing" it: at N, only the others count.
    at_work = [c.running for c in compared]
    differences = [d for i in range(max(map(len, sequences), default=0)) if (d := _compare_at(i, sequences, at_work))]
    differing: dict[int, dict[int, list[str]]] = {}
    for difference in differences:
        for column, calls in zip(compared, sequences, strict=True):
            if difference.index < len(calls):
                differing.setdefault(column.position, {})[difference.index] = difference.fields
    return Agreement(
        len(compared),
        not differences,
        differences,
        differing,
        len(columns) - len(compared),
        running=sum(1 for c in compared if c.running),
        called=any(sequences),
    )


def _compare_at(index: int, sequences: list[list[CallSummary]], at_work: list[bool]) -> Difference | None:
    calls = [s[index] if index < len(s) else None for s in sequences]
    names = [c.name if c else "" for c in calls]
    pending = {i for i, (call, busy) in enumerate(zip(calls, at_work, strict=True)) if call is None and busy}
    if len({name for i, name in enumerate(names) if i not in pending}) > 1:
        return Difference(index, "tool", names)
    keys = {c.key() for c in calls if c}
    if len(keys) <= 1:
        return None
    return Difference(index, "arguments", names, differing_fields([c.arguments for c in calls if c]))


def differing_fields(values: list[Any]) -> list[str]:
    """Top-level argument fields whose values are not JSON-equal in every column ("(arguments)" if not objects)."""
    if not all(isinstance(v, dict) for v in values):
        return ["(arguments)"]
    names = sorted({name for value in values for name in value})
    return [n for n in names if len({json.dumps(v.get(n, _MISSING), sort_keys=True) for v in values}) > 1]


_MISSING = {"__missing__": True}


def consistency(runs: list[list[tuple[str, str]]]) -> float | None:
    """The share of repeats that made the most common sequence of calls (1.0: every repeat agreed)."""
    if not runs:
        return None
    most_common = Counter(json.dumps(r) for r in runs).most_common(1)[0][1]
    return most_common / len(runs)
