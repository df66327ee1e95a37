"""Team review in real browsers: two teammates see each other's comment and verdict arrive live, the keys move
around the timeline, and a share link opens signed out until it is revoked."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests.browser.conftest import sign_in, watch_console
from tests.browser.test_chat import send
from tests.conftest import DemoServer
from tests.helpers import manage
from tests.review.conftest import CALLS

pytestmark = pytest.mark.browser

TEAMMATE, TEAMMATE_PASSWORD = "rhea", "rhea-password-4c2b"
# A second member of the demo team who can sign in, and a saved conversation of that team to review.
SETUP = f"""
from django.contrib.auth.models import User
from playground.teams.models import Membership, Role, Team
from tests.review.conftest import build_conversation
team = Team.objects.get(name="Demo team")
rhea, _ = User.objects.get_or_create(username="{TEAMMATE}")
rhea.set_password("{TEAMMATE_PASSWORD}")
rhea.save()
Membership.objects.get_or_create(user=rhea, team=team, defaults={{"role": Role.VIEWER}})
print(build_conversation(team, User.objects.get(username="demo")).pk)
"""
LIVE_TIMEOUT_MS = 10_000


async def open_review(page: Page, pk: int) -> None:
    await page.goto(f"/c/{pk}/review/")
    await expect(page.get_by_test_id("review")).to_have_attribute("data-connected", "1", timeout=LIVE_TIMEOUT_MS)


async def scroll_settled(page: Page) -> None:
    """Until a smooth scroll has ended: the page's scroll offset the same over 300 ms."""
    last = None
    for _ in range(40):
        now = await page.evaluate("scrollY")
        if now == last:
            return
        last = now
        await page.wait_for_timeout(300)
    raise AssertionError("the page kept scrolling")


@pytest.fixture
async def setup(daphne_server: DemoServer) -> int:
    made = await asyncio.to_thread(manage, daphne_server.server.env, "shell", "-v", "0", "-c", SETUP)
    return int(made.stdout.split()[-1])


async def test_teammates_see_each_others_comment_and_verdict_live(
    signed_in: Page, new_context: Any, setup: int
) -> None:
    demo = signed_in
    teammate = await (await new_context()).new_page()
    teammate_errors = watch_console(teammate)
    await sign_in(teammate, TEAMMATE, TEAMMATE_PASSWORD)
    await open_review(demo, setup)
    await open_review(teammate, setup)

    await demo.get_by_test_id("comment-input").fill(f"@{TEAMMATE} is the Atlantis call a bug in the tool?")
    await demo.get_by_test_id("comment-submit").click()
    await expect(demo.get_by_test_id("comment-input")).to_have_value("")  # sent: the form is ready for the next
    arrived = teammate.get_by_test_id("comment").filter(has_text="is the Atlantis call a bug")
    await expect(arrived).to_be_visible(timeout=LIVE_TIMEOUT_MS)
    await expect(arrived.get_by_test_id("comment-author")).to_have_text("demo")
    await expect(arrived.locator(".mention")).to_have_text(f"@{TEAMMATE}")

    card = teammate.locator(f'[data-testid="tool-call"][data-call-id="{CALLS["failed"]}"]')
    await card.get_by_test_id("verdict-note").fill("the tool should say the city is unknown")
    await card.get_by_test_id("verdict-select").select_option("wrong_arguments")
    seen = demo.locator(f'[data-call-id="{CALLS["failed"]}"]').get_by_test_id("verdict")
    await expect(seen).to_have_count(1, timeout=LIVE_TIMEOUT_MS)
    await expect(seen).to_contain_text("Wrong arguments")
    await expect(seen).to_contain_text(TEAMMATE)

    # A reply in the thread reaches the other page as well, nested under the comment it answers.
    await arrived.get_by_test_id("comment-reply").click()
    reply_box = teammate.locator("#comments-conversation").get_by_test_id("comment-input")
    await reply_box.fill("No, the model guessed a city that does not exist.")
    await reply_box.press("Control+Enter")
    await expect(demo.locator(".replies").get_by_test_id("comment")).to_contain_text(
        "the model guessed", timeout=LIVE_TIMEOUT_MS
    )
    assert teammate_errors == []


async def test_keys_move_through_messages_and_jump_to_problems(signed_in: Page, setup: int) -> None:
    page = signed_in
    await open_review(page, setup)
    await page.keyboard.press("j")
    await expect(page.locator("#msg-0")).to_be_focused()
    await page.keyboard.press("j")
    await expect(page.locator("#msg-1")).to_be_focused()
    await page.keyboard.press("u")
    await expect(page.locator(f'[data-call-id="{CALLS["open"]}"]')).to_be_focused()
    await page.keyboard.press("i")
    await expect(page.locator(f'[data-call-id="{CALLS["invalid"]}"]')).to_be_focused()
    await page.keyboard.press("e")  # the next error after the invalid call: the call whose tool failed
    await expect(page.locator(f'[data-call-id="{CALLS["failed"]}"]')).to_be_focused()
    await page.keyboard.press("e")  # then the round trip that failed, unfolded
    failed_trip = page.locator("#review-rt-1")
    await expect(failed_trip).to_be_focused()
    await expect(failed_trip).to_have_attribute("open", "")
    await expect(failed_trip.get_by_test_id("error")).to_be_visible()
    await page.keyboard.press("k")
    await expect(page.locator("#msg-1")).to_be_focused()
    await page.keyboard.press("o")
    await expect(page.locator("#review-rt-0")).to_have_attribute("open", "")
    await page.keyboard.press("?")
    await expect(page.locator("#help-dialog")).to_be_visible()
    await expect(page.locator("#help-dialog").get_by_test_id("review-keys")).to_contain_text("Next / previous message")


async def test_a_jump_in_a_narrow_window_lands_below_the_jump_bar(signed_in: Page, setup: int) -> None:
    # At this width the bar wraps to two rows; the failed round trip, unfolded, is taller than the window: centred,
    # its top (with the error) went under the bar.
    page = signed_in
    await page.set_viewport_size({"width": 560, "height": 520})
    await open_review(page, setup)
    bar = page.locator(".review-jumps")
    for _ in range(3):  # the failed call, the error message, then the failed round trip
        await page.keyboard.press("e")
        await scroll_settled(page)
    failed_trip = page.locator("#review-rt-1")
    await expect(failed_trip).to_be_focused()
    bar_box, trip_box = await bar.bounding_box(), await failed_trip.bounding_box()
    assert bar_box is not None and trip_box is not None
    assert bar_box["height"] > 60, "the bar wraps at this width (the case under test)"
    assert trip_box["y"] >= bar_box["y"] + bar_box["height"], (bar_box, trip_box)
    assert trip_box["y"] < 520, "and in the window"
    assert bar_box["y"] == 0, "the top bar scrolls away at this width: nothing shows above the jump bar"


async def test_a_review_open_while_the_chat_waits_shows_the_answer_when_it_comes(signed_in: Page) -> None:
    # The reviewer's page used to keep "No result yet" until reloaded.
    chat = signed_in
    await send(chat, "Simulated OpenAI", '/call search_docs {"query": "refunds"}')
    await expect(chat.get_by_test_id("tool-result-input")).to_be_visible(timeout=15_000)
    pk = int(await chat.locator("#chat").get_attribute("data-conversation") or 0)
    review = await chat.context.new_page()
    await open_review(review, pk)
    await expect(review.get_by_test_id("jump-unanswered").locator(".badge")).to_have_text("1")
    await review.locator("#review-rt-0").evaluate("details => { details.open = true; }")  # a reader's unfolded pane

    await chat.get_by_test_id("tool-result-input").fill("Refunds are paid within 5 days.")
    await chat.get_by_test_id("tool-result-send").click()
    await expect(chat.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=20_000)
    card = review.get_by_test_id("tool-call").first
    await expect(card).to_contain_text("Refunds are paid within 5 days.", timeout=LIVE_TIMEOUT_MS)
    await expect(review.get_by_test_id("jump-unanswered").locator(".badge")).to_have_text("0")
    await expect(review.get_by_test_id("message")).to_have_count(3)  # the question, the call, the reply
    await expect(review.locator("#review-rt-0")).to_have_attribute("open", "")  # what was unfolded stays so
    await expect(review.get_by_test_id("comment-input")).to_be_visible()  # the page's forms still work
    await review.close()


async def test_a_member_made_viewer_while_the_chat_is_open_is_told_and_can_no_longer_send(
    signed_in: Page, new_context: Any, setup: int, daphne_server: DemoServer
) -> None:
    owner = signed_in
    make_editor = (
        "from playground.teams.models import Membership\n"
        f"Membership.objects.filter(user__username='{TEAMMATE}').update(role='editor')"
    )
    await asyncio.to_thread(manage, daphne_server.server.env, "shell", "-c", make_editor)
    teammate = await (await new_context()).new_page()
    await sign_in(teammate, TEAMMATE, TEAMMATE_PASSWORD)
    await teammate.goto(f"/c/{setup}/")
    await expect(teammate.locator("#chat")).to_have_attribute("data-connected", "1", timeout=LIVE_TIMEOUT_MS)
    await teammate.get_by_test_id("composer").fill("half a thought")

    await owner.goto(f"/c/{setup}/review/")  # the conversation's team becomes the current one
    await owner.goto("/team/")
    await owner.get_by_label(f"Role of {TEAMMATE}").select_option("viewer")
    await owner.locator(f'tr[data-member="{TEAMMATE}"]').get_by_test_id("member-role-save").click()
    notice = teammate.get_by_test_id("access-changed")
    await expect(notice).to_contain_text("no longer run it", timeout=LIVE_TIMEOUT_MS)
    await expect(teammate.get_by_test_id("composer")).to_be_disabled()
    await expect(teammate.get_by_test_id("composer")).to_have_value("half a thought")  # nothing typed is lost
    await expect(teammate.locator("#send")).to_be_disabled()
    await expect(teammate.get_by_test_id("attach-image")).to_be_disabled()
    await notice.get_by_test_id("access-reload").click()
    await expect(teammate.locator("#chat")).to_have_attribute("data-can-edit", "0")
    await expect(teammate.get_by_test_id("composer")).to_have_count(0)  # drawn for a viewer now


async def test_a_share_link_opens_signed_out_until_revoked(signed_in: Page, new_context: Any, setup: int) -> None:
    demo = signed_in
    demo.on("dialog", lambda dialog: dialog.accept())
    await open_review(demo, setup)
    await demo.get_by_test_id("share-create").click()
    url = await demo.get_by_test_id("share-url").inner_text()
    assert "/s/" in url

    stranger = await (await new_context()).new_page()
    stranger_errors = watch_console(stranger)
    response = await stranger.goto(url)
    assert response is not None and response.status == 200
    assert (await response.header_value("x-robots-tag") or "").startswith("noindex")
    shared = stranger.get_by_test_id("shared-conversation")
    await expect(shared).to_be_visible()
    await expect(shared.get_by_test_id("tool-call")).to_have_count(len(CALLS))
    await expect(stranger.get_by_test_id("comment-input")).to_have_count(0)
    await expect(stranger.locator('meta[name="robots"]')).to_have_attribute("content", "noindex, nofollow")
    assert stranger_errors == []

    await demo.get_by_test_id("share-revoke").first.click()
    await expect(demo.locator('[data-testid="share-link"][data-state="revoked"]')).to_have_count(1)
    refused = await stranger.goto(url)
    assert refused is not None and refused.status == 410
    await expect(stranger.get_by_test_id("link-gone")).to_contain_text("This link was revoked")


async def test_a_refused_action_is_told_beside_its_form_and_a_verdict_can_be_withdrawn(
    signed_in: Page, setup: int, console_errors: list[str]
) -> None:
    page = signed_in
    await open_review(page, setup)
    composer = page.locator("form:has([data-testid=comment-input])").first
    await composer.get_by_test_id("comment-input").fill("   ")
    await composer.get_by_test_id("comment-submit").click()
    await expect(composer.locator(".form-error")).to_have_text("Write something first.")
    await expect(page.get_by_test_id("review")).to_be_visible()  # the page is still there, not the refusal alone
    # The browser's and htmx's own lines for the refusal (a 400), and nothing else.
    refused = [e for e in console_errors if "400" in e and "/comments/post/" in e]
    assert refused and len(refused) == len(console_errors), console_errors
    console_errors.clear()

    card = page.locator(f'[data-testid="tool-call"][data-call-id="{CALLS["good"]}"]')
    await card.get_by_test_id("verdict-select").select_option("right")
    await expect(card.get_by_test_id("verdict")).to_have_count(1)
    await card.get_by_test_id("verdict-select").select_option("")  # back to "Your verdict…": withdrawn
    await expect(card.get_by_test_id("verdict")).to_have_count(0)
    await expect(page.get_by_test_id("review")).to_be_visible()


async def test_a_viewer_is_told_what_a_waiting_chat_needs_and_given_no_answer_form(
    signed_in: Page, new_context: Any, setup: int
) -> None:
    chat = signed_in
    await chat.goto(f"/c/{setup}/")  # the Demo team, the viewer's, becomes the current one: a new chat starts in it
    await chat.get_by_test_id("new-chat").click()
    await send(chat, "Simulated OpenAI", '/call search_docs {"query": "refunds"}')
    await expect(chat.get_by_test_id("tool-result-input")).to_be_visible(timeout=15_000)  # the editor's form
    pk = int(await chat.locator("#chat").get_attribute("data-conversation") or 0)

    viewer = await (await new_context()).new_page()
    await sign_in(viewer, TEAMMATE, TEAMMATE_PASSWORD)
    await viewer.goto(f"/c/{pk}/")
    await expect(viewer.locator("#chat")).to_have_attribute("data-connected", "1", timeout=LIVE_TIMEOUT_MS)
    note = viewer.get_by_test_id("tool-waiting-note")
    await expect(note).to_contain_text("waits for an editor to type this call's result")
    await expect(viewer.get_by_test_id("tool-call").locator(".badge-waiting")).to_have_text("needs an answer")
    await expect(viewer.get_by_test_id("tool-result-input")).to_have_count(0)  # it used to be offered, then refused
    await expect(viewer.get_by_test_id("tool-result-send")).to_have_count(0)

    await chat.get_by_test_id("tool-result-input").fill("Refunds are paid within 5 days.")
    await chat.get_by_test_id("tool-result-send").click()
    await expect(viewer.get_by_test_id("tool-call").first).to_contain_text("Refunds are paid within 5 days.",
                                                                           timeout=LIVE_TIMEOUT_MS)  # fmt: skip
    await expect(note).to_have_count(0)


async def test_a_viewer_of_a_comparison_waiting_on_an_answer_is_given_no_answer_forms(
    signed_in: Page, new_context: Any, setup: int
) -> None:
    owner = signed_in
    await owner.goto(f"/c/{setup}/")  # the Demo team, the viewer's, becomes the current one
    await owner.goto("/compare/")
    await owner.locator("input[name=tools][value=search_docs]").check()
    await owner.get_by_test_id("compare-composer").fill('/call search_docs {"query": "refund policy"}')
    await owner.get_by_test_id("compare-run").click()
    await owner.wait_for_url("**/compare/*/")
    await expect(owner.get_by_test_id("compare-answer-all")).to_contain_text("columns wait for", timeout=20_000)

    viewer = await (await new_context()).new_page()
    await sign_in(viewer, TEAMMATE, TEAMMATE_PASSWORD)
    await viewer.goto(owner.url)
    columns = viewer.get_by_test_id("compare-column")
    notes = viewer.get_by_test_id("tool-waiting-note")
    await expect(notes).to_have_count(await columns.count(), timeout=LIVE_TIMEOUT_MS)  # one per waiting column
    await expect(viewer.get_by_test_id("tool-result-input")).to_have_count(0)
    await expect(viewer.get_by_test_id("compare-answer-all")).to_be_hidden()  # "Answer all" was offered, then refused
    await owner.get_by_test_id("compare-answer-all-input").fill("Refunds are paid within 5 days.")
    await owner.get_by_test_id("compare-answer-all-send").click()
    await expect(notes).to_have_count(0, timeout=LIVE_TIMEOUT_MS)
