"""A round trip's raw events read from the keyboard on the chat page, and by a click on the review page, which
shows the same panes without the chat's client."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Page, expect

from tests.browser.test_chat import send
from tests.browser.test_review import SETUP, open_review
from tests.conftest import DemoServer
from tests.helpers import manage

pytestmark = pytest.mark.browser

# How many folds of a tree are on screen: those with no folded fold around them.
ON_SCREEN = """(tree) => Array.from(tree.querySelectorAll("summary"))
  .filter((s) => !s.parentElement.parentElement.closest("details:not([open])")).length"""
NOT_THE_ROOT = """() => document.activeElement
  !== document.activeElement.closest(".json-tree").querySelector("summary")"""


async def test_the_raw_events_are_one_tab_stop_read_with_the_arrow_keys(signed_in: Page) -> None:
    page = signed_in
    await send(page, "Simulated OpenAI", '/call get_weather {"city": "Oslo"}')
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    events = page.locator("#panes #rt-0 ol.wire-events")  # the saved pane, once the run's end has brought it
    lines = events.locator("li")
    await expect(lines.first).to_be_visible(timeout=10_000)
    count = await lines.count()
    assert count > 3, "a streamed call has several raw events"
    await expect(lines.first).not_to_have_attribute("tabindex", "0")  # the list is the tab stop, not each event
    await events.focus()
    await page.keyboard.press("ArrowDown")
    await expect(lines.nth(0)).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(lines.nth(0)).to_have_class("is-open")
    await page.keyboard.press("ArrowDown")
    await expect(lines.nth(1)).to_be_focused()
    await page.keyboard.press(" ")
    await expect(lines.nth(1)).to_have_class("is-open")
    await page.keyboard.press("Space")
    await expect(lines.nth(1)).not_to_have_class("is-open")
    await page.keyboard.press("End")
    await expect(lines.nth(count - 1)).to_be_focused()
    await page.keyboard.press("ArrowDown")  # past the end: it stays on the last
    await expect(lines.nth(count - 1)).to_be_focused()
    await page.keyboard.press("Home")
    await expect(lines.nth(0)).to_be_focused()
    await page.keyboard.press("Escape")
    await expect(events).to_be_focused()


async def test_a_raw_event_opens_with_a_click_on_the_review_page(signed_in: Page, daphne_server: DemoServer) -> None:
    made = await asyncio.to_thread(manage, daphne_server.server.env, "shell", "-v", "0", "-c", SETUP)
    await open_review(signed_in, int(made.stdout.split()[-1]))
    await signed_in.locator("#review-rt-0 > summary").click()
    line = signed_in.locator("#review-rt-0 [data-testid=wire-event]").first
    await line.click()
    await expect(line).to_have_class("is-open")


async def test_a_json_tree_is_one_tab_stop_folded_and_walked_with_the_arrow_keys(signed_in: Page) -> None:
    page = signed_in
    await send(page, "Simulated OpenAI", '/call get_weather {"city": "Oslo"}')
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    tree = page.locator("#panes #rt-0 [data-testid=pane-internal] .json-tree").first
    summaries = tree.locator("summary")
    await expect(summaries.first).to_be_visible(timeout=10_000)  # the saved pane, drawn as a tree
    assert await summaries.count() > 3, "the internal request has nested objects"
    await expect(summaries.nth(1)).to_have_attribute("tabindex", "-1")  # the root alone is a tab stop
    root = summaries.first
    await root.focus()
    await page.keyboard.press("ArrowDown")
    second = summaries.nth(1)
    await expect(second).to_be_focused()
    folded = second.locator("xpath=..")
    await expect(folded).to_have_attribute("open", "")
    await page.keyboard.press("ArrowLeft")  # folds it
    await expect(folded).not_to_have_attribute("open", "")
    await page.keyboard.press("ArrowRight")  # unfolds it
    await expect(folded).to_have_attribute("open", "")
    await page.keyboard.press("ArrowLeft")
    await page.keyboard.press("ArrowLeft")  # folded already: up to its parent, the root
    await expect(root).to_be_focused()
    await page.keyboard.press("ArrowUp")  # nothing above the root: it stays
    await expect(root).to_be_focused()
    # Down through every fold on screen, past the folded ones' insides, to the last: End goes there at once.
    on_screen = await tree.evaluate(ON_SCREEN)
    for _ in range(on_screen - 1):
        await page.keyboard.press("ArrowDown")
    last = await page.evaluate("() => document.activeElement.textContent")
    await root.focus()
    await page.keyboard.press("End")
    assert await page.evaluate("() => document.activeElement.textContent") == last
    assert await page.evaluate(NOT_THE_ROOT)
