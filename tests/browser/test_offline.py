"""The browser goes offline mid-run and comes back: the page says so, resumes live and ends with the whole answer."""

from __future__ import annotations

import pytest
from playwright.async_api import BrowserContext, Page, expect

pytestmark = pytest.mark.browser

WORDS = " ".join(f"piece{n}" for n in range(80))


async def test_offline_then_online_mid_run_resumes_live(signed_in: Page, context: BrowserContext) -> None:
    page = signed_in
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await page.get_by_test_id("endpoint-select").select_option(label="Simulated OpenAI")
    await page.get_by_test_id("model-input").fill("sim-1")
    await page.get_by_test_id("composer").fill(f"/text {WORDS}")
    await page.keyboard.press("Control+Enter")
    await expect(page.locator("#live")).to_contain_text("piece3", timeout=15_000)

    await context.set_offline(True)
    await page.evaluate("window.dispatchEvent(new Event('offline'))")
    await expect(page.get_by_test_id("chat-connection")).to_be_visible(timeout=15_000)
    await page.wait_for_timeout(1500)
    await context.set_offline(False)

    await expect(page.get_by_test_id("chat-connection")).to_be_hidden(timeout=30_000)
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=30_000)
    await expect(page.get_by_test_id("message").last).to_contain_text(WORDS)
