"""Limits in the browser: a history past the frame limit still streams live; a message too big is refused in place."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Page, expect

from tests.conftest import DemoServer
from tests.helpers import manage

pytestmark = pytest.mark.browser

BIG_HISTORY = """
from playground.conversations.models import Conversation, Message
from playground.endpoints.models import Endpoint
from playground.teams.access import ensure_personal_team
from django.contrib.auth.models import User
demo = User.objects.get(username="demo")
conversation = Conversation.objects.create(team=ensure_personal_team(demo), created_by=demo, title="Long report")
big = "The quarterly report, paragraph after paragraph. " * 12_000
Message.objects.create(conversation=conversation, position=0, role="user", data={"role": "user", "content": big})
Message.objects.create(conversation=conversation, position=1, role="assistant",
                       data={"role": "assistant", "content": "Noted."})
print(conversation.pk)
"""


async def wait_until_seen_live(page: Page) -> None:
    # wait_for_function evaluates a string, which the page's CSP (no unsafe-eval) refuses: poll instead.
    for _ in range(200):
        if await page.evaluate("() => window.sawHistoryLive"):
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the live pane never drew the history")


async def test_a_history_past_one_mib_of_frames_still_streams_live(signed_in: Page, daphne_server: DemoServer) -> None:
    page = signed_in
    made = await asyncio.to_thread(manage, daphne_server.server.env, "shell", "-v", "0", "-c", BIG_HISTORY)
    await page.goto(f"/c/{int(made.stdout.split()[-1])}/")
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await page.get_by_test_id("endpoint-select").select_option(label="Simulated OpenAI")
    await page.get_by_test_id("model-input").fill("sim-1")
    # The live pane is replaced by the saved (folded) one when the run ends: note when the history is drawn live.
    await page.evaluate(
        """() => {
        window.sawHistoryLive = false;
        const live = document.getElementById("live-panes");
        new MutationObserver(() => {
            if (live.textContent.includes("quarterly report")) window.sawHistoryLive = true;
        }).observe(live, {childList: true, subtree: true, characterData: true});
    }"""
    )
    await page.get_by_test_id("composer").fill("/text Summary: fine.")
    await page.keyboard.press("Control+Enter")
    # The round trip's start (the whole history, twice) travels in parts; the page draws it and the run ends.
    await wait_until_seen_live(page)
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    await expect(page.get_by_test_id("message").last).to_contain_text("Summary: fine.")
    # Saved, a request this big is folded to keep the page quick; one click brings it back.
    await page.get_by_test_id("load-round-trip").last.click()
    await expect(page.locator("#panes").get_by_text("quarterly report").first).to_be_attached(timeout=10_000)


async def test_a_message_over_the_limit_is_refused_and_kept(signed_in: Page) -> None:
    page = signed_in
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    text = "x" * (1024 * 1024 + 10)
    await page.get_by_test_id("composer").fill(text)
    await page.keyboard.press("Control+Enter")
    await expect(page.get_by_test_id("error").last).to_contain_text("This message is 1.0 MiB; the limit is 512 KiB.")
    assert len(await page.get_by_test_id("composer").input_value()) == len(text)
    # In sight: not below the window, nor under the composer, which stays at the window's bottom.
    await page.set_viewport_size({"width": 1280, "height": 480})
    await page.evaluate("() => window.scrollTo(0, 0)")
    await page.keyboard.press("Control+Enter")
    await expect(page.get_by_test_id("error")).to_have_count(2)
    card, composer = (
        await page.get_by_test_id("error").last.bounding_box(),
        await page.locator("#composer-form").bounding_box(),
    )
    assert card is not None and composer is not None
    assert 0 <= card["y"] and card["y"] + card["height"] <= composer["y"] + 1, (card, composer)
    await expect(page.get_by_test_id("run-status")).not_to_have_attribute("data-status", "running")
