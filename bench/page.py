"""The page while it streams: long tasks on the browser's main thread, and how fast a long conversation paints.

    ./scripts/bench page [--chat-rate 500] [--compare-rate 50] [--columns 4] [--seconds 8] [--runs 5]

Targets (issue "Live streaming speed", item 5), measured in Chromium (Debian's package, driven by Playwright):

1. a chat receiving 500 deltas/s keeps the main thread free: no long task over 50 ms while it streams;
2. a 4-column compare receiving 50 deltas/s per column: the same;
3. a conversation with 100 round trips opens with a first contentful paint <= 1 s: the history bench's long
   conversation (bench/history_seed.py: 100 round trips, 50,000 raw events), on SQLite here.

Long tasks come from the Long Tasks API (``PerformanceObserver``, type ``longtask``: any task of 50 ms or more),
observed from before the page's first script, so nothing is missed. "While it streams" is from the message's send
(a compare: the page's load, before the columns' first byte) to the moment the page marks the run done; the tasks of
the page's last refresh after the end (the saved messages and panes swapped in) are printed apart, since they are
not streaming but a user sees them too. Each page then blocks its own main thread for 80 ms on purpose: if the
observer does not report that task, the bench stops rather than print a figure it could not have measured.

The app runs as bench/ws_stream.py runs it: one daphne process, DEBUG off, SQLite, the in-memory layer; the model is
the bench upstream (bench/ws_upstream.py), an OpenAI-compatible server streaming stamped text deltas at a fixed rate.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from compare_stream import submit_comparison
from playwright.async_api import Browser, Page, async_playwright
from ws_servers import App, Server, daphne_args, spawn, start_app, start_upstream

from tests.helpers import login, prepare_database, server_env

LONG_TASK_MS = 50.0
FCP_TARGET_MS = 1_000.0
FIRST_BYTE_DELAY_S = 4.0  # the comparison's page must be open before its columns stream
DELTA_CHARS = 12

# Before any script of the page: record every long task with its start and length, and when a run status turns
# "done" (the moment the run's end frame is drawn, before the saved views are fetched again).
OBSERVER = """
window.__benchTasks = [];
window.__benchDone = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__benchTasks.push([e.startTime, e.duration]);
}).observe({type: "longtask", buffered: true});
document.addEventListener("DOMContentLoaded", () => {
  const done = () => document.querySelectorAll("[data-testid=run-status][data-status=done]").length;
  let seen = done();  // a status may turn done in place (chat) or arrive done in a swapped part (compare)
  new MutationObserver(() => {
    const now = done();
    if (now > seen) window.__benchDone.push(performance.now());
    seen = now;
  }).observe(document.body, {subtree: true, childList: true, attributes: true, attributeFilter: ["data-status"]});
});
"""


@dataclass(frozen=True)
class Tasks:
    name: str
    streaming: list[float]  # durations (ms) of the long tasks from the send (or the page's load) to the run's end
    offsets: list[float]  # when each of those began, in seconds after the send (or the load)
    after: list[float]  # ...and of those after the end (the final refresh)
    seconds: float  # how long it streamed

    def line(self) -> str:
        worst = max(self.streaming, default=0.0)
        verdict = "MET" if worst <= LONG_TASK_MS else "MISSED"
        after = f"{len(self.after)} after the end (longest {max(self.after, default=0):.0f} ms)"
        at = ", ".join(f"{d:.0f} ms at +{o:.1f} s" for d, o in zip(self.streaming, self.offsets, strict=True))
        return (
            f"  {self.name:44s} {len(self.streaming):>3} long tasks in {self.seconds:.1f} s of streaming, "
            f"longest {worst:.0f} ms (target <= {LONG_TASK_MS:.0f} ms): {verdict}; {after}"
            + (f"\n    {'':44s} {at}" if at else "")
        )


def chromium() -> str:
    path = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        raise SystemExit("the page bench needs Chromium: apt-get install chromium (or set CHROMIUM_PATH)")
    return path


async def new_page(browser: Browser, server: Server, session: str) -> Page:
    context = await browser.new_context(base_url=server.url, viewport={"width": 1600, "height": 1000})
    await context.add_cookies([{"name": "sessionid", "value": session, "url": server.url}])
    await context.add_init_script(OBSERVER)
    return await context.new_page()


async def split_tasks(page: Page, name: str, started: float) -> Tasks:
    """The long tasks between ``started`` and the last run status turning done, and those after it."""
    tasks: list[list[float]] = await page.evaluate("() => window.__benchTasks")
    ended = max(await page.evaluate("() => window.__benchDone"))
    # From a timer, so it is a task of the page's own event loop (an evaluate from outside is not reported).
    busy = "() => setTimeout(() => { const t = performance.now(); while (performance.now() - t < 80) {} })"
    await page.evaluate(busy)
    await page.wait_for_timeout(200)
    seen: list[list[float]] = await page.evaluate("() => window.__benchTasks")
    if not any(d >= 80 for _, d in seen[len(tasks) :]):
        raise SystemExit(f"{name}: the long-task observer missed an 80 ms task; its figures would mean nothing")
    inside = [(start, d) for start, d in tasks if started <= start + d and start <= ended]
    after = [d for start, d in tasks if start > ended]
    offsets = [(start - started) / 1000 for start, _ in inside]
    return Tasks(name, [d for _, d in inside], offsets, after, (ended - started) / 1000)


async def chat(browser: Browser, app: App, rate: float, seconds: float) -> Tasks:
    page = await new_page(browser, app.server, app.session)
    await page.goto(f"/c/{app.conversation_ids[0]}/")
    await page.locator("#chat[data-connected='1']").wait_for(timeout=15_000)
    await page.get_by_test_id("endpoint-select").select_option(label="Bench upstream")
    await page.get_by_test_id("model-input").fill("bench-1")
    await page.get_by_test_id("composer").fill("stream please")
    started = await page.evaluate("() => performance.now()")
    await page.keyboard.press("Control+Enter")
    status = page.locator("#chat").get_by_test_id("run-status")
    await page.locator("#chat [data-testid=run-status][data-status=running]").wait_for(timeout=15_000)
    await page.locator("#chat [data-testid=run-status][data-status=done]").wait_for(timeout=120_000)
    await page.wait_for_timeout(1_500)  # the final refresh lands after the end
    assert await status.get_attribute("data-status") == "done"
    last = f"|{round(rate * seconds) - 1}|"
    if last not in await page.get_by_test_id("message").last.inner_text():
        raise SystemExit(f"chat: the answer on the page lacks its last delta {last}")
    tasks = await split_tasks(page, "chat", started)
    await page.context.close()
    return tasks


async def compare(browser: Browser, app: App, columns: int) -> Tasks:
    page = await new_page(browser, app.server, app.session)
    await page.goto("/compare/")  # warm: the first page load is not what is measured
    url, _ = await asyncio.to_thread(submit_comparison, app, columns, "stream please")
    started = time.monotonic()
    await page.goto(url)
    if time.monotonic() - started > FIRST_BYTE_DELAY_S:
        print(f"  warning: the comparison page opened after the columns began ({time.monotonic() - started:.1f} s)")
    begin = await page.evaluate("() => performance.now()")
    done = page.locator("[data-testid=compare-column] [data-testid=run-status][data-status=done]")
    deadline = time.monotonic() + 120
    while await done.count() < columns:
        if time.monotonic() > deadline:
            raise SystemExit("the comparison did not finish within 120 s")
        await asyncio.sleep(0.05)
    await page.wait_for_timeout(1_500)
    tasks = await split_tasks(page, f"compare, {columns} columns", begin)
    await page.context.close()
    return tasks


async def first_paint(browser: Browser, server: Server, session: str, path: str, runs: int) -> list[float]:
    """First contentful paint of ``path`` on a fresh page, ``runs`` times after one warm-up."""
    paints: list[float] = []
    for i in range(runs + 1):
        page = await new_page(browser, server, session)
        await page.goto(path, wait_until="load")
        fcp: Any = await page.evaluate(
            "() => (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || null"
        )
        await page.context.close()
        if fcp is None:
            raise SystemExit(f"{path}: no first-contentful-paint entry")
        if i:
            paints.append(float(fcp))
    return paints


def long_conversation_server(work: Path) -> tuple[Server, str, str]:
    """The app on a fresh SQLite database holding the history bench's long conversation (100 round trips, 50,000
    raw events, built by bench/history_seed.py), signed in; the conversation's path."""
    env = server_env(work, DEBUG="0", LOG_LEVEL="WARNING")
    password = prepare_database({**env, "DEBUG": "1"})
    big_id = seed_long_conversation(env)
    server = spawn("long-daphne", daphne_args("playground.asgi:application"), env, work, "/healthz")
    return server, login(server.url, "demo", password), f"/c/{big_id}/"


def seed_long_conversation(env: dict[str, str]) -> int:
    """Insert the rows in this process through Django's connection (the same SQLite file the server will open)."""
    from history import catalog, setup_django

    setup_django(env)
    from django.db import connection
    from history_seed import CONVERSATION_COLUMNS, MESSAGE_COLUMNS, ROUND_TRIP_COLUMNS, big_conversation

    rows = big_conversation(catalog(), (10_000, 10_000, 10_000), datetime.now(UTC))
    with connection.cursor() as cursor:
        for table, columns, values in (
            ("playground_conversation", CONVERSATION_COLUMNS, rows.conversations),
            # The measures have no database default: zero here, measured below.
            (
                "playground_roundtrip",
                [*ROUND_TRIP_COLUMNS, "event_count", "body_chars"],
                [(*row, 0, 0) for row in rows.round_trips],
            ),
            ("playground_message", MESSAGE_COLUMNS, rows.messages),
        ):
            marks = ", ".join(["%s"] * len(columns))
            cursor.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", values)
        # What RoundTrip.save() measures, measured as the migration does for rows saved before it.
        cursor.execute(importlib.import_module("playground.migrations.0011_round_trip_measures").MEASURE["sqlite"])
    connection.close()
    return int(rows.conversations[0][0])


async def main(args: argparse.Namespace) -> None:
    print(f"{os.cpu_count()} cores; Python {sys.version.split()[0]}; load {os.getloadavg()[0]:.2f}")
    results: list[Tasks] = []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        with tempfile.TemporaryDirectory(prefix="bench-page-") as work:
            upstream = start_upstream(Path(work), args.chat_rate, args.seconds, DELTA_CHARS)
            app = start_app(Path(work) / "chat", upstream, 1)
            try:
                print(f"chat: 1 chat at {args.chat_rate:.0f} deltas/s for {args.seconds:.0f} s")
                results.append(await chat(browser, app, args.chat_rate, args.seconds))
            finally:
                app.server.stop()
                upstream.stop()
        with tempfile.TemporaryDirectory(prefix="bench-page-") as work:
            upstream = start_upstream(
                Path(work), args.compare_rate, args.seconds, DELTA_CHARS, first_byte_delay=FIRST_BYTE_DELAY_S
            )
            app = start_app(Path(work) / "compare", upstream, 0)
            try:
                print(f"compare: {args.columns} columns at {args.compare_rate:.0f} deltas/s each")
                results.append(await compare(browser, app, args.columns))
            finally:
                app.server.stop()
                upstream.stop()
        with tempfile.TemporaryDirectory(prefix="bench-page-") as work:
            # Django's ORM refuses to run on the event loop's thread: the seeding goes to a worker thread.
            server, session, path = await asyncio.to_thread(long_conversation_server, Path(work))
            try:
                paints = await first_paint(browser, server, session, path, args.runs)
            finally:
                server.stop()
        await browser.close()
    print("\ntargets:")
    for tasks in results:
        print(tasks.line())
    worst = max(paints)
    verdict = "MET" if worst <= FCP_TARGET_MS else "MISSED"
    print(
        f"  100-round-trip conversation, first contentful paint: median {statistics.median(paints):.0f} ms, "
        f"worst of {len(paints)} {worst:.0f} ms (target <= {FCP_TARGET_MS:.0f} ms): {verdict}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--chat-rate", type=float, default=500.0)
    parser.add_argument("--compare-rate", type=float, default=50.0)
    parser.add_argument("--columns", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--runs", type=int, default=5, help="first-paint measurements of the long conversation")
    asyncio.run(main(parser.parse_args()))
