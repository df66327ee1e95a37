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


async def middle(page: Page, selector: str) -> tuple[float, float]:
    """The vertical middle and the height of the first element ``selector`` finds."""
    box = await page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not drawn"
    return box["y"] + box["height"] / 2, box["height"]


async def test_the_toolbar_and_the_raw_events_keep_their_lines_at_a_laptop_width(signed_in: Page) -> None:
    """Five actions beside the status, and Responses' long event names, in a 1440-px window: a button never breaks
    over two lines, the status keeps its line, and an event's data is not squeezed beside its name."""
    page = signed_in
    await page.set_viewport_size({"width": 1440, "height": 900})
    await send(page, "Simulated OpenAI Responses", '/call get_weather {"city": "Paris"}')
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    await page.reload()
    await expect(page.get_by_test_id("replay-button")).to_be_visible()

    buttons = [f"[data-testid={name}]" for name in ("review-link", "export-menu", "fork-menu", "replay-button")]
    boxes = [await middle(page, selector) for selector in buttons]
    assert max(y for y, _ in boxes) - min(y for y, _ in boxes) < 2, f"the actions share one line: {boxes}"
    assert max(h for _, h in boxes) - min(h for _, h in boxes) < 2, f"no action breaks over two lines: {boxes}"
    label, message = await middle(page, ".run-status .run-label"), await middle(page, ".run-status .run-message")
    assert abs(label[0] - message[0]) < 2 and message[1] < 24, f"the status keeps one line: {label} {message}"

    await page.get_by_test_id("replay-button").click()
    form, text = page.get_by_test_id("replay-form"), page.get_by_test_id("replay-form").locator("p")
    panel, words = await form.bounding_box(), await text.bounding_box()
    assert panel is not None and words is not None
    assert words["x"] + words["width"] <= panel["x"] + panel["width"] + 1, "a menu's text wraps inside its panel"
    await page.get_by_test_id("replay-button").click()

    line = page.locator("#rt-0 [data-testid=wire-event]", has_text="response.function_call_arguments.delta").first
    await line.scroll_into_view_if_needed()
    whole, name, data = (
        await line.bounding_box(),
        await line.locator(".ev").bounding_box(),
        await line.locator("code").bounding_box(),
    )
    assert whole is not None and name is not None and data is not None
    assert name["x"] + name["width"] <= whole["x"] + whole["width"] + 1, "the event's name stays inside its line"
    assert data["width"] > 0.6 * whole["width"], f"the event's data has room of its own: {data} in {whole}"
