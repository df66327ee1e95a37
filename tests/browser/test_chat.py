"""The playground in a real browser: tool calls stream into cards, both panes fill, runs survive a reload."""

from __future__ import annotations

import itertools

import pytest
from playwright.async_api import Page, expect

pytestmark = pytest.mark.browser

WIRE_SIGNS = {"Simulated OpenAI": '"tool_calls"', "Simulated Anthropic": "input_json_delta"}


async def send(page: Page, endpoint: str, text: str) -> None:
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await page.get_by_test_id("endpoint-select").select_option(label=endpoint)
    await page.get_by_test_id("model-input").fill("sim-1")
    await page.get_by_test_id("composer").fill(text)
    await page.keyboard.press("Control+Enter")


# Installed before sending: records, inside the page, every text the live card's arguments show while streaming.
RECORD_ARGUMENT_STATES = """
window.argumentStates = [];
new MutationObserver(() => {
  const card = document.querySelector("#live [data-testid=tool-call]");
  const args = card && card.querySelector("[data-testid=tool-call-args]");
  if (!args || card.dataset.status !== "streaming") return;
  const states = window.argumentStates;
  if (args.textContent && states[states.length - 1] !== args.textContent) states.push(args.textContent);
}).observe(document.getElementById("live"), {subtree: true, childList: true, characterData: true});
"""


@pytest.mark.parametrize("endpoint", list(WIRE_SIGNS))
async def test_arguments_stream_into_a_card_while_both_panes_fill(signed_in: Page, endpoint: str) -> None:
    page = signed_in
    await page.evaluate(RECORD_ARGUMENT_STATES)
    await send(page, endpoint, '/call get_weather {"city": "Paris", "unit": "celsius"}')
    card = page.get_by_test_id("tool-call").first
    await expect(card).not_to_have_attribute("data-status", "streaming", timeout=15_000)
    states: list[str] = await page.evaluate("window.argumentStates")
    assert len(states) >= 3, f"expected to watch the arguments grow, saw {states}"
    assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(states))
    await expect(card.get_by_test_id("tool-fields")).to_contain_text("✓ city")
    first_round_trip = page.locator("#rt-0")
    await expect(first_round_trip.get_by_test_id("pane-wire")).to_contain_text(WIRE_SIGNS[endpoint])
    await expect(first_round_trip.get_by_test_id("pane-internal")).to_contain_text("tool_call")
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    # Saved and server-rendered now: the internal pane holds the assistant message with its tool_calls.
    await expect(page.locator("#rt-0").get_by_test_id("pane-internal")).to_contain_text('"tool_calls"')
    await expect(page.get_by_test_id("wire-event").first).to_be_visible()
    card = page.get_by_test_id("tool-call").first
    await expect(card).to_have_attribute("data-status", "done")
    await expect(card).to_contain_text('"city": "Paris"')
    await expect(page.get_by_test_id("message").last).to_contain_text("Paris")


async def test_a_manual_call_is_answered_after_a_reload_mid_run(signed_in: Page) -> None:
    page = signed_in
    await page.get_by_text("System prompt and parameters").click()
    await page.locator("textarea[name=system]").fill("You answer from the docs.")
    await send(page, "Simulated Anthropic", '/call search_docs {"query": "refund policy"}')
    await expect(page.get_by_test_id("tool-result-input")).to_be_visible(timeout=15_000)
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "waiting")
    await page.reload()  # the run lives on the server: the page comes back to the same question
    answer = page.get_by_test_id("tool-result-input")
    await expect(answer).to_be_visible(timeout=15_000)
    await answer.fill("Refunds are paid within 5 days.")
    await page.get_by_test_id("tool-result-send").click()
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    await expect(page.get_by_test_id("message").last).to_contain_text("Refunds are paid within 5 days.")
    await expect(page.get_by_test_id("translation-note").first).to_contain_text("top-level `system`")


async def test_provider_errors_show_as_readable_cards(signed_in: Page) -> None:
    page = signed_in
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await page.get_by_test_id("endpoint-select").select_option(label="Simulated Anthropic")
    await page.get_by_test_id("model-input").fill("sim-529")
    await page.get_by_test_id("composer").fill("hello?")
    await page.get_by_test_id("send").click()
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "error", timeout=15_000)
    await expect(page.get_by_test_id("error").first).to_contain_text("overloaded")
    # Once the run is saved the transcript is drawn again: the card stays where it was, and after a reload too.
    for _ in range(2):
        card = page.locator("#transcript [data-testid=message][data-role=assistant] [data-testid=error]")
        await expect(card).to_contain_text("overloaded")
        await expect(page.locator("#live [data-testid=error]")).to_have_count(0)
        await page.reload()


async def test_a_tool_defined_on_the_tools_page_is_called_in_the_chat(signed_in: Page) -> None:
    page = signed_in
    await page.goto("/tools/")
    await page.get_by_role("link", name="New tool").first.click()
    await page.get_by_test_id("tool-name-input").fill("check_stock")
    schema = '{"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}'
    await page.get_by_test_id("schema-editor").fill(schema)
    await page.get_by_test_id("save-tool").click()
    await expect(page.locator('[data-testid="tool-row"][data-tool="check_stock"]')).to_be_visible()

    await page.get_by_role("link", name="Playground").click()
    await page.locator(".tool-pick", has_text="check_stock").locator("input").check()
    await send(page, "Simulated OpenAI", '/call check_stock {"sku": "A-1"}')
    card = page.get_by_test_id("tool-call").first
    await expect(card).to_contain_text("check_stock")
    answer = page.get_by_test_id("tool-result-input")
    await answer.fill("12 in stock")
    await answer.press("Control+Enter")
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    await expect(page.get_by_test_id("message").last).to_contain_text("12 in stock")


async def test_a_refused_send_gives_the_text_back(signed_in: Page) -> None:
    page = signed_in
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await page.get_by_test_id("model-input").fill("")  # no model: the server refuses the turn
    await page.get_by_test_id("composer").fill("hello there")
    await page.get_by_test_id("send").click()
    await expect(page.get_by_test_id("error").last).to_contain_text("Check the chat settings")
    await expect(page.get_by_test_id("composer")).to_have_value("hello there")
    await expect(page.get_by_test_id("send")).to_be_enabled()
    await expect(page.get_by_test_id("stop")).to_be_hidden()


async def test_a_new_chat_offers_review_export_fork_and_replay_once_it_has_a_message(signed_in: Page) -> None:
    page = signed_in
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    actions = ["review-link", "export-menu", "fork-menu", "replay-button"]
    for testid in actions:  # nothing to review, export, fork or replay yet: an empty Fork menu used to be offered
        await expect(page.get_by_test_id(testid)).to_be_hidden()
    await send(page, "Simulated OpenAI", "/text Hello there")
    for testid in actions:  # shown as the first turn starts, without a reload
        await expect(page.get_by_test_id(testid)).to_be_visible(timeout=15_000)
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=15_000)
    await page.get_by_test_id("fork-menu").click()
    await expect(page.get_by_test_id("fork-at").locator("option")).to_have_count(2)
