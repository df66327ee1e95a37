"""Tool-calling strategies in a real browser: a prompted run streams its call into a card made from the reply text,
and a compare puts the same model under native and prompted tool calling side by side."""

from __future__ import annotations

import itertools

import pytest
from playwright.async_api import Page, expect

pytestmark = pytest.mark.browser

# Long arguments, so the call streams in many fragments at the server's pace.
CITY = "Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch " * 2
LONG_CALL = f'/call get_weather {{"city": "{CITY.strip()}", "unit": "celsius"}}'

# Installed before sending: every text the live card's arguments show while streaming, and the card's strategy.
RECORD_LIVE_CARD = """
window.argumentStates = [];
window.liveStrategy = null;
new MutationObserver(() => {
  const card = document.querySelector("#live [data-testid=tool-call]");
  const args = card && card.querySelector("[data-testid=tool-call-args]");
  if (!args || card.dataset.status !== "streaming") return;
  window.liveStrategy = card.dataset.strategy || "";
  const states = window.argumentStates;
  if (args.textContent && states[states.length - 1] !== args.textContent) states.push(args.textContent);
}).observe(document.getElementById("live"), {subtree: true, childList: true, characterData: true});
"""

# Per compare column: the live card's argument texts and its strategy.
RECORD_COLUMNS = """
window.columnStates = {};
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("[data-testid=compare-column]").forEach((column) => {
    const seen = window.columnStates[column.dataset.position] = {states: [], strategy: null};
    new MutationObserver(() => {
      const card = column.querySelector(".compare-live [data-testid=tool-call]");
      const args = card && card.querySelector("[data-testid=tool-call-args]");
      if (!args || card.dataset.status !== "streaming") return;
      seen.strategy = card.dataset.strategy || "";
      const last = seen.states[seen.states.length - 1];
      if (args.textContent && last !== args.textContent) seen.states.push(args.textContent);
    }).observe(column, {subtree: true, childList: true, characterData: true});
  });
});
"""


async def test_a_prompted_run_streams_its_call_into_a_card_that_says_so(signed_in: Page) -> None:
    page = signed_in
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await page.evaluate(RECORD_LIVE_CARD)
    await page.get_by_test_id("endpoint-select").select_option(label="Simulated OpenAI")
    await page.get_by_test_id("model-input").fill("sim-1")
    await page.get_by_test_id("strategy-select").select_option("prompted")
    await page.get_by_test_id("composer").fill(LONG_CALL)
    await page.keyboard.press("Control+Enter")

    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=30_000)
    states: list[str] = await page.evaluate("window.argumentStates")
    assert len(states) >= 3, f"expected to watch the arguments grow, saw {states}"
    assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(states))
    assert await page.evaluate("window.liveStrategy") == "prompted", "the live card said where its call came from"

    card = page.get_by_test_id("tool-call").first
    await expect(card).to_have_attribute("data-status", "done")
    via = card.get_by_test_id("tool-call-via")
    await expect(via).to_have_attribute("data-strategy", "prompted")
    await expect(via).to_have_text("via prompted JSON")
    await expect(card.get_by_test_id("tool-call-args")).to_contain_text("Llanfair")
    first = page.locator("#rt-0")
    await expect(first.get_by_test_id("translation-note").first).to_contain_text("tool-calling strategy: prompted")
    await expect(first.get_by_test_id("pane-wire")).not_to_contain_text('"tool_calls"')
    await expect(first.get_by_test_id("pane-internal")).to_contain_text('"tool_calls"')

    await page.reload()
    await expect(page.get_by_test_id("strategy-select")).to_have_value("prompted")
    await expect(page.get_by_test_id("tool-call").first.get_by_test_id("tool-call-via")).to_have_text(
        "via prompted JSON"
    )


async def test_compare_native_and_prompted_side_by_side(signed_in: Page) -> None:
    page = signed_in
    await page.add_init_script(RECORD_COLUMNS)
    await page.goto("/compare/")
    setups = page.get_by_test_id("compare-column-setup")
    await expect(setups).to_have_count(3)
    await setups.nth(2).locator(".compare-remove").click()
    await expect(setups).to_have_count(2)
    for i, strategy in enumerate(("native", "prompted")):
        setup = setups.nth(i)
        await setup.get_by_test_id("compare-endpoint-select").select_option(label="Simulated OpenAI")
        await setup.get_by_test_id("compare-model-input").fill("sim-1")
        await setup.get_by_test_id("strategy-select").select_option(strategy)
    await page.get_by_test_id("compare-composer").fill(LONG_CALL)
    await page.get_by_test_id("compare-run").click()
    await page.wait_for_url("**/compare/*/")

    columns = page.get_by_test_id("compare-column")
    await expect(columns).to_have_count(2)
    for i in range(2):
        await expect(columns.nth(i).get_by_test_id("run-status")).to_have_attribute(
            "data-status", "done", timeout=30_000
        )
    await expect(columns.nth(1).get_by_test_id("column-strategy")).to_have_text("prompted")

    seen: dict[str, dict[str, object]] = await page.evaluate("window.columnStates")
    for position, strategy in (("0", ""), ("1", "prompted")):
        states = seen[position]["states"]
        assert isinstance(states, list) and len(states) >= 3, f"column {position}: saw {states}"
        assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(states))
        assert seen[position]["strategy"] == strategy
    native, prompted = (columns.nth(i).get_by_test_id("tool-call").first for i in range(2))
    await expect(native).not_to_have_attribute("data-strategy", "prompted")
    await expect(native.get_by_test_id("tool-call-via")).to_have_count(0)
    await expect(prompted).to_have_attribute("data-strategy", "prompted")
    await expect(prompted.get_by_test_id("tool-call-via")).to_have_text("via prompted JSON")
    for card in (native, prompted):
        await expect(card).to_have_attribute("data-status", "done")
        await expect(card.get_by_test_id("tool-call-args")).to_contain_text("Llanfair")
    agreement = page.get_by_test_id("compare-agreement")
    await expect(agreement).to_have_attribute("data-agree", "1")
