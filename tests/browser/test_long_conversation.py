"""A long conversation in a real browser: older round trips open folded, unfold on a click with their JSON trees,
and copy as curl fetches its snippet into the clipboard; the review page unfolds them the same way."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Page, expect

from tests.conftest import DemoServer
from tests.helpers import manage

pytestmark = pytest.mark.browser

ROUND_TRIPS = 30
# Thirty round trips of ~20 KB of request each: more than the page sends whole, so the oldest are folded.
SETUP = f"""
from django.contrib.auth.models import User
from playground.conversations.models import Conversation, RoundTrip
from playground.teams.models import Team
team = Team.objects.get(name="Demo team")
c = Conversation.objects.create(team=team, created_by=User.objects.get(username="demo"), title="long agent loop",
                                format="openai-chat", model="sim-1", status="done")
for n in range({ROUND_TRIPS}):
    RoundTrip.objects.create(
        conversation=c, position=n, format="openai-chat", model="sim-1", complete=True,
        request={{"model": "sim-1", "messages": [{{"role": "user", "content": f"mark-{{n:03d}} " + "x" * 20000}}]}},
        wire_request={{"method": "POST", "url": "http://127.0.0.1/sim/openai/v1/chat/completions",
                      "headers": {{"authorization": "[redacted]"}}, "body": {{"model": "sim-1", "n": n}}}},
        wire_events=[{{"t_ms": 2.0, "event": None, "data": f"event-{{n:03d}}"}}],
    )
print(c.pk)
"""


@pytest.fixture
async def long_chat(daphne_server: DemoServer) -> int:
    made = await asyncio.to_thread(manage, daphne_server.server.env, "shell", "-v", "0", "-c", SETUP)
    return int(made.stdout.split()[-1])


async def test_older_round_trips_unfold_and_copy_fetches_the_snippet(
    signed_in: Page, long_chat: int, base_url: str
) -> None:
    page = signed_in
    await page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    await page.goto(f"/c/{long_chat}/")
    first = page.locator("#rt-0")
    await expect(first.get_by_test_id("load-round-trip")).to_be_visible()
    await expect(page.locator(f"#rt-{ROUND_TRIPS - 1}").get_by_test_id("pane-internal")).to_contain_text("mark-029")
    assert await page.get_by_test_id("load-round-trip").count() > 0
    await expect(first).not_to_contain_text("mark-000")

    await first.get_by_test_id("load-round-trip").click()
    unfolded = page.locator("#rt-0")
    await expect(unfolded.get_by_test_id("pane-internal")).to_contain_text("mark-000")
    await expect(unfolded.get_by_test_id("wire-event")).to_contain_text("event-000")
    await expect(unfolded.locator("pre.json-tree").first).to_be_visible()  # the JSON tree drew on the new pane

    copy = unfolded.locator('[data-copy-url$="/copy/curl/"]')  # by where it fetches: its name changes on a copy
    await copy.click()
    await expect(copy).to_have_text("copied")
    clipboard = await page.evaluate("navigator.clipboard.readText()")
    assert clipboard.startswith("curl ") and "${OPENAI_API_KEY}" in clipboard and '"n": 0' in clipboard


async def test_the_review_unfolds_an_old_round_trip(signed_in: Page, long_chat: int) -> None:
    page = signed_in
    await page.goto(f"/c/{long_chat}/review/")
    folded = page.locator("#review-rt-0")
    await folded.locator("summary").click()
    await folded.get_by_test_id("load-round-trip").click()
    await expect(folded.get_by_test_id("pane-internal")).to_contain_text("mark-000")
