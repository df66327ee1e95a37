"""Compare in a real browser across four wire formats: a fourth column is added, two columns are switched to the
Simulated OpenAI Responses and Simulated Gemini endpoints, and one scripted call runs to the end in every column."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

pytestmark = pytest.mark.browser

CALL = '/call get_weather {"city": "Paris"}'


async def test_four_columns_in_four_formats_each_call_the_tool(signed_in: Page) -> None:
    page = signed_in
    await page.goto("/compare/")
    setups = page.get_by_test_id("compare-column-setup")
    await expect(setups).to_have_count(3)
    await page.get_by_test_id("compare-add-column").click()
    await expect(setups).to_have_count(4)
    await expect(page.get_by_test_id("compare-add-column")).to_be_hidden()  # four is the most
    for index, endpoint in ((2, "Simulated OpenAI Responses"), (3, "Simulated Gemini")):
        setup = setups.nth(index)
        await setup.get_by_test_id("compare-endpoint-select").select_option(label=endpoint)
        await expect(setup.get_by_test_id("compare-model-input")).to_have_value("sim-1")
    await page.get_by_test_id("compare-composer").fill(CALL)
    await page.get_by_test_id("compare-run").click()
    await page.wait_for_url("**/compare/*/")

    columns = page.get_by_test_id("compare-column")
    await expect(columns).to_have_count(4)
    expected = ["Simulated OpenAI", "Simulated Anthropic", "Simulated OpenAI Responses", "Simulated Gemini"]
    for i, endpoint in enumerate(expected):
        await expect(columns.nth(i)).to_have_attribute("data-endpoint", endpoint)
    for i in range(4):
        column = columns.nth(i)
        await expect(column.locator("[data-testid=run-status][data-status=done]")).to_have_count(1, timeout=30_000)
        await expect(column.get_by_test_id("tool-call").first).to_contain_text("Paris")
    await expect(page.get_by_test_id("compare-agreement")).to_contain_text("All 4 columns called the same tools")
