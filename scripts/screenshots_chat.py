"""Screenshots of the playground chat (light and dark): a tool call streaming, then the finished run.

    .venv/bin/python scripts/screenshots_chat.py [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

from playwright.async_api import Page, async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from screenshots import CHROMIUM_ARGS, ROOT, start_server

PROMPT = "What's the weather in Paris and Tokyo?"
SYSTEM = "You are a concise travel assistant."


async def start_chat(page: Page, url: str, password: str) -> None:
    await page.goto(f"{url}/login/")
    await page.fill("input[name=username]", "demo")
    await page.fill("input[name=password]", password)
    await page.click("button[type=submit]")
    await page.wait_for_selector("[data-testid=composer]")
    await page.get_by_test_id("endpoint-select").select_option(label="Simulated Anthropic")
    await page.get_by_text("System prompt and parameters").click()
    await page.locator("textarea[name=system]").fill(SYSTEM)
    await page.get_by_text("System prompt and parameters").click()
    await page.get_by_test_id("composer").fill(PROMPT)
    await page.get_by_test_id("send").click()


async def take(url: str, password: str, out: Path) -> None:
    chromium = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium")
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        for theme in ("light", "dark"):
            context = await browser.new_context(viewport={"width": 1600, "height": 1000}, color_scheme=theme)
            page = await context.new_page()
            await start_chat(page, url, password)
            # Mid-stream: the second call's arguments are still arriving.
            await page.wait_for_selector("#live [data-testid=tool-call]:nth-of-type(2)[data-status=streaming]")
            await page.wait_for_timeout(250)
            await page.screenshot(path=out / f"chat-streaming-{theme}.png")
            await page.wait_for_selector("[data-testid=run-status][data-status=done]", timeout=30_000)
            await page.wait_for_timeout(600)
            await page.screenshot(path=out / f"chat-done-{theme}.png")
            await context.close()
        await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as data_dir:
        # A slower pace than the default so the streaming screenshot catches arguments mid-way.
        server, url, password = start_server(Path(data_dir), CROSSWIRE_SIMULATOR_PACE_MS="90")
        try:
            asyncio.run(take(url, password, args.out))
        finally:
            server.terminate()
            server.wait(timeout=10)
    print(f"Screenshots written to {args.out}")


if __name__ == "__main__":
    main()
