"""Compare in a real browser: three simulator dialects stream side by side, the summary, agreement and wire diff fill
in, one manual answer serves every column, and repeats show their spread."""

from __future__ import annotations

import asyncio
import itertools

import pytest
from playwright.async_api import Page, Route, expect

pytestmark = pytest.mark.browser

# Long arguments, so each column's call streams in many fragments at the server's pace (25 ms a fragment).
CITY = "Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch " * 3
LONG_CALL = f'/call get_weather {{"city": "{CITY.strip()}", "unit": "celsius"}}'

# Installed before any page script runs: per column, every text its live card's arguments show while streaming.
RECORD_ARGUMENT_STATES = """
window.argumentStates = {};
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("[data-testid=compare-column]").forEach((column) => {
    const states = window.argumentStates[column.dataset.position] = [];
    new MutationObserver(() => {
      const card = column.querySelector(".compare-live [data-testid=tool-call]");
      const args = card && card.querySelector("[data-testid=tool-call-args]");
      if (!args || card.dataset.status !== "streaming") return;
      if (args.textContent && states[states.length - 1] !== args.textContent) states.push(args.textContent);
    }).observe(column, {subtree: true, childList: true, characterData: true});
  });
});
"""


async def run_all(page: Page, text: str, repeat: int = 1) -> None:
    await page.get_by_test_id("compare-composer").fill(text)
    await page.get_by_test_id("repeat-count").fill(str(repeat))
    await page.get_by_test_id("compare-run").click()
    await page.wait_for_url("**/compare/*/")


async def test_three_dialects_stream_side_by_side_and_the_differences_show(signed_in: Page) -> None:
    page = signed_in
    await page.add_init_script(RECORD_ARGUMENT_STATES)
    await page.goto("/compare/")
    setups = page.get_by_test_id("compare-column-setup")
    await expect(setups).to_have_count(3)
    await expect(setups.nth(2).get_by_test_id("compare-model-input")).to_have_value("sim-openrouter")
    await run_all(page, LONG_CALL)

    columns = page.get_by_test_id("compare-column")
    await expect(columns).to_have_count(3)
    await expect(page.get_by_test_id("compare-stop-all")).to_be_visible()  # while the columns run
    expected = [("Simulated OpenAI", "sim-1"), ("Simulated Anthropic", "sim-1"), ("Simulated OpenAI", "sim-openrouter")]
    for i, (endpoint, model) in enumerate(expected):
        await expect(columns.nth(i)).to_have_attribute("data-endpoint", endpoint)
        await expect(columns.nth(i)).to_have_attribute("data-model", model)
    for i in range(3):
        status = columns.nth(i).get_by_test_id("run-status")
        await expect(status).to_have_attribute("data-status", "done", timeout=30_000)
    await expect(page.get_by_test_id("compare-stop-all")).to_be_hidden(timeout=2_500)  # nothing left to stop

    states: dict[str, list[str]] = await page.evaluate("window.argumentStates")
    for position in ("0", "1", "2"):
        seen = states[position]
        assert len(seen) >= 3, f"column {position}: expected to watch the arguments grow, saw {seen}"
        assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(seen))
    for i in range(3):
        card = columns.nth(i).get_by_test_id("tool-call").first
        await expect(card).to_have_attribute("data-status", "done")
        await expect(card.get_by_test_id("tool-call-args")).to_contain_text("Llanfair")

    summary = page.get_by_test_id("compare-summary")
    await expect(summary.locator("tr[data-metric=round-trips] td")).to_have_text(["2", "2", "2"])
    await expect(summary.locator("tr[data-metric=calls] td").first).to_contain_text("get_weather")
    await expect(summary.locator("tr[data-metric=ttfb] td").first).to_contain_text("ms")
    await expect(summary.locator("tr[data-metric=stop] td").nth(1)).to_contain_text("end_turn")
    agreement = page.get_by_test_id("compare-agreement")
    await expect(agreement).to_have_attribute("data-agree", "1")
    await expect(agreement).to_contain_text("All 3 columns called the same tools")

    diff = page.get_by_test_id("wire-diff")
    # The same internal request in two formats: the tools' schema sits in a different place on each side.
    await expect(diff.locator("tr[data-state=left]").first).to_be_visible(timeout=10_000)
    await expect(diff.locator("tr[data-state=left]", has_text="tools[0].function.parameters").first).to_be_visible()
    await expect(diff.locator("tr[data-state=right]", has_text="tools[0].input_schema").first).to_be_visible()
    await expect(diff).to_contain_text("first tool-call fragment at")
    await page.locator("select[name=b]").select_option(label="Simulated OpenAI · sim-openrouter")
    # Same format: the bodies match but for the model.
    await expect(diff.locator("tr[data-state=changed]")).to_have_count(1)
    await expect(diff.locator("tr[data-state=changed]")).to_contain_text("model")
    await expect(diff.locator("tr[data-state=right]")).to_have_count(0)
    # The diff also reloads itself when a column changes: a reload already on its way must read the columns picked
    # since, not bring back the ones it was drawn with.
    await page.evaluate("document.body.dispatchEvent(new Event('compare:changed'))")
    await page.locator("select[name=b]").select_option(label="Simulated Anthropic · sim-1")
    await page.wait_for_timeout(1_200)  # past the reload's 500 ms delay
    await expect(diff).to_have_attribute("data-right", "1")


async def test_one_answer_serves_every_column_waiting_on_the_same_manual_call(signed_in: Page) -> None:
    page = signed_in
    await page.goto("/compare/")
    await page.locator("input[name=tools][value=search_docs]").check()
    # The third column's first byte comes 5 s late: it joins the question after the answer is begun.
    await page.get_by_test_id("compare-column-setup").nth(2).get_by_test_id("compare-model-input").fill("sim-slow")
    await run_all(page, '/call search_docs {"query": "refund policy"}')
    bar = page.get_by_test_id("compare-answer-all")
    await expect(bar).to_contain_text("2 columns wait for", timeout=20_000)
    await bar.get_by_test_id("compare-answer-all-input").fill("Refunds are paid within 5 days.")
    await expect(bar).to_contain_text("3 columns wait for", timeout=20_000)
    await expect(bar.get_by_test_id("compare-answer-all-input")).to_have_value("Refunds are paid within 5 days.")
    await expect(bar.get_by_test_id("compare-answer-all-input")).to_be_focused()
    await bar.get_by_test_id("compare-answer-all-send").click()
    columns = page.get_by_test_id("compare-column")
    for i in range(3):
        status = columns.nth(i).get_by_test_id("run-status")
        await expect(status).to_have_attribute("data-status", "done", timeout=30_000)
        await expect(columns.nth(i)).to_contain_text("Refunds are paid within 5 days.")
    await expect(bar).to_be_hidden()


async def test_repeats_report_consistency_and_latency_spread(signed_in: Page) -> None:
    page = signed_in
    await page.goto("/compare/")
    await page.get_by_test_id("compare-column-setup").nth(2).get_by_role("button", name="Remove").click()
    await expect(page.get_by_test_id("compare-column-setup")).to_have_count(2)
    await run_all(page, '/call calculator {"expression": "6 * 7"}', repeat=3)
    repeats = page.get_by_test_id("compare-repeats")
    await expect(repeats.locator("tbody tr").first).to_contain_text("3 / 3", timeout=60_000)
    await expect(repeats.locator("tbody tr").nth(1)).to_contain_text("3 / 3", timeout=60_000)
    await expect(repeats.locator("[data-metric=repeat-agreement]")).to_have_text(["100%", "100%"])
    await expect(page.get_by_test_id("repeat-chart").locator("circle")).to_have_count(2)
    # Each row of the chart says whose it is, in the table's order.
    names = await repeats.locator("tbody th").all_inner_texts()
    shown = [name if len(name) <= 34 else name[:33] + "…" for name in names]  # a long name is cut to fit the chart
    await expect(page.get_by_test_id("repeat-chart-label")).to_have_text(shown)


async def test_a_column_can_be_stopped_while_a_later_repeat_runs(signed_in: Page) -> None:
    """Once a column's first run is done its later repeats still run: the column keeps a Stop that reaches them."""
    page = signed_in
    await page.goto("/compare/")
    for _ in range(2):
        await page.get_by_test_id("compare-column-setup").nth(1).get_by_role("button", name="Remove").click()
    await page.locator("input[name=tools][value=search_docs]").check()
    await run_all(page, '/call search_docs {"query": "refund policy"}', repeat=3)  # each run waits for an answer
    column = page.get_by_test_id("compare-column")
    await column.get_by_test_id("tool-result-input").fill("Within 5 days.")
    await column.get_by_role("button", name="Send result").click()
    await expect(column.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    await expect(page.get_by_test_id("compare-repeats-waiting")).to_contain_text("run 2 of", timeout=20_000)
    await expect(column.get_by_test_id("compare-stop")).to_be_visible()
    await expect(column.get_by_test_id("compare-column-run")).to_have_text("run 2 of 3")
    await column.get_by_test_id("compare-stop").click()
    await expect(column.get_by_test_id("compare-stop")).to_be_hidden(timeout=10_000)
    await expect(column.get_by_test_id("compare-column-run")).to_be_hidden()
    await expect(page.locator("#compare-results-body")).to_have_attribute("data-busy", "0")
    await expect(page.get_by_test_id("compare-repeats-waiting")).to_have_count(0)
    # The first run finished; the second was stopped and the third never ran: neither counts.
    await expect(page.get_by_test_id("compare-repeats").locator("tbody tr").first).to_contain_text("1 / 3")


async def test_a_columns_status_says_it_waits_for_an_answer_and_gives_an_error_once(signed_in: Page) -> None:
    page = signed_in
    await page.goto("/compare/")
    setups = page.get_by_test_id("compare-column-setup")
    await setups.nth(2).get_by_role("button", name="Remove").click()
    await setups.nth(1).get_by_test_id("compare-model-input").fill("sim-429")
    await page.locator("input[name=tools][value=search_docs]").check()
    await run_all(page, '/call search_docs {"query": "refund policy"}')
    waiting, limited = page.get_by_test_id("compare-column").nth(0), page.get_by_test_id("compare-column").nth(1)
    await expect(waiting.get_by_test_id("tool-result-input")).to_be_visible(timeout=20_000)
    await expect(limited.get_by_test_id("run-status")).to_have_attribute("data-status", "error", timeout=20_000)
    for _ in range(2):  # as it ran, then as the page opens on it
        await expect(waiting.get_by_test_id("run-status")).to_have_attribute("data-status", "waiting")
        await expect(waiting).not_to_contain_text("streaming")
        await expect(limited.get_by_test_id("run-status")).to_contain_text("Retry after 1 s.")
        await expect(limited.get_by_test_id("error")).to_have_count(1)
        await page.wait_for_timeout(1_000)  # the socket's snapshot has come and been drawn
        text = await limited.inner_text()
        assert text.count("would exceed the rate limit") == 1, text
        await page.reload()
    await page.get_by_test_id("compare-stop-all").click()


async def test_a_saved_conversation_is_replayed_on_another_provider_side_by_side(signed_in: Page) -> None:
    page = signed_in
    await page.goto("/")
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await page.get_by_test_id("endpoint-select").select_option(label="Simulated OpenAI")
    await page.get_by_test_id("model-input").fill("sim-1")
    await page.get_by_test_id("composer").fill('/call get_weather {"city": "Oslo"}')
    await page.keyboard.press("Control+Enter")
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)

    # No reload: the menu was on the page before the first message and reads its messages when it opens.
    await page.get_by_test_id("replay-button").click()
    await expect(page.get_by_test_id("replay-from")).to_contain_text('/call get_weather {"city": "Oslo"}')
    await page.get_by_test_id("replay-endpoint").select_option(label="Simulated Anthropic")
    await expect(page.get_by_test_id("replay-model")).to_have_value("sim-1")  # the endpoint's default model
    await page.get_by_test_id("replay-submit").click()
    await page.wait_for_url("**/compare/*/")
    columns = page.get_by_test_id("compare-column")
    await expect(columns).to_have_count(2)
    await expect(columns.nth(0)).to_have_attribute("data-endpoint", "Simulated OpenAI")
    await expect(columns.nth(1)).to_have_attribute("data-endpoint", "Simulated Anthropic")
    await expect(columns.nth(1).get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    await expect(columns.nth(1).get_by_test_id("tool-call").first).to_contain_text("Oslo")
    await expect(columns.nth(1).get_by_test_id("tool-call").first).to_contain_text("replay")
    await expect(page.get_by_test_id("compare-agreement")).to_have_attribute("data-agree", "1")
    await expect(page.get_by_test_id("wire-diff").locator("tr[data-state=right]").first).to_be_visible()


async def test_a_summary_read_asked_for_during_another_still_goes_out(signed_in: Page) -> None:
    """The summary is read again when a column ends: a read asked for while an earlier one is on its way (a column
    ending during the periodic read) must not be lost, or the summary shows a column running after it ended."""
    page = signed_in
    await page.goto("/compare/")
    await page.get_by_test_id("compare-column-setup").nth(2).get_by_role("button", name="Remove").click()
    await run_all(page, '/call calculator {"expression": "6 * 7"}')
    columns = page.get_by_test_id("compare-column")
    for i in range(2):
        await expect(columns.nth(i).get_by_test_id("run-status")).to_have_attribute("data-status", "done")
    results = page.locator("#compare-results-body")
    await expect(results).to_have_attribute("data-busy", "0", timeout=30_000)

    # At the network edge: the first read is held, then answered with a summary from before the runs ended.
    held: list[object] = []

    async def hold_first(route: Route) -> None:
        if held:
            await route.continue_()
            return
        held.append(route)
        response = await route.fetch()
        stale = (await response.text()).replace('data-busy="0"', 'data-busy="1" data-stale="1"')
        await asyncio.sleep(1.5)
        await route.fulfill(response=response, body=stale)

    await page.route("**/results/**", hold_first)
    await page.evaluate("document.body.dispatchEvent(new CustomEvent('compare:changed'))")
    for _ in range(100):  # the read goes out 300 ms after the event (its hx-trigger's delay)
        if held:
            break
        await asyncio.sleep(0.05)
    assert held, "the summary was not read again on compare:changed"
    await page.evaluate("document.body.dispatchEvent(new CustomEvent('compare:changed'))")
    await page.wait_for_timeout(2_500)  # the held read has been answered by now
    await expect(page.locator("#compare-results-body[data-stale]")).to_have_count(0)
    await expect(results).to_have_attribute("data-busy", "0")


async def test_a_column_that_ended_first_is_redrawn_when_the_others_end(signed_in: Page) -> None:
    """Whether a call differs weighs every column's calls: the column that ends first drew its cards before the
    other's calls were in, so it must be drawn again when the other ends, or it keeps marks no longer true."""
    page = signed_in
    drawn: list[str] = []
    page.on("request", lambda request: drawn.append(request.url) if "/column/0/" in request.url else None)
    await page.goto("/compare/")
    setups = page.get_by_test_id("compare-column-setup")
    await setups.nth(2).get_by_role("button", name="Remove").click()
    await setups.nth(0).get_by_test_id("compare-endpoint-select").select_option(label="Simulated OpenAI")
    await setups.nth(0).get_by_test_id("compare-model-input").fill("sim-1")
    await setups.nth(1).get_by_test_id("compare-endpoint-select").select_option(label="Simulated Gemini")
    await setups.nth(1).get_by_test_id("compare-model-input").fill("sim-slow")  # its first byte comes 5 s late
    await run_all(page, '/call get_weather {"city": "Paris"}')
    columns = page.get_by_test_id("compare-column")
    await expect(columns.nth(0).get_by_test_id("run-status")).to_have_attribute("data-status", "done")
    await expect(columns.nth(0).locator(".compare-transcript [data-testid=tool-call]")).to_have_count(1)
    ended_first = len(drawn)  # its own redraw at its end, while the slow column had made no call
    await expect(columns.nth(1).get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=30_000)
    for _ in range(100):
        if len(drawn) > ended_first:
            break
        await asyncio.sleep(0.05)
    assert len(drawn) > ended_first, "the column that ended first was not drawn again when the other ended"
    await expect(page.get_by_test_id("compare-agreement")).to_have_attribute("data-agree", "1")
    for i in range(2):
        await expect(columns.nth(i).get_by_test_id("tool-call")).to_have_count(1)
        await expect(columns.nth(i).get_by_test_id("call-differs")).to_have_count(0)


async def test_ctrl_enter_in_the_message_runs_every_column(signed_in: Page) -> None:
    page = signed_in
    await page.goto("/compare/")
    await page.get_by_test_id("compare-composer").fill('/call calculator {"expression": "2 + 2"}')
    await page.get_by_test_id("compare-composer").press("Control+Enter")
    await page.wait_for_url("**/compare/*/")
    await expect(page.get_by_test_id("compare-column")).to_have_count(3)
    for i in range(3):
        status = page.get_by_test_id("compare-column").nth(i).get_by_test_id("run-status")
        await expect(status).to_have_attribute("data-status", "done", timeout=30_000)


# Per column: what reaches past the column's right edge, and by how many pixels (nothing when everything fits).
OVERFLOW = """() => Array.from(document.querySelectorAll("[data-testid=compare-column]")).map((column) => {
  const edge = column.getBoundingClientRect().right;
  return Array.from(column.querySelectorAll("*")).filter((e) => e.getBoundingClientRect().right > edge + 0.5)
    .map((e) => `${e.tagName}.${e.className} +${Math.round(e.getBoundingClientRect().right - edge)}`);
})"""


async def test_four_columns_keep_their_cards_and_errors_inside(signed_in: Page) -> None:
    """Long call ids, a provider's error with a URL, and a waiting answer form stay inside their column."""
    page = signed_in
    await page.goto("/compare/")
    await page.locator("#compare-add-column").click()
    setups = page.get_by_test_id("compare-column-setup")
    columns_set = [("Simulated Anthropic", "sim-1"), ("Simulated Gemini", "sim-429"), ("Simulated OpenAI", "sim-1")]
    for i, (endpoint, model) in enumerate(columns_set, start=1):
        await setups.nth(i).get_by_test_id("compare-endpoint-select").select_option(label=endpoint)
        await setups.nth(i).get_by_test_id("compare-model-input").fill(model)
    await page.locator("input[name=tools][value=search_docs]").check()
    await run_all(page, '/call search_docs {"query": "a rather long query about refunds and returns"}')
    columns = page.get_by_test_id("compare-column")
    await expect(columns.nth(0).get_by_test_id("tool-result-input")).to_be_visible(timeout=20_000)
    await expect(columns.nth(2).get_by_test_id("run-status")).to_have_attribute("data-status", "error", timeout=20_000)
    assert await page.evaluate(OVERFLOW) == [[], [], [], []], "while a column waits for an answer"
    await page.get_by_test_id("compare-stop-all").click()
    for i in range(4):
        await expect(columns.nth(i).get_by_test_id("run-status")).not_to_have_attribute("data-status", "waiting")
    await page.reload()
    await expect(columns.nth(2).get_by_test_id("error").first).to_be_visible()
    assert await page.evaluate(OVERFLOW) == [[], [], [], []], "as saved"
    assert await page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"), "the summary fits"
    await page.set_viewport_size({"width": 800, "height": 900})
    assert await page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


# Per table cell of the repeats and the summary's times: its text as it reads when it wraps onto more than one line.
WRAPPED_FIGURES = """() => Array.from(document.querySelectorAll(
  "[data-testid=compare-repeats] tbody td, [data-metric=ttfb] td, [data-metric=total] td")).filter((cell) => {
  const range = document.createRange();
  range.selectNodeContents(cell);
  return new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size > 1;
}).map((cell) => cell.innerText)"""


async def test_a_narrow_window_keeps_the_page_from_scrolling_sideways_and_figures_whole(signed_in: Page) -> None:
    page = signed_in
    await page.goto("/compare/")
    await run_all(page, '/call calculator {"expression": "6 * 7"}', repeat=2)
    rows = page.get_by_test_id("compare-repeats").locator("tbody tr")
    for i in range(3):
        await expect(rows.nth(i)).to_contain_text("2 / 2", timeout=60_000)
    await expect(page.get_by_test_id("wire-diff").locator("tr[data-state=left]").first).to_be_visible(timeout=10_000)
    await page.set_viewport_size({"width": 600, "height": 900})
    assert await page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    assert await page.evaluate(WRAPPED_FIGURES) == []
