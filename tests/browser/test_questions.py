"""A person's part in a run, in a real browser: approving a call, typing its answer, stopping while one is asked,
a replayed column asking the same questions as the chat, and a page reloaded while a round trip streams."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from tests.browser.test_chat import send

pytestmark = pytest.mark.browser


async def set_approval(page: Page, on: bool) -> None:
    drawer = page.locator("details.more-options")
    if await drawer.get_attribute("open") is None:
        await drawer.locator("summary").click()
    await page.get_by_test_id("approve-toggle").set_checked(on)


async def test_an_approved_hand_answered_call_asks_for_its_answer_and_shows_the_edit(signed_in: Page) -> None:
    page = signed_in
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await set_approval(page, True)  # each test starts from a first chat's settings (the signed_in fixture)
    await approve_edit_and_answer(page)


async def approve_edit_and_answer(page: Page) -> None:
    await send(page, "Simulated OpenAI", '/call search_docs {"query": "refunds"}')
    card = page.get_by_test_id("tool-call").first
    arguments = page.get_by_test_id("approval-arguments")
    await expect(arguments).to_be_visible(timeout=15_000)
    await arguments.fill('{"query": "refund policy"}')
    await page.get_by_test_id("approve").click()
    # Approved: the approval gives way to the question a hand-answered tool asks next.
    answer = page.get_by_test_id("tool-result-input")
    await expect(answer).to_be_visible(timeout=15_000)
    await expect(page.get_by_test_id("approval-arguments")).to_have_count(0)
    await expect(card.locator(".badge").first).to_have_text("your answer")
    await answer.fill("Refunds are paid within 5 days.")
    await page.get_by_test_id("tool-result-send").click()
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    for _ in range(2):  # as drawn when the run ended, and after a reload
        card = page.get_by_test_id("tool-call").first
        await expect(card.get_by_test_id("tool-call-args")).to_contain_text('"query": "refunds"')
        await expect(card.get_by_test_id("tool-call-edited")).to_contain_text('"query": "refund policy"')
        await page.reload()


async def test_a_stop_while_an_answer_is_asked_takes_the_question_away(signed_in: Page) -> None:
    page = signed_in
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await set_approval(page, False)
    await send(page, "Simulated OpenAI", '/call search_docs {"query": "pagination"}')
    await expect(page.get_by_test_id("tool-result-input")).to_be_visible(timeout=15_000)
    await page.get_by_test_id("stop").click()
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "stopped", timeout=15_000)
    for _ in range(2):  # at once, and after a reload: no form left that would send an answer nobody waits for
        await expect(page.get_by_test_id("tool-result-input")).to_have_count(0)
        card = page.get_by_test_id("tool-call").first
        await expect(card).to_have_attribute("data-status", "unanswered")
        await page.reload()
        await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)


async def test_a_replayed_column_asks_for_approval_as_the_chat_does(signed_in: Page) -> None:
    """A replay keeps the chat's settings, "Approve before running" too: its column offers the chat's whole
    approval (edit, deny), and shows the edit it ran with."""
    page = signed_in
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await set_approval(page, True)
    await approve_in_a_replayed_column(page)


async def approve_in_a_replayed_column(page: Page) -> None:
    await send(page, "Simulated OpenAI", '/call get_weather {"city": "Oslo"}')
    await expect(page.get_by_test_id("approve")).to_be_visible(timeout=15_000)
    await page.get_by_test_id("approve").click()
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    await page.get_by_test_id("replay-button").click()
    await page.get_by_test_id("replay-endpoint").select_option(label="Simulated Anthropic")
    await page.get_by_test_id("replay-submit").click()
    await page.wait_for_url("**/compare/*/")
    column = page.get_by_test_id("compare-column").nth(1)
    await expect(column.get_by_test_id("deny")).to_be_visible(timeout=20_000)
    await column.get_by_test_id("approval-arguments").fill('{"city": "Bergen"}')
    await column.get_by_test_id("approve").click()
    await expect(column.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    await expect(column.get_by_test_id("approval-arguments")).to_have_count(0)
    for _ in range(2):  # as drawn when the column's run ended, and after a reload
        card = column.get_by_test_id("tool-call").first
        await expect(card.get_by_test_id("tool-call-args")).to_contain_text('"city": "Oslo"')
        await expect(card.get_by_test_id("tool-call-edited")).to_contain_text('"city": "Bergen"')
        await page.reload()


async def test_a_page_reloaded_mid_stream_shows_the_round_trip_once(signed_in: Page) -> None:
    page = signed_in
    await send(page, "Simulated OpenAI", "/text one two three four five six")
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    await page.get_by_test_id("model-input").fill("sim-slow")
    await page.get_by_test_id("composer").fill("/text one two three four five six")
    await page.keyboard.press("Control+Enter")
    await expect(page.locator("#live-panes #rt-1")).to_be_visible(timeout=15_000)
    await page.reload()
    await expect(page.locator("#live-panes #rt-1")).to_be_visible(timeout=15_000)
    await expect(page.locator("[id=rt-1]")).to_have_count(1)
    await expect(page.locator("#panes #rt-0")).to_have_count(1)
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=30_000)
    await expect(page.locator("#panes #rt-1")).to_have_count(1)
    await expect(page.locator("[id=rt-1]")).to_have_count(1)


async def test_reset_takes_the_carried_over_settings_away(signed_in: Page) -> None:
    page = signed_in
    await set_approval(page, True)
    await page.locator("input[name=max_tokens]").fill("8")
    await send(page, "Simulated OpenAI", "/text carried")
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    await page.get_by_test_id("new-chat").click()
    await expect(page.get_by_test_id("options-changed")).to_contain_text("approve before running")
    await page.locator("details.more-options summary").click()
    await page.get_by_test_id("options-reset").click()
    await expect(page.locator(".flash")).to_contain_text("Settings reset")
    await expect(page.get_by_test_id("options-changed")).to_have_count(0)
    await expect(page.get_by_test_id("approve-toggle")).not_to_be_checked()


async def test_a_setting_changed_and_never_sent_is_kept_for_the_next_chat(signed_in: Page) -> None:
    page = signed_in
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await set_approval(page, True)
    await expect(page.get_by_test_id("options-changed")).to_have_text("· approve before running")  # said at once
    await page.reload()
    await expect(page.get_by_test_id("approve-toggle")).to_be_checked()  # saved, with no message sent
    await set_approval(page, False)
    await expect(page.get_by_test_id("options-changed")).to_have_count(0)
    await page.get_by_test_id("new-chat").click()
    await expect(page.get_by_test_id("options-changed")).to_have_count(0)
    await expect(page.get_by_test_id("approve-toggle")).not_to_be_checked()


async def test_an_approval_edit_that_is_not_json_is_pointed_out_before_it_runs(signed_in: Page) -> None:
    page = signed_in
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await set_approval(page, True)
    await send(page, "Simulated OpenAI", '/call get_weather {"city": "Oslo"}')
    arguments = page.get_by_test_id("approval-arguments")
    await expect(arguments).to_be_visible(timeout=15_000)
    await arguments.fill('{"city": "Berlin",')  # a typo: the closing brace is missing
    await page.get_by_test_id("approve").click()
    hint = page.get_by_test_id("approval-hint")
    await expect(hint).to_contain_text("not valid JSON")
    await expect(page.get_by_test_id("approve")).to_be_enabled()  # nothing was sent
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "waiting")

    await arguments.fill('{"city": "Berlin"')  # edited: the warning goes, and comes back for the new text
    await expect(hint).to_be_empty()
    await page.get_by_test_id("approve").click()
    await expect(hint).to_contain_text("not valid JSON")
    await page.get_by_test_id("approve").click()  # asked twice: run as given, the tool refuses it
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    card = page.get_by_test_id("tool-call").first
    await expect(card.get_by_test_id("tool-call-edited")).to_contain_text('{"city": "Berlin"')
    await expect(card).to_contain_text("Arguments are not valid JSON")
    await expect(card).not_to_contain_text("..")
