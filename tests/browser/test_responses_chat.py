"""The playground in a real browser with the Simulated OpenAI Responses endpoint: a built-in tool's arguments
stream into a card, the tool runs, the loop ends with an answer, and the wire pane shows the Responses traffic."""

from __future__ import annotations

import itertools

import pytest
from playwright.async_api import Page, expect

from tests.browser.test_chat import RECORD_ARGUMENT_STATES, send

pytestmark = pytest.mark.browser


async def test_a_builtin_tool_loop_over_the_responses_api(signed_in: Page) -> None:
    page = signed_in
    await page.evaluate(RECORD_ARGUMENT_STATES)
    await send(page, "Simulated OpenAI Responses", '/call get_weather {"city": "Paris", "unit": "celsius"}')
    card = page.get_by_test_id("tool-call").first
    await expect(card).not_to_have_attribute("data-status", "streaming", timeout=15_000)
    states: list[str] = await page.evaluate("window.argumentStates")
    assert len(states) >= 3, f"expected to watch the arguments grow, saw {states}"
    assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(states))
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    first = page.locator("#rt-0").get_by_test_id("pane-wire")
    await expect(first).to_contain_text("/sim/openai/v1/responses")
    await expect(first).to_contain_text("response.function_call_arguments.delta")
    second = page.locator("#rt-1").get_by_test_id("pane-wire")
    await expect(second).to_contain_text("function_call_output")
    await expect(page.get_by_test_id("tool-call").first).to_have_attribute("data-status", "done")
    await expect(page.get_by_test_id("message").last).to_contain_text("Paris")
