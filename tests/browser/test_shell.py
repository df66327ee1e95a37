"""The shell in a real browser: sign in, live WebSocket, navigation, theme, shortcuts, htmx, sign out."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from playwright.async_api import BrowserContext, Page, expect

from tests.browser.conftest import htmx_settled, sign_in, watch_console
from tests.conftest import DemoServer
from tests.helpers import manage

pytestmark = pytest.mark.browser

SECTION_LABELS = ["Tools", "Conversations", "Compare", "Providers", "Team", "Playground"]


async def test_signing_in_shows_the_playground_with_a_live_connection(signed_in: Page) -> None:
    page = signed_in
    await expect(page.locator("h1.page-title")).to_have_text("Playground")
    await expect(page.locator("#live-status")).to_have_attribute("data-state", "live")
    await expect(page.locator("#live-status .live-label")).to_have_text("Live")
    await expect(page.locator(".user-name")).to_have_text("demo")


async def test_sidebar_navigation_reaches_every_section(signed_in: Page) -> None:
    page = signed_in
    nav = page.get_by_role("navigation", name="Sections")
    for label in SECTION_LABELS:
        await nav.get_by_role("link", name=label).click()
        await expect(page.locator("h1.page-title")).to_have_text(label)
        await expect(nav.locator('[aria-current="page"]')).to_contain_text(label)
        await expect(page.locator("#live-status")).to_have_attribute("data-state", "live")


async def test_g_shortcuts_navigate(signed_in: Page) -> None:
    page = signed_in
    for key, label in [("t", "Tools"), ("c", "Conversations"), ("o", "Compare"), ("m", "Team"), ("p", "Playground")]:
        # Keys pressed before the deferred app.js runs would go nowhere, as on any page still loading.
        await page.wait_for_load_state()
        await page.keyboard.press("g")
        await page.keyboard.press(key)
        await expect(page.locator("h1.page-title")).to_have_text(label)


async def test_question_mark_opens_the_shortcut_help(signed_in: Page) -> None:
    page = signed_in
    dialog = page.locator("#help-dialog")
    await expect(dialog).to_be_hidden()
    await page.keyboard.press("?")
    await expect(dialog).to_be_visible()
    await expect(dialog.get_by_role("heading", name="Keyboard shortcuts")).to_be_visible()
    await expect(dialog).to_contain_text("Conversations")
    keys = dialog.locator("dt", has_text="Ctrl/⌘").locator("kbd")
    await expect(keys).to_have_text(["Ctrl/⌘", "Enter"])  # the keys every composer sends with, one box each
    walk = dialog.locator("dt", has_text="↑").locator("kbd")
    await expect(walk).to_have_text(["↑", "↓", "Enter"])  # a round trip's events and JSON, read from the keyboard
    await page.keyboard.press("Escape")
    await expect(dialog).to_be_hidden()
    await page.get_by_role("button", name="Keyboard shortcuts").click()
    await expect(dialog).to_be_visible()
    await dialog.get_by_role("button", name="Close").click()
    await expect(dialog).to_be_hidden()


async def test_shortcuts_stay_quiet_while_typing(signed_in: Page) -> None:
    page = signed_in
    await page.goto("/team/")
    await page.get_by_placeholder("username").type("g?t")
    await expect(page.locator("#help-dialog")).to_be_hidden()
    await expect(page.locator("h1.page-title")).to_have_text("Team")
    await expect(page.get_by_placeholder("username")).to_have_value("g?t")


async def test_theme_toggle_is_remembered(signed_in: Page) -> None:
    page = signed_in
    html = page.locator("html")
    await expect(html).to_have_attribute("data-theme", "light")
    await page.get_by_role("button", name="Toggle light and dark theme").click()
    await expect(html).to_have_attribute("data-theme", "dark")
    await page.reload()
    await expect(html).to_have_attribute("data-theme", "dark")
    assert await page.evaluate("localStorage.getItem('crosswire-theme')") == "dark"
    await page.keyboard.press("t")
    await expect(html).to_have_attribute("data-theme", "light")
    background = await page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(246, 246, 248)"


async def test_theme_follows_the_system_until_chosen(dark_context: BrowserContext, daphne_server: DemoServer) -> None:
    page = await dark_context.new_page()
    errors = watch_console(page)
    await page.goto("/login/")
    await expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    await sign_in(page, daphne_server.username, daphne_server.password)
    await expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    background = await page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(14, 15, 19)"
    await expect(page.locator("#live-status")).to_have_attribute("data-state", "live")
    assert errors == []


async def test_team_members_are_managed_in_place(signed_in: Page, new_context: Any, daphne_server: DemoServer) -> None:
    page = signed_in
    page.on("dialog", lambda dialog: dialog.accept())
    # grace is a viewer of the demo team; she is invited to the demo user's personal team and must accept.
    await page.goto("/team/")
    await page.get_by_placeholder("username").fill("grace")
    await page.locator(".add-member select[name=role]").select_option("viewer")
    await page.get_by_role("button", name="Invite").click()
    await expect(page.locator("#members .alert-success")).to_contain_text("Invited grace as Viewer.")
    await expect(page.locator('tr[data-invitation="grace"]')).to_be_visible()
    await htmx_settled(page)

    password = "grace-password-5e1a"
    set_password = (
        f"from django.contrib.auth.models import User; u = User.objects.get(username='grace'); "
        f"u.set_password('{password}'); u.save()"
    )
    await asyncio.to_thread(manage, daphne_server.server.env, "shell", "-c", set_password)
    invitee = await (await new_context()).new_page()
    await sign_in(invitee, "grace", password)
    await invitee.goto("/team/")
    await invitee.get_by_test_id("invitation-accept").click()
    await expect(invitee.locator(".flash, .alert").first).to_contain_text("You joined")

    await page.reload()
    row = page.locator('tr[data-member="grace"]')
    await row.get_by_label("Role of grace").select_option("editor")
    await row.get_by_test_id("member-role-save").click()
    await expect(page.locator("#members .alert-success")).to_have_text("grace is now Editor.")
    await htmx_settled(page)
    url_before = page.url
    await row.get_by_role("button", name="Remove").click()
    await expect(page.locator("#members .alert-success")).to_have_text("Removed grace.")
    await expect(row).to_have_count(0)
    assert page.url == url_before, "htmx swaps the members section; the page never reloads"


async def test_switching_team_from_the_sidebar(signed_in: Page) -> None:
    page = signed_in
    await page.locator("#team-switch").select_option(label="Demo team")
    await expect(page.locator(".crumb-team")).to_have_text("Demo team")
    await page.goto("/team/")
    await expect(page.get_by_label("Role of grace")).to_have_value("viewer")


async def test_signing_out_returns_to_the_login_page(signed_in: Page) -> None:
    page = signed_in
    await page.get_by_role("button", name="Sign out").click()
    await expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    await page.goto("/tools/")
    await expect(page).to_have_url(re.compile(r"/login/\?next=/tools/$"))


LONG_TOOLS = """
from playground.teams.models import Membership
from playground.tools.models import Tool
description = "Draw a bar chart of labelled values, as an image the model and the page both see"
for membership in Membership.objects.filter(user__username="demo"):  # whichever team is the current one
    for n in range(3):
        Tool.objects.get_or_create(
            team=membership.team, name=f"empty_schema_tool_imported_{n}", defaults={"mode": "manual"}
        )
        Tool.objects.get_or_create(
            team=membership.team, name=f"bar_chart_imported_{n}",
            defaults={"mode": "builtin", "builtin": "bar_chart", "description": description},
        )
"""

DROP_LONG_TOOLS = """
from playground.tools.models import Tool
Tool.objects.filter(name__regex=r"^(empty_schema_tool|bar_chart)_imported_[0-9]$").delete()
"""


async def test_the_providers_and_tools_tables_fit_their_cards_not_the_page(
    signed_in: Page, daphne_server: DemoServer
) -> None:
    # At 560 px the providers' names wrapped a letter a line; at 800 px a hidden "Actions" header widened the whole
    # Tools page; at 1280 px long tool names pushed a row's Delete out of the card.
    page = signed_in
    await asyncio.to_thread(manage, daphne_server.server.env, "shell", "-c", LONG_TOOLS)
    try:
        await check_tables_fit(page)
    finally:  # the other tests of this server count the demo's tools
        await asyncio.to_thread(manage, daphne_server.server.env, "shell", "-c", DROP_LONG_TOOLS)


async def check_tables_fit(page: Page) -> None:
    page_width = "document.documentElement.scrollWidth - window.innerWidth"
    for width in (560, 800):
        await page.set_viewport_size({"width": width, "height": 800})
        await page.goto("/providers/")
        name = page.locator(".endpoint-name").first
        box = await name.bounding_box()
        assert box is not None and box["width"] > 100, f"at {width} px the name column keeps room for a name"
        assert await page.evaluate(page_width) <= 0, f"the Providers page scrolls sideways at {width} px"
        await page.goto("/tools/")
        assert await page.evaluate(page_width) <= 0, f"the Tools page scrolls sideways at {width} px"
    await page.set_viewport_size({"width": 1280, "height": 800})
    await page.goto("/tools/")
    overflow = await page.locator("#tool-list").evaluate("card => card.scrollWidth - card.clientWidth")
    assert overflow <= 0, "every column of the tools table is inside its card"
    await expect(page.get_by_test_id("tool-row").first.get_by_role("button", name="Delete")).to_be_in_viewport()


async def test_a_narrow_windows_sections_fade_at_the_edge_while_more_are_out_of_sight(signed_in: Page) -> None:
    page = signed_in
    await page.set_viewport_size({"width": 560, "height": 800})
    await page.goto("/tools/")
    nav = page.locator(".nav")
    await expect(nav).to_have_attribute("data-more", "1")
    assert await nav.evaluate("n => getComputedStyle(n).maskImage") != "none"
    await nav.evaluate("n => { n.scrollLeft = n.scrollWidth; }")
    await expect(nav).to_have_attribute("data-more", "0")  # at the end: nothing more, no fade
    assert await nav.evaluate("n => getComputedStyle(n).maskImage") == "none"
    await page.set_viewport_size({"width": 1280, "height": 800})
    await expect(nav).to_have_attribute("data-more", "0")  # the sidebar lists them all
