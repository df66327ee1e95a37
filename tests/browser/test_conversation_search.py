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


async def test_the_filters_panel_opens_inside_the_window_with_its_fields_drawn(signed_in: Page) -> None:
    page = signed_in
    await page.set_viewport_size({"width": 1280, "height": 800})
    await page.goto("/conversations/")
    toolbar = [page.get_by_test_id("search-input"), page.locator("summary", has_text="Filters")]
    toolbar.append(page.get_by_test_id("import-link"))
    middles = []
    for control in toolbar:
        box = await control.bounding_box()
        assert box is not None
        middles.append(box["y"] + box["height"] / 2)
    assert max(middles) - min(middles) < 2, f"the toolbar's controls sit on one line: {middles}"

    await page.locator("summary", has_text="Filters").click()
    panel = page.locator(".conversation-filters")
    await expect(panel).to_be_visible()
    box = await panel.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 1280, f"the panel runs off: {box}"
    errors = page.locator(".conversation-filters input[name=errors]")
    check = await errors.bounding_box()
    assert check is not None and check["width"] < 24, "a checkbox is drawn as a checkbox, not a text field"
    since = await page.locator(".conversation-filters input[name=since]").bounding_box()
    select = await page.get_by_test_id("filter-tool").bounding_box()
    assert since is not None and select is not None
    assert abs(since["height"] - select["height"]) < 2, "the date fields are drawn like the menus beside them"


async def test_the_list_and_the_navigation_fit_a_narrow_window(signed_in: Page) -> None:
    """At 800 px the navigation keeps one row and a wide table scrolls in its own box, not the page."""
    page = signed_in
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await page.get_by_test_id("composer").fill('/call get_weather {"city": "Ouagadougou", "unit": "fahrenheit"}')
    await page.keyboard.press("Control+Enter")
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    await page.set_viewport_size({"width": 800, "height": 800})
    for path in ("/conversations/", "/compare/", "/"):
        await page.goto(path)
        assert await page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"), path
        links = page.locator(".nav .nav-link")
        tops = {round((await links.nth(i).bounding_box() or {"y": -1})["y"]) for i in range(await links.count())}
        assert len(tops) == 1, f"{path}: the navigation wraps onto {len(tops)} rows"
