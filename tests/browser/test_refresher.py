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
