"""The refresh of a server-rendered part never loses one: a refresh asked for while another is in flight runs once
that one lands, and its callback waits for it (htmx alone drops the second request and resolves it at once)."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

pytestmark = pytest.mark.browser

PROBE = """async () => {
  const root = document.querySelector("[data-panes-url]");
  let requests = 0;
  document.body.addEventListener("htmx:beforeRequest", () => { requests += 1; });
  const refresh = window.CrosswireDom.refresher(() => root.dataset.panesUrl, "#panes");
  const order = [];
  await new Promise((resolve) => {
    refresh(() => order.push("first"));
    refresh(() => { order.push("second"); resolve(); });
  });
  return { requests, order };
}"""


async def test_a_refresh_asked_for_during_another_runs_after_it(signed_in: Page) -> None:
    page = signed_in
    await page.goto("/")
    await page.wait_for_url("**/c/*/")
    result = await page.evaluate(PROBE)
    assert result == {"requests": 2, "order": ["first", "second"]}


TWO_PARTS = """async () => {
  const root = document.querySelector("[data-panes-url]");
  const transcript = window.CrosswireDom.refresher(() => root.dataset.transcriptUrl, "#transcript");
  const panes = window.CrosswireDom.refresher(() => root.dataset.panesUrl, "#panes");
  const before = { transcript: document.querySelector("#transcript"), panes: document.querySelector("#panes") };
  const swapped = {};
  await Promise.all(["transcript", "panes"].map((part) => new Promise((resolve) => {
    (part === "transcript" ? transcript : panes)(() => {
      swapped[part] = document.querySelector("#" + part) !== before[part];
      resolve();
    });
  })));
  return swapped;
}"""


async def test_two_parts_refreshed_together_are_both_swapped_before_their_callbacks(signed_in: Page) -> None:
    """Each part is its own request's source: on the shared body, the second would queue behind the first and its
    callback would run at once, before anything was swapped."""
    page = signed_in
    await page.goto("/")
    await page.wait_for_url("**/c/*/")
    assert await page.evaluate(TWO_PARTS) == {"transcript": True, "panes": True}
