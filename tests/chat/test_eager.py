"""``start_now``: a coroutine run in the caller's step until it first waits, and what is left of it awaited after."""

from __future__ import annotations

import asyncio

import pytest

from playground.chat.eager import start_now


async def test_a_coroutine_that_never_waits_is_done_before_start_now_returns() -> None:
    done: list[str] = []

    async def send(text: str) -> None:
        done.append(text)

    assert start_now(send("hello")) is None
    assert done == ["hello"], "run in the caller's own step: no task, no turn of the event loop"


async def test_what_is_left_after_a_wait_finishes_when_awaited_with_its_result() -> None:
    steps: list[str] = []

    async def slow() -> int:
        steps.append("before")
        await asyncio.sleep(0.01)
        steps.append("after")
        return 42

    rest = start_now(slow())
    assert rest is not None and steps == ["before"]
    assert await rest == 42
    assert steps == ["before", "after"]


async def test_an_error_before_the_first_wait_is_raised_by_start_now() -> None:
    async def closed(text: str) -> None:
        raise ConnectionError(text)

    with pytest.raises(ConnectionError, match="gone"):
        start_now(closed("gone"))


async def test_an_error_after_a_wait_is_raised_where_the_rest_is_awaited() -> None:
    async def fails_later() -> None:
        await asyncio.sleep(0)
        raise ConnectionError("closed mid-send")

    rest = start_now(fails_later())
    assert rest is not None
    with pytest.raises(ConnectionError, match="mid-send"):
        await rest


async def test_cancelling_the_task_that_awaits_the_rest_reaches_the_coroutine() -> None:
    cleaned: list[bool] = []

    async def waits_long() -> None:
        try:
            await asyncio.sleep(30)
        finally:
            cleaned.append(True)

    rest = start_now(waits_long())
    assert rest is not None

    async def finish() -> None:
        await rest

    task = asyncio.create_task(finish())
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleaned == [True]


async def test_a_value_sent_back_into_a_suspended_coroutine_arrives() -> None:
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str] = loop.create_future()

    async def waits_for_answer() -> str:
        return (await future) + "!"

    rest = start_now(waits_for_answer())
    assert rest is not None
    loop.call_later(0.01, future.set_result, "answer")
    assert await rest == "answer!"


async def test_an_awaitable_that_is_not_a_coroutine_is_left_to_be_awaited() -> None:
    future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    assert start_now(future) is future
    future.set_result(1)
    assert await future == 1


async def test_closing_what_is_left_closes_the_coroutine() -> None:
    cleaned: list[bool] = []

    async def waits() -> None:
        try:
            await asyncio.sleep(30)
        finally:
            cleaned.append(True)

    rest = start_now(waits())
    assert rest is not None and cleaned == []
    rest.close()  # type: ignore[attr-defined]
    assert cleaned == [True]


async def test_an_error_thrown_in_and_handled_by_the_coroutine_lets_it_return() -> None:
    async def recovers() -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            return "saved what it had"
        return "never"

    rest = start_now(recovers())
    assert rest is not None
    task = asyncio.ensure_future(rest)
    await asyncio.sleep(0.01)
    task.cancel()
    assert await task == "saved what it had"
