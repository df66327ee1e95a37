"""The chat keeps its newest part in sight: a saved chat opens at its end (or at the message a link names), a
streaming answer is followed while the reader stays at the end and left alone once they scroll away, and the panes
column shows each new round trip as it starts."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Page, expect

from tests.conftest import DemoServer
from tests.helpers import manage

pytestmark = pytest.mark.browser

# A long saved chat of the demo user's: more than a window's height of messages.
LONG_CHAT = """
from playground.chat.options import ChatOptions
from playground.conversations.models import Conversation, Message
from playground.endpoints.models import Endpoint
from playground.teams.access import ensure_personal_team
from django.contrib.auth.models import User
demo = User.objects.get(username="demo")
endpoint = Endpoint.objects.get(name="Simulated OpenAI")
conversation = Conversation.objects.create(
    team=ensure_personal_team(demo), created_by=demo, title="A long chat", endpoint=endpoint,
    endpoint_name=endpoint.name, format="openai-chat", model="sim-1", status="done",
    settings=ChatOptions(endpoint_id=endpoint.pk, model="sim-1").to_dict(),
)
for n in range(24):
    role = "user" if n % 2 == 0 else "assistant"
    Message.objects.create(conversation=conversation, position=n, role=role,
                           data={"role": role, "content": f"message {n}: " + "words " * 40})
print(conversation.pk)
"""
# Where a message is against the window: its top and bottom, and the window's height.
PLACE = "el => { const r = el.getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; }"


async def open_long_chat(page: Page, daphne_server: DemoServer, anchor: str = "") -> int:
    """A long saved chat made and opened (at ``anchor``, if given), its socket connected; its id."""
    made = await asyncio.to_thread(manage, daphne_server.server.env, "shell", "-v", "0", "-c", LONG_CHAT)
    pk = int(made.stdout.split()[-1])
    await open_chat(page, f"/c/{pk}/{anchor}")
    return pk


async def open_chat(page: Page, url: str) -> None:
    await page.goto(url)
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)


async def in_sight(page: Page, selector: str) -> bool:
    top, bottom, height = await page.locator(selector).last.evaluate(PLACE)
    return bottom > 0 and top < height


async def test_a_saved_chat_opens_at_its_end_or_at_the_linked_message(
    signed_in: Page, daphne_server: DemoServer
) -> None:
    page = signed_in
    pk = await open_long_chat(page, daphne_server)
    await expect(page.get_by_test_id("message").last).to_contain_text("message 23")
    await page.wait_for_function("scrollY > 0")  # it used to open at the top, the last answer out of sight
    assert await in_sight(page, "#transcript [data-testid=message]")

    await open_chat(page, f"/c/{pk}/#msg-2")  # a link to one message (a fork's badge) opens there instead
    await page.wait_for_timeout(300)
    top, _, height = await page.locator("#msg-2").evaluate(PLACE)
    assert 0 <= top < height
    assert not await in_sight(page, "#transcript [data-testid=message]")


async def test_a_streaming_answer_is_followed_until_the_reader_scrolls_away(
    signed_in: Page, daphne_server: DemoServer
) -> None:
    page = signed_in
    await open_long_chat(page, daphne_server)
    lines = "\n".join(f"/text line {n} of the answer, long enough to take a while" for n in range(120))
    await page.get_by_test_id("composer").fill(lines)
    await page.keyboard.press("Control+Enter")
    live = page.locator("#live [data-testid=message]")
    await expect(live.last).to_contain_text("line 40 ", timeout=15_000)
    await page.wait_for_timeout(200)
    # The newest text sits just above the composer, not below it.
    _, bottom, height = await live.last.evaluate(PLACE)
    assert bottom <= height + 5, (bottom, height)

    await page.evaluate("window.scrollTo(0, 0)")  # the reader goes back up to read the start
    await expect(page.get_by_test_id("message").filter(has_text="line 90 ")).to_have_count(1, timeout=15_000)
    assert await page.evaluate("scrollY") == 0, "left where the reader went"
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=30_000)
    assert await page.evaluate("scrollY") == 0, "the saved version drawn at the end does not pull them down"


async def test_the_panes_show_each_new_round_trip_as_it_starts(signed_in: Page) -> None:
    page = signed_in
    await page.set_viewport_size({"width": 1400, "height": 700})
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await page.get_by_test_id("composer").fill('/call calculator {"expression": "6 * 7"}')
    await page.keyboard.press("Control+Enter")
    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    await expect(page.locator("#panes #rt-1")).to_have_count(1)
    # Round trip 2's head is at the top of the panes column, round trip 1 scrolled up out of the way.
    offset = await page.evaluate(
        "() => { const c = document.querySelector('.chat-panes'); const p = document.getElementById('rt-1');"
        " return [c.scrollTop, p.getBoundingClientRect().top - c.getBoundingClientRect().top, c.clientHeight]; }"
    )
    scrolled, top, height = offset
    assert scrolled > 0 and 0 <= top < height / 2, offset
