"""The Conversations list in a real browser: a search finds a tool-call argument value as you type."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

pytestmark = pytest.mark.browser


async def test_search_finds_a_tool_argument_value_as_you_type(signed_in: Page) -> None:
    page = signed_in
    await page.goto("/")
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await page.get_by_test_id("endpoint-select").select_option(label="Simulated Anthropic")
    await page.get_by_test_id("composer").fill('/call get_weather {"city": "Ouagadougou"}')
    await page.keyboard.press("Control+Enter")
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)

    await page.goto("/conversations/")
    await page.get_by_test_id("search-input").fill("ouagadougou")
    rows = page.get_by_test_id("conversation-row")
    await expect(rows).to_have_count(1)
    await expect(rows.first.locator("mark").first).to_have_text("Ouagadougou")
    assert "q=ouagadougou" in page.url, "the search is in the URL, to share or bookmark"
    await page.reload()
    await expect(page.get_by_test_id("conversation-row")).to_have_count(1)
    await page.get_by_test_id("search-input").fill("no-such-word-anywhere")
    await expect(rows).to_have_count(0)
    await expect(page.get_by_text("No conversation matches")).to_be_visible()
