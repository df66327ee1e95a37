"""Every page satisfies the Content-Security-Policy: no inline script or style, nothing from another origin."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

pytestmark = pytest.mark.browser

# Installed before any page script: records every violation the browser reports, whatever the console shows.
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", event => {
  window.__violations.push(event.violatedDirective + " " + event.blockedURI + " " + (event.sample || ""));
});
"""
PAGES = ["/", "/tools/", "/tools/new/", "/tools/import/", "/conversations/", "/compare/", "/providers/", "/team/"]


async def test_every_section_satisfies_the_policy(signed_in: Page) -> None:
    page = signed_in
    await page.add_init_script(RECORD_VIOLATIONS)
    for path in PAGES:
        response = await page.goto(path)
        assert response is not None and response.ok, path
        policy = await response.header_value("content-security-policy") or ""
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy, policy
        await expect(page.locator("#live-status")).to_have_attribute("data-state", "live")  # sockets are allowed
        assert await page.evaluate("window.__violations") == [], path
