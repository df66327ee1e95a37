"""Export, import and fork in a real browser: a chat run on the simulator comes back equal from its own export, and
a fork at its first message opens with that message only, linked back to the original."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.browser.test_chat import send
from tests.browser.test_csp import RECORD_VIOLATIONS

pytestmark = pytest.mark.browser


async def transcript(page: Page) -> list[str]:
    """Each message's role and text, and each tool call's name and status, as the page shows them."""
    messages = page.get_by_test_id("message")
    shown = []
    for index in range(await messages.count()):
        message = messages.nth(index)
        role = await message.get_attribute("data-role")
        text = await message.locator(".msg-text").all_inner_texts()
        calls = await message.locator("[data-testid=tool-call] .tool-name").all_inner_texts()
        shown.append(f"{role}: {' '.join(text)} {' '.join(calls)}".strip())
    return shown


async def test_export_import_and_fork(signed_in: Page, tmp_path: Path) -> None:
    page = signed_in
    await page.add_init_script(RECORD_VIOLATIONS)  # the menus and the import page, under the strict CSP
    await send(page, "Simulated OpenAI", '/call get_weather {"city": "Oslo"}')
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    await expect(page.get_by_test_id("tool-call").first).to_have_attribute("data-status", "done")
    original_url = page.url
    # The saved transcript, not the live drawing it replaces when the run ends (live messages carry no role).
    await expect(page.locator("#live [data-testid=message]")).to_have_count(0)
    original = await transcript(page)
    assert len(original) >= 2 and original[0].startswith("user: /call get_weather")

    await page.get_by_test_id("export-menu").click()
    round_trips = await page.locator("article.rt").count()
    await expect(page.get_by_test_id("export-wire")).to_have_count(round_trips)  # refreshed as it opened
    async with page.expect_download() as info:
        await page.get_by_test_id("export-json").click()
    download = await info.value
    assert download.suggested_filename.endswith(".crosswire.json")
    saved = tmp_path / download.suggested_filename
    await download.save_as(saved)
    document = json.loads(saved.read_text())
    assert document["format"] == "crosswire.conversation" and len(document["round_trips"]) == round_trips >= 2

    await page.goto("/conversations/")
    await page.get_by_test_id("import-link").click()
    assert await page.evaluate("window.__violations") == []
    await page.get_by_test_id("import-file").set_input_files(saved)
    await page.get_by_test_id("import-submit").click()
    await page.wait_for_url(lambda url: re.search(r"/c/\d+/$", url) is not None and url != original_url)
    await expect(page.locator(".flash").first).to_contain_text("Imported the Crosswire export")
    assert await transcript(page) == original
    await expect(page.locator("#rt-1")).to_be_visible()  # the round trips came along, panes and all

    await page.goto(original_url)
    await page.get_by_test_id("fork-menu").click()
    await page.get_by_test_id("fork-at").select_option(index=0)
    await page.get_by_test_id("fork-button").click()
    await page.wait_for_url(lambda url: url != original_url and "/c/" in url)
    back = page.get_by_test_id("forked-from")
    await expect(back).to_contain_text("Forked from /call get_weather")
    await expect(page.get_by_test_id("message")).to_have_count(1)
    assert await transcript(page) == original[:1]
    assert await page.evaluate("window.__violations") == []
    await back.click()
    await page.wait_for_url(original_url + "#msg-0")  # at the message the fork was made from
