"""Take the README screenshots (light and dark) with Playwright and the system Chromium.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots]

Starts its own daphne on a free port with a throwaway SQLite database and demo account, so it never touches data/.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.async_api import Page, async_playwright

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]
PAGES = [("", "playground"), ("tools/", "tools"), ("providers/", "providers-list"), ("team/", "team")]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(data_dir: Path, **extra_env: str) -> tuple[subprocess.Popen[bytes], str, str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "CROSSWIRE_ENV": "local", "CROSSWIRE_DATA_DIR": str(data_dir), "DEBUG": "1"}
    # The app reaches its built-in simulator over HTTP: the one mounted on this very server.
    env.update({"CROSSWIRE_SIMULATOR_URL": f"{url}/sim", **extra_env})
    env.pop("DATABASE_URL", None)
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], env=env, check=True, cwd=ROOT)
    out = subprocess.run([*manage, "setup_demo", "--url", url], env=env, check=True, cwd=ROOT, capture_output=True)
    password = re.search(r"Password:\s+(\S+)", out.stdout.decode())
    assert password, out.stdout
    server = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "playground.asgi:application"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{url}/healthz", timeout=1)
            return server, url, password.group(1)
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise RuntimeError("daphne did not start")


async def capture(page: Page, url: str, name: str, out: Path) -> None:
    await page.goto(url)
    await page.wait_for_selector('#live-status[data-state="live"]')
    await page.screenshot(path=out / f"{name}.png")


CHAT_PROMPT = "What's the weather in Paris and Tokyo?"
CHAT_SYSTEM = "You are a concise travel assistant."


async def capture_chat(page: Page, url: str, theme: str, out: Path) -> None:
    """A parallel tool call streaming from the simulated Anthropic endpoint, then the finished run."""
    await page.set_viewport_size({"width": 1600, "height": 1000})
    await page.goto(f"{url}/")
    await page.get_by_test_id("endpoint-select").select_option(label="Simulated Anthropic")
    await page.get_by_text("System prompt and parameters").click()
    await page.locator("textarea[name=system]").fill(CHAT_SYSTEM)
    await page.get_by_text("System prompt and parameters").click()
    await page.get_by_test_id("composer").fill(CHAT_PROMPT)
    await page.get_by_test_id("send").click()
    # Mid-stream: the second call's arguments are still arriving.
    await page.wait_for_selector("#live [data-testid=tool-call]:nth-of-type(2)[data-status=streaming]")
    await page.wait_for_timeout(250)
    await page.screenshot(path=out / f"chat-streaming-{theme}.png")
    await page.wait_for_selector("[data-testid=run-status][data-status=done]", timeout=30_000)
    await page.wait_for_timeout(600)
    await page.screenshot(path=out / f"chat-done-{theme}.png")


async def capture_compare(page: Page, url: str, theme: str, out: Path) -> None:
    """The three simulator dialects on one prompt: the set-up, then the finished comparison with its summary."""
    await page.set_viewport_size({"width": 1600, "height": 1000})
    await page.goto(f"{url}/compare/")
    await page.wait_for_selector("[data-testid=compare-column-setup]")
    await page.screenshot(path=out / f"compare-setup-{theme}.png")
    await page.get_by_test_id("compare-run").click()
    await page.wait_for_url("**/compare/*/")
    columns = page.get_by_test_id("compare-column")
    for i in range(await columns.count()):
        await columns.nth(i).locator("[data-testid=run-status][data-status=done]").wait_for(timeout=60_000)
    await page.wait_for_selector("[data-testid=wire-diff] table")
    # The summary is read again after each column ends: wait for the read that finds every run saved.
    await page.wait_for_selector("#compare-results-body[data-busy='0']", timeout=30_000)
    await page.wait_for_timeout(800)
    await page.screenshot(path=out / f"compare-{theme}.png", full_page=True)


async def capture_review(page: Page, url: str, theme: str, out: Path) -> None:
    """The list searched for a tool argument, then a conversation's review view with a comment and a verdict."""
    await page.set_viewport_size({"width": 1600, "height": 1000})
    await page.goto(f"{url}/conversations/?q=Tokyo")
    await page.wait_for_selector("[data-testid=conversation-row]")
    await page.screenshot(path=out / f"conversations-search-{theme}.png")
    await page.get_by_test_id("conversation-row").first.locator("a").first.click()
    await page.wait_for_selector("#chat")
    await page.get_by_test_id("review-link").click()
    await page.wait_for_selector("[data-testid=comment-input]")
    if theme == "light":
        await page.get_by_test_id("comment-input").fill("Both cities in one turn: the parallel calls work here.")
        await page.get_by_test_id("comment-submit").click()
        await page.wait_for_selector("[data-testid=comment]")
        await page.get_by_test_id("verdict-select").first.select_option("right")
        await page.wait_for_selector("[data-testid=verdict]")
    await page.wait_for_timeout(500)
    await page.screenshot(path=out / f"review-{theme}.png")


# A conversation whose web process died mid-answer, as the survivors show it (see docs/deploy.md).
INTERRUPTED = """
from playground.chat.options import ChatOptions
from playground.conversations.models import Conversation, Message, RoundTrip
from playground.endpoints.models import Endpoint
from playground.teams.models import Team
team = Team.objects.get(name="Demo team")
endpoint = Endpoint.objects.get(name="Simulated OpenAI")
conversation = Conversation.objects.create(
    team=team, title="Trip planning", endpoint=endpoint, endpoint_name=endpoint.name, format="openai-chat",
    model="sim-1", status="interrupted", settings=ChatOptions(endpoint_id=endpoint.pk, model="sim-1").to_dict(),
    status_message="The server process running this conversation stopped (a restart or a crash). Everything that "
    "had arrived is saved: retry from here, or answer the open questions.",
)
Message.objects.create(conversation=conversation, position=0, role="user",
                       data={"role": "user", "content": "Plan three days in Lisbon for a first visit."})
rt = RoundTrip.objects.create(conversation=conversation, position=0, format="openai-chat", model="sim-1",
    request={"model": "sim-1", "messages": [{"role": "user", "content": "Plan three days in Lisbon."}]},
    error={"type": "interrupted", "message": "The server process stopped while this round trip was streaming; "
           "what had arrived is kept."}, ttfb_ms=212.0,
    wire_request={"method": "POST", "url": "http://127.0.0.1:8000/sim/openai/v1/chat/completions",
                  "headers": {"authorization": "[redacted]", "content-type": "application/json"},
                  "body": {"model": "sim-1", "stream": True,
                           "messages": [{"role": "user", "content": "Plan three days in Lisbon."}]}},
    wire_events=[{"t_ms": 212.0 + 40 * n, "event": None, "data": '{"choices":[{"index":0,"delta":{"content":"'
                  + word + ' "}}]}'} for n, word in enumerate("Day 1: Alfama and the castle".split())])
Message.objects.create(conversation=conversation, position=1, role="assistant", round_trip=rt, complete=False,
    data={"role": "assistant", "content": "Day 1: Alfama and the castle in the morning, then a tram ride to"})
print(conversation.pk)
"""


def make_interrupted(url: str) -> int:
    env = {**os.environ, "CROSSWIRE_ENV": "local", "DEBUG": "1", "CROSSWIRE_DATA_DIR": DATA_DIR[url]}
    env.pop("DATABASE_URL", None)
    out = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "shell", "-v", "0", "-c", INTERRUPTED],
        env=env,
        check=True,
        cwd=ROOT,
        capture_output=True,
    )
    return int(out.stdout.split()[-1])


DATA_DIR: dict[str, str] = {}


async def capture_team_and_interrupted(page: Page, url: str, theme: str, out: Path, interrupted: int) -> None:
    await page.goto(f"{url}/team/")
    if theme == "light":
        await page.get_by_placeholder("username").fill("linus")
        await page.get_by_role("button", name="Invite").click()
        await page.wait_for_selector('tr[data-invitation="linus"]')
    await capture(page, f"{url}/team/", f"team-invitations-{theme}", out)
    await page.set_viewport_size({"width": 1600, "height": 1000})
    await capture(page, f"{url}/c/{interrupted}/", f"chat-interrupted-{theme}", out)
    await page.set_viewport_size({"width": 1280, "height": 800})


async def capture_forms(page: Page, url: str, out: Path) -> None:
    """The tool editor with a schema error, and an endpoint added from a preset (docs/tools.md, providers-page.md)."""
    await page.goto(f"{url}/tools/new/")
    await page.get_by_test_id("tool-name-input").fill("get_forecast")
    schema = '{"type": "object", "properties": {"city": {"type": "strin"}}, "required": "city"}'
    await page.fill("#tool-parameters", schema)
    await page.locator("#schema-problems").filter(has_text="problem").wait_for(timeout=10_000)
    await page.screenshot(path=out / "tool-editor.png")
    await page.goto(f"{url}/providers/new/?kind=openai-compatible&preset=ollama")
    await page.fill("input[name=name]", "Ollama on the workstation")
    await page.screenshot(path=out / "providers-form.png")


async def take(url: str, password: str, out: Path) -> None:
    interrupted = make_interrupted(url)
    chromium = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium")
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        for theme in ("light", "dark"):
            context = await browser.new_context(
                viewport={"width": 1280, "height": 800}, device_scale_factor=1, color_scheme=theme
            )
            page = await context.new_page()
            await page.goto(f"{url}/login/")
            if theme == "light":
                await page.screenshot(path=out / "login-light.png")
            await page.fill("input[name=username]", "demo")
            await page.fill("input[name=password]", password)
            await page.click("button[type=submit]")
            await page.wait_for_selector("[data-testid=composer]")
            # The switch is saved by its POST, then htmx opens the page it answers with: waited for, or the next
            # goto would be cut short by it (ERR_ABORTED).
            async with page.expect_navigation():
                await page.select_option("#team-switch", label="Demo team")
            await page.wait_for_load_state()
            for path, name in PAGES:
                await capture(page, f"{url}/{path}", f"{name}-{theme}", out)
            await page.keyboard.press("?")
            await page.wait_for_selector("#help-dialog[open]")
            await page.screenshot(path=out / f"shortcuts-{theme}.png")
            await page.keyboard.press("Escape")
            await capture_team_and_interrupted(page, url, theme, out, interrupted)
            await capture_chat(page, url, theme, out)
            await capture_compare(page, url, theme, out)
            await capture_review(page, url, theme, out)
            if theme == "light":
                await capture_forms(page, url, out)
            await context.close()
        await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as data_dir:
        # Paced slower than the app's default so the streaming screenshot catches arguments mid-way.
        server, url, password = start_server(Path(data_dir), CROSSWIRE_SIMULATOR_PACE_MS="90")
        DATA_DIR[url] = data_dir
        try:
            asyncio.run(take(url, password, args.out))
        finally:
            server.terminate()
            server.wait(timeout=10)
    print(f"Screenshots written to {args.out}")


if __name__ == "__main__":
    main()
