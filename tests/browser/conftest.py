"""Playwright against the system Chromium (Debian's package), with the daphne server as base URL.

Without a browser these tests skip locally, loudly; under CI=true they fail, so CI cannot go green without them.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import BrowserContext, ConsoleMessage, Page

from tests.conftest import DemoServer

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def find_chromium() -> str | None:
    """The system Chromium, else the browser `playwright install chromium` downloaded (no apt available)."""
    system = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
    if system:
        return system
    cache = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH", Path.home() / ".cache" / "ms-playwright"))
    downloaded = sorted(cache.glob("chromium-*/chrome-linux*/chrome"))
    return str(downloaded[-1]) if downloaded else None


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    chromium = find_chromium()
    if chromium is None:
        reason = "no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"browser tests cannot run under CI: {reason}")
        pytest.skip(f"BROWSER TESTS NOT RUN: {reason}")
    return {**browser_type_launch_args, "executable_path": chromium, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def base_url(daphne_server: DemoServer) -> str:
    return daphne_server.url


def watch_console(page: Page) -> list[str]:
    """Collects every console error and uncaught exception on the page; tests assert it stays empty."""
    errors: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(f"console: {message.text} ({message.location.get('url')})")

    page.on("console", on_console)
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    return errors


@pytest.fixture
def console_errors(page: Page) -> list[str]:
    return watch_console(page)


async def htmx_settled(page: Page) -> None:
    """htmx binds the triggers of swapped-in content when it settles; acting earlier would go unnoticed.

    Polled with a function, not ``wait_for_function`` with a string: Playwright evaluates that string in the page,
    which the page's CSP (no unsafe-eval) refuses whenever the first check does not already pass."""
    for _ in range(200):
        if await page.evaluate(
            "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling, .htmx-added')"
        ):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("htmx never settled")


async def sign_in(page: Page, username: str, password: str) -> None:
    await page.goto("/login/")
    await page.get_by_label("Username").fill(username)
    await page.get_by_label("Password").fill(password)
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url(lambda url: "/login/" not in url)


async def reset_chat_settings(page: Page) -> None:
    """Signed in, the page is on the account's draft chat. A new chat copies the last one's settings, so a test
    would start from whatever the test before it set (a strategy, approvals): Reset puts a first chat's back."""
    await page.wait_for_url("**/c/*/")
    token = next(c["value"] for c in await page.context.cookies() if c["name"] == "csrftoken")
    response = await page.request.post(page.url + "settings/reset/", headers={"X-CSRFToken": token}, max_redirects=0)
    assert response.status == 302, await response.text()
    await page.reload()


@pytest.fixture
async def signed_in(page: Page, console_errors: list[str], daphne_server: DemoServer) -> AsyncIterator[Page]:
    await sign_in(page, daphne_server.username, daphne_server.password)
    await reset_chat_settings(page)
    yield page
    assert console_errors == []


@pytest.fixture
async def dark_context(new_context: Any) -> BrowserContext:
    return await new_context(color_scheme="dark")
