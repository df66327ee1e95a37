"""A saved conversation page: no stray text, flash messages shown, and an interrupted run retried from the page."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Page, Route, expect

from tests.conftest import DemoServer
from tests.helpers import manage

pytestmark = pytest.mark.browser

# What a web process leaves behind when it dies mid-answer, then recovered: an interrupted conversation of the demo
# user's personal team, with the partial answer saved as incomplete.
INTERRUPTED = """
from playground.chat.options import ChatOptions
from playground.conversations.models import Conversation, Message
from playground.endpoints.models import Endpoint
from playground.teams.access import ensure_personal_team
from django.contrib.auth.models import User
demo = User.objects.get(username="demo")
endpoint = Endpoint.objects.get(name="Simulated OpenAI")
conversation = Conversation.objects.create(
    team=ensure_personal_team(demo), created_by=demo, title="Cut off by a restart", endpoint=endpoint,
    endpoint_name=endpoint.name, format="openai-chat", model="sim-1", status="interrupted",
    status_message="The server process running this conversation stopped (a restart or a crash).",
    settings=ChatOptions(endpoint_id=endpoint.pk, model="sim-1").to_dict(),
)
Message.objects.create(conversation=conversation, position=0, role="user", data={"role": "user", "content": "Say hi"})
Message.objects.create(conversation=conversation, position=1, role="assistant",
                       data={"role": "assistant", "content": "Hi th"}, complete=False)
print(conversation.pk)
"""


async def test_an_interrupted_conversation_is_shown_plainly_and_retried(
    signed_in: Page, daphne_server: DemoServer
) -> None:
    page = signed_in
    made = await asyncio.to_thread(manage, daphne_server.server.env, "shell", "-v", "0", "-c", INTERRUPTED)
    pk = int(made.stdout.split()[-1])
    await page.goto(f"/c/{pk}/")
    body = await page.locator("body").inner_text()
    assert "MessageView(" not in body and "RoundTripView(" not in body, "no Python objects on the page"
    # Nothing alarming on show (the composer keeps a hidden alert region ready for its own messages).
    await expect(page.locator(".flash, .messages, [role=alert]").filter(visible=True)).to_have_count(0)
    status = page.get_by_test_id("run-status")
    await expect(status).to_have_attribute("data-status", "interrupted")
    await expect(status).to_contain_text("Interrupted")
    await expect(page.get_by_test_id("message").last).to_contain_text("Hi th")

    await page.get_by_test_id("retry-button").click()
    await expect(page.get_by_text("Retrying from the last complete message.")).to_be_visible()
    await expect(status).to_have_attribute("data-status", "done", timeout=20_000)
    await expect(page.get_by_test_id("retry-button")).to_be_hidden()
    await expect(page.get_by_test_id("message")).to_have_count(3)


async def test_a_providers_error_offers_retry_beside_send_with_the_model_changed_since(signed_in: Page) -> None:
    page = signed_in
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await page.get_by_test_id("endpoint-select").select_option(label="Simulated OpenAI")
    await page.get_by_test_id("model-input").fill("sim-429")  # the simulator's rate limit
    await page.get_by_test_id("composer").fill("What's the weather in Paris?")
    await page.keyboard.press("Control+Enter")
    status = page.get_by_test_id("run-status")
    await expect(status).to_have_attribute("data-status", "error", timeout=15_000)
    beside_send = page.get_by_test_id("retry-composer")
    await expect(beside_send).to_be_visible()  # it used to be offered after an interruption only
    await expect(page.get_by_test_id("retry-button")).to_be_visible()

    # Typed and Retry clicked at once: the model's save (on leaving the field, held up here) lands before the retry.
    async def slow_save(route: Route) -> None:
        await asyncio.sleep(1)
        await route.continue_()

    await page.route("**/settings/", slow_save)
    await page.get_by_test_id("model-input").fill("sim-1")
    await beside_send.click()
    await expect(page.get_by_text("Retrying from the last complete message.")).to_be_visible()
    await expect(status).to_have_attribute("data-status", "done", timeout=20_000)
    await expect(beside_send).to_be_hidden()
    heads = page.locator("#panes .rt-head")
    await expect(heads.first).to_contain_text("sim-429")
    await expect(heads.nth(1)).to_contain_text("sim-1")
    await expect(page.get_by_test_id("model-input")).to_have_value("sim-1")
