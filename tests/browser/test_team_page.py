"""The Team page in a real browser: a role changes only when its row's Save is pressed (making an owner asks first),
all by keyboard; and a member leaves the team, after a confirmation, for their own team."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.async_api import Dialog, Page, expect

from tests.browser.conftest import sign_in, watch_console
from tests.conftest import DemoServer
from tests.helpers import manage

pytestmark = pytest.mark.browser

TEAM = "Demo team"
LEAVER, LEAVER_PASSWORD = "lena", "lena-password-7d1e"
# ada is the demo team's editor (playground/demo/setup.py); a test that changes her role puts it back after.
ROLE_OF = """
from playground.teams.models import Membership
print(Membership.objects.get(user__username={username!r}, team__name={team!r}).role)
"""
RESTORE_ADA = f"""
from playground.teams.models import Membership, Role
Membership.objects.filter(user__username="ada", team__name="{TEAM}").update(role=Role.EDITOR)
"""
ADD_LEAVER = f"""
from django.contrib.auth.models import User
from playground.teams.models import Membership, Role, Team
lena, _ = User.objects.get_or_create(username="{LEAVER}")
lena.set_password("{LEAVER_PASSWORD}")
lena.save()
Membership.objects.get_or_create(user=lena, team=Team.objects.get(name="{TEAM}"), defaults={{"role": Role.VIEWER}})
"""
IS_LEAVER_A_MEMBER = f"""
from playground.teams.models import Membership
print(Membership.objects.filter(user__username="{LEAVER}", team__name="{TEAM}").exists())
"""
REMOVE_LEAVER = f"""
from django.contrib.auth.models import User
User.objects.filter(username="{LEAVER}").delete()
"""


async def shell(server: DemoServer, code: str) -> str:
    done = await asyncio.to_thread(manage, server.server.env, "shell", "-v", "0", "-c", code)
    return done.stdout.strip()


async def role_of(server: DemoServer, username: str) -> str:
    return await shell(server, ROLE_OF.format(username=username, team=TEAM))


@pytest.fixture
async def ada_restored(daphne_server: DemoServer) -> AsyncIterator[None]:
    yield
    await shell(daphne_server, RESTORE_ADA)


@pytest.fixture
async def leaver(daphne_server: DemoServer) -> AsyncIterator[None]:
    await shell(daphne_server, ADD_LEAVER)
    yield
    await shell(daphne_server, REMOVE_LEAVER)


async def open_team_page(page: Page) -> None:
    await page.goto("/team/")
    await page.locator("#team-switch").select_option(label=TEAM)
    await expect(page.locator(".page-lead strong")).to_have_text(TEAM)


@dataclass
class Confirmations:
    """Answers every confirmation the page asks, as ``accept`` says at the time, and keeps what each one asked."""

    accept: bool = False
    seen: list[str] = field(default_factory=list)

    def watch(self, page: Page) -> Confirmations:
        page.on("dialog", self._answer)
        return self

    async def asked(self, count: int) -> list[str]:
        """What was asked, once ``count`` confirmations have been (a few seconds at most)."""
        for _ in range(100):
            if len(self.seen) >= count:
                return self.seen
            await asyncio.sleep(0.05)
        raise AssertionError(f"asked {len(self.seen)} confirmations, not {count}: {self.seen}")

    async def _answer(self, dialog: Dialog) -> None:
        self.seen.append(dialog.message)
        await (dialog.accept() if self.accept else dialog.dismiss())


async def test_a_role_changes_only_when_saved_and_an_owner_only_once_confirmed(
    signed_in: Page, daphne_server: DemoServer, ada_restored: None
) -> None:
    page = signed_in
    await open_team_page(page)
    row = page.locator('tr[data-member="ada"]')
    menu, save = row.get_by_test_id("member-role"), row.get_by_test_id("member-role-save")
    await expect(menu).to_have_value("editor")
    await expect(save).to_be_hidden()

    # An arrow key on the focused menu only picks: Save shows, and nothing is asked or saved yet.
    await menu.focus()
    await page.keyboard.press("ArrowUp")
    await expect(menu).to_have_value("owner")
    await expect(save).to_be_visible()
    await page.keyboard.press("Tab")
    await expect(save).to_be_focused()

    asked = Confirmations().watch(page)
    await page.keyboard.press("Enter")
    assert await asked.asked(1) == [f"Make ada an owner of {TEAM}? Owners manage members and roles, including yours."]
    assert await role_of(daphne_server, "ada") == "editor", "called off: still an editor"
    await expect(page.locator("#members .alert")).to_have_count(0)

    # Another role saves without a question; the list comes back with focus on the same menu.
    await menu.focus()
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("ArrowDown")
    await expect(menu).to_have_value("viewer")
    await page.keyboard.press("Tab")
    await page.keyboard.press("Enter")
    await expect(page.locator("#members .alert-success")).to_have_text("ada is now Viewer.")
    assert asked.seen == [f"Make ada an owner of {TEAM}? Owners manage members and roles, including yours."]
    await expect(menu).to_be_focused()
    await expect(save).to_be_hidden()
    assert await role_of(daphne_server, "ada") == "viewer"

    # Confirmed, an owner is made.
    asked.accept = True
    await page.keyboard.press("ArrowUp")
    await page.keyboard.press("ArrowUp")
    await page.keyboard.press("Tab")
    await page.keyboard.press("Enter")
    await expect(page.locator("#members .alert-success")).to_have_text("ada is now Owner.")
    assert len(await asked.asked(2)) == 2
    assert await role_of(daphne_server, "ada") == "owner"

    # Picking the saved role again hides Save: there is nothing to save.
    await page.keyboard.press("ArrowDown")
    await expect(save).to_be_visible()
    await page.keyboard.press("ArrowUp")
    await expect(save).to_be_hidden()

    # Giving up one's own ownership asks too; called off, it stays.
    asked.accept = False
    own = page.locator('tr[data-member="demo"]')
    await own.get_by_test_id("member-role").focus()
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Tab")
    await page.keyboard.press("Enter")
    assert (await asked.asked(3))[2] == f"Stop being an owner of {TEAM}? Only another owner can make you one again."
    assert await role_of(daphne_server, "demo") == "owner"


async def test_a_viewer_leaves_the_team_and_lands_in_their_own(
    new_context: Any, leaver: None, daphne_server: DemoServer
) -> None:
    page = await (await new_context()).new_page()
    errors = watch_console(page)
    await sign_in(page, LEAVER, LEAVER_PASSWORD)
    await open_team_page(page)
    await expect(page.locator("#members")).to_contain_text("Read-only: only owners manage members.")

    asked = Confirmations().watch(page)
    await page.get_by_test_id("team-leave").click()
    assert (await asked.asked(1))[0].startswith(f"Leave {TEAM}? You lose access")
    assert await shell(daphne_server, IS_LEAVER_A_MEMBER) == "True"

    asked.accept = True
    await page.get_by_test_id("team-leave").focus()
    await page.keyboard.press("Enter")
    await page.wait_for_url("**/c/*/")
    await expect(page.locator(".flash-success")).to_have_text(f"You left {TEAM}.")
    await expect(page.locator(".crumb-team")).to_have_text(f"{LEAVER}'s team")
    await expect(page.locator("#team-switch option", has_text=TEAM)).to_have_count(0)
    assert await shell(daphne_server, IS_LEAVER_A_MEMBER) == "False"
    assert errors == []
