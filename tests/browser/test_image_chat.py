"""Images in the playground, in a real browser: attached in the composer and sent to the Simulated OpenAI Responses
and Gemini endpoints with a tool enabled, drawn as thumbnails in the transcript and in both panes (never as base64
text), acknowledged by the model; the bar_chart built-in's image in its result card, live and saved; and the
composer's limits, checked in the page and on the server, with nothing typed or attached lost."""

from __future__ import annotations

import base64
import io
import json
import re
from typing import Any

import pytest
from PIL import Image
from playwright.async_api import BrowserContext, Page, expect

pytestmark = pytest.mark.browser

LONG_BASE64 = r"[A-Za-z0-9+/]{200,}"
# Installed before sending: notes, inside the page, whether a tool result's image was ever drawn live.
RECORD_LIVE_IMAGES = """
window.liveImages = 0;
new MutationObserver(() => {
  window.liveImages = Math.max(window.liveImages,
    document.querySelectorAll("#live [data-testid=tool-call] [data-testid=message-image]").length);
}).observe(document.getElementById("live"), {subtree: true, childList: true});
"""


def png(size: tuple[int, int] = (24, 16)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (30, 120, 200)).save(out, "PNG")
    return out.getvalue()


def upload(name: str, data: bytes, mime: str = "image/png") -> dict[str, Any]:
    return {"name": name, "mimeType": mime, "buffer": data}


async def ready(page: Page, endpoint: str) -> None:
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await page.get_by_test_id("endpoint-select").select_option(label=endpoint)
    await page.get_by_test_id("model-input").fill("sim-1")


async def no_base64_text(page: Page) -> None:
    """No element's text holds a data URL or a long run of base64: images are only ever an img's src."""
    text: str = await page.evaluate("document.body.textContent")
    at = text.find("base64,")
    assert at < 0, text[max(0, at - 300) : at + 100]
    assert re.search(LONG_BASE64, text) is None, re.search(LONG_BASE64, text)


@pytest.mark.parametrize("endpoint", ["Simulated OpenAI Responses", "Simulated Gemini"])
async def test_an_attached_image_is_sent_shown_and_acknowledged(
    signed_in: Page, context: BrowserContext, endpoint: str
) -> None:
    page = signed_in
    image = png()
    await ready(page, endpoint)
    tool = page.locator("input[name=tools][value=get_weather]")
    await tool.check()
    await page.get_by_test_id("attach-image").set_input_files(files=[upload("dot.png", image)])
    await expect(page.get_by_test_id("composer-image")).to_have_count(1)
    await page.get_by_test_id("composer").fill("Describe what I attached.")
    await page.keyboard.press("Control+Enter")
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    await expect(page.get_by_test_id("composer-image")).to_have_count(0)

    thumbnail = page.locator("#transcript").get_by_test_id("message-image")
    await expect(thumbnail).to_have_count(1)
    await expect(thumbnail).to_be_visible()
    assert (await thumbnail.get_attribute("src") or "").startswith("data:image/png;base64,iVBOR")
    acknowledged = f"I see 1 image (image/png, {len(image)} bytes)."
    await expect(page.get_by_test_id("message").last).to_contain_text(acknowledged)

    first = page.locator("#rt-0")
    label = f"image/png · {len(image)} B (base64)"
    for pane in ("pane-internal", "pane-wire"):  # in folded JSON (deep levels start closed), so attached
        await expect(first.get_by_test_id(pane).get_by_test_id("pane-image").first).to_be_attached()
        await expect(first.get_by_test_id(pane)).to_contain_text(label)
    await no_base64_text(page)

    await context.grant_permissions(["clipboard-read", "clipboard-write"])
    await first.get_by_test_id("pane-wire").locator(".copy-json").click()
    copied: str = await page.evaluate("navigator.clipboard.readText()")
    assert base64.b64encode(image).decode() in copied, "the copy button still copies the whole JSON"
    assert json.loads(copied)

    await thumbnail.click()
    lightbox = page.get_by_test_id("lightbox")
    await expect(lightbox).to_be_visible()
    assert await lightbox.locator("img").get_attribute("src") == await thumbnail.get_attribute("src")
    await page.keyboard.press("Escape")
    await expect(lightbox).to_be_hidden()


async def test_the_chart_builtin_shows_its_image_in_the_result_card(signed_in: Page) -> None:
    page = signed_in
    await ready(page, "Simulated OpenAI")
    await page.locator("input[name=tools][value=bar_chart]").check()
    await page.evaluate(RECORD_LIVE_IMAGES)
    call = '/call bar_chart {"title": "Sales", "bars": [{"label": "Q1", "value": 3}, {"label": "Q2", "value": 5}]}'
    await page.get_by_test_id("composer").fill(call)
    await page.keyboard.press("Control+Enter")
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    assert await page.evaluate("window.liveImages") == 1, "the result's image is drawn as it arrives"
    card = page.locator("#transcript").get_by_test_id("tool-call").last
    await expect(card).to_have_attribute("data-status", "done")
    await expect(card).to_contain_text("Bar chart “Sales”: 2 bars, highest Q2 (5), lowest Q1 (3).")
    chart = card.get_by_test_id("message-image")
    await expect(chart).to_be_visible()
    assert (await chart.get_attribute("src") or "").startswith("data:image/png;base64,")
    size = await chart.evaluate("img => [img.naturalWidth, img.naturalHeight]")
    assert size == [640, 360]
    await expect(page.get_by_test_id("message").last).to_contain_text("I see 1 image (image/png,")
    await no_base64_text(page)


async def test_the_composer_refuses_what_it_cannot_send_and_keeps_the_rest(signed_in: Page) -> None:
    page = signed_in
    await ready(page, "Simulated OpenAI")
    composer, error = page.get_by_test_id("composer"), page.get_by_test_id("composer-error")
    await composer.fill("Compare these.")
    attach = page.get_by_test_id("attach-image")
    await attach.set_input_files(files=[upload(f"p{n}.png", png((8 + n, 8))) for n in range(5)])
    await expect(page.get_by_test_id("composer-image")).to_have_count(4)
    await expect(error).to_have_text("At most 4 images go with one message; p4.png was not attached.")
    await attach.set_input_files(files=[upload("notes.txt", b"hello", "text/plain")])
    await expect(error).to_have_text("notes.txt is not a PNG, JPEG, WebP or GIF image.")
    await page.get_by_test_id("composer-image").first.get_by_role("button", name="Remove p0.png").click()
    await attach.set_input_files(files=[upload("huge.png", png() + bytes(6 * 1024 * 1024))])
    await expect(error).to_have_text("huge.png is 6.0 MiB; the limit is 5.0 MiB per image.")
    await expect(page.get_by_test_id("composer-image")).to_have_count(3)
    await page.get_by_test_id("composer-image").first.get_by_role("button", name="Remove p1.png").click()
    await expect(page.get_by_test_id("composer-image")).to_have_count(2)
    await expect(error).to_be_hidden()
    assert await composer.input_value() == "Compare these."


async def test_the_server_refuses_bytes_that_are_no_image_and_gives_everything_back(signed_in: Page) -> None:
    page = signed_in
    await ready(page, "Simulated OpenAI")
    await page.get_by_test_id("attach-image").set_input_files(files=[upload("fake.png", b"just some text, no image")])
    await expect(page.get_by_test_id("composer-image")).to_have_count(1)
    await page.get_by_test_id("composer").fill("What is this?")
    await page.keyboard.press("Control+Enter")
    await expect(page.get_by_test_id("error").last).to_contain_text(
        "Image 1 (fake.png) is not a PNG, JPEG, WebP or GIF image (its bytes say so, whatever its name)."
    )
    assert await page.get_by_test_id("composer").input_value() == "What is this?"
    await expect(page.get_by_test_id("composer-image")).to_have_count(1)
    await expect(page.get_by_test_id("send")).to_be_enabled()
