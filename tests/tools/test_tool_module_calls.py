"""Calling module tools as the chat does: validated first, async ones awaited, sync ones on a thread, within a time
limit, every failure an error result the model can read (and retry on), never an exception that ends the run."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from playground.tools import builtins
from playground.tools.config import ToolConfig, answer_automatically, answer_module_tool
from playground.tools.results import ToolResult


@pytest.fixture(autouse=True)
def shop_tools() -> Iterator[None]:
    saved = dict(builtins.BUILTINS)
    builtins.install(["playground.tools.examples", "tests.tools.sample_modules.shop"])
    yield
    builtins.BUILTINS.clear()
    builtins.BUILTINS.update(saved)


def builtin(name: str) -> ToolConfig:
    return ToolConfig(name=name, mode="builtin", builtin=name)


async def both(name: str, arguments: dict[str, Any]) -> tuple[ToolResult, ToolResult]:
    """The async entry point, and the sync one (from a thread, as sync code in a running loop would call it)."""
    awaited = await answer_module_tool(builtin(name), arguments)
    blocking = await asyncio.to_thread(answer_automatically, builtin(name), arguments)
    assert awaited is not None and blocking is not None
    return awaited, blocking


ORDER = {"items": [{"sku": "A-1", "quantity": 2}], "address": {"street": "1 rue", "country": "FR"}}


async def test_a_sync_tool_runs_with_typed_arguments_and_its_value_becomes_json() -> None:
    for result in await both("place_order", {**ORDER, "speed": "express"}):
        assert not result.is_error and result.source == "builtin:place_order"
        assert json.loads(str(result.content)) == {
            "skus": ["A-1"],
            "quantities": [2],
            "country": "FR",
            "speed": "express",
            "speed_is_enum": True,
            "gift": None,
        }


async def test_an_async_tool_is_awaited() -> None:
    for result in await both("track", {"parcel_id": "PX-1"}):
        assert (result.content, result.is_error) == ("PX-1: out for delivery", False)


async def test_a_non_text_value_is_sent_as_json() -> None:
    for result in await both("no_arguments", {}):
        assert result.content == "[1, 2, 3]"


async def test_arguments_the_schema_refuses_are_an_error_result_before_the_function_runs() -> None:
    for result in await both("place_order", {"items": [{"sku": "A-1", "quantity": "2"}], "address": {}}):
        assert result.is_error
        assert str(result.content).startswith("Invalid arguments for place_order: ")


async def test_arguments_only_the_model_refuses_are_an_error_result_too() -> None:
    # The tool's schema was loosened by hand to accept anything: the function's own model still decides.
    loose = ToolConfig(name="place_order", mode="builtin", builtin="place_order", parameters={"type": "object"})
    original = builtins.BUILTINS["place_order"]
    builtins.BUILTINS["place_order"] = builtins.Builtin(
        original.name, original.description, {"type": "object"}, original.run
    )
    result = await answer_module_tool(loose, {"items": "many"})
    assert result is not None and result.is_error
    assert "Invalid arguments for place_order: items: Input should be a valid array" in str(result.content)
    assert "address: Field required" in str(result.content)


@pytest.mark.parametrize("name", ["slow_async", "slow_sync"])
async def test_a_tool_past_its_time_limit_is_stopped_with_an_error_result(name: str) -> None:
    for result in await both(name, {"seconds": 1}):  # a stuck thread is abandoned, not waited for
        assert result.is_error
        assert result.content == f"{name} did not finish within its time limit of 0.2 s and was stopped."


async def test_a_tool_within_its_limit_answers() -> None:
    for result in await both("slow_async", {"seconds": 0}):
        assert result.content == "woke up"


async def test_exceptions_become_error_results() -> None:
    for result in await both("explode", {"reason": "a bug"}):
        assert (result.content, result.is_error) == ("explode failed: ValueError: a bug", True)
    for result in await both("refuse", {"reason": "No stock left."}):
        assert (result.content, result.is_error) == ("No stock left.", True)


async def test_a_timeout_the_tool_raises_is_its_own_error_not_the_time_limit() -> None:
    for result in await both("own_timeout", {}):
        assert result.content == "own_timeout failed: TimeoutError: the upstream service did not answer"


async def test_other_modes_answer_as_before() -> None:
    assert await answer_module_tool(ToolConfig(name="ask"), {}) is None
    canned = ToolConfig(name="c", mode="canned", canned_default="fixed")
    assert (await answer_module_tool(canned, {})).content == "fixed"  # type: ignore[union-attr]
    unknown = await answer_module_tool(builtin("gone"), {})
    assert unknown is not None and unknown.content == "Unknown built-in 'gone'."


async def test_the_example_tools_still_answer_through_the_async_entry_point() -> None:
    result = await answer_module_tool(builtin("calculator"), {"expression": "6 * 7"})
    assert result is not None and json.loads(str(result.content))["result"] == 42
