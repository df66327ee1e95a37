"""The playground in a real browser with the Simulated Gemini endpoint: a built-in tool's call arrives whole in a
card, the tool runs, the loop ends with an answer, and the wire pane shows the Gemini traffic (the streamed
``data:`` chunks, then the function responses and the thought signature sent back)."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from tests.browser.test_chat import send

pytestmark = pytest.mark.browser


async def test_a_builtin_tool_loop_over_the_gemini_api(signed_in: Page) -> None:
    page = signed_in
    await send(page, "Simulated Gemini", '/call get_weather {"city": "Paris", "unit": "celsius"}')
    card = page.get_by_test_id("tool-call").first
    await expect(card).to_contain_text("get_weather", timeout=15_000)
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    card = page.get_by_test_id("tool-call").first
    await expect(card).to_have_attribute("data-status", "done")
    await expect(card).to_contain_text('"city": "Paris"')
    first = page.locator("#rt-0").get_by_test_id("pane-wire")
    await expect(first).to_contain_text(":streamGenerateContent?alt=sse")
    await expect(first).to_contain_text('"functionCall"')
    await expect(first).to_contain_text("thoughtSignature")
    await expect(first).not_to_contain_text('"stream"')
    second = page.locator("#rt-1").get_by_test_id("pane-wire")
    await expect(second).to_contain_text("functionResponse")
    await expect(second).to_contain_text("thoughtSignature")
    await expect(page.get_by_test_id("message").last).to_contain_text("Paris")
