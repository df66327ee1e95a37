"""An HTTP MCP server in a real browser: added on the MCP servers page (its auth header never shown), synced, one of
its tools called in a chat against the simulator, the result and the call's JSON-RPC traffic shown beside it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.async_api import Page, expect

from tests.conftest import DemoServer
from tests.helpers import manage
from tests.mcp.support import AUTH_VALUE, TOKEN, HttpServer, running_http_server

pytestmark = pytest.mark.browser

SERVER = "Browser MCP"
# Every tool of the test server joins the demo team's library, and a new chat offers all of the team's tools: a later
# test whose message says "add" or "echo" would call them. Whatever the test leaves is removed after it.
CLEANUP = f"""
from playground.mcp.models import MCPServer
from playground.tools.models import Tool
Tool.objects.filter(mcp_server__name={SERVER!r}).delete()
MCPServer.objects.filter(name={SERVER!r}).delete()
"""


@pytest.fixture
def mcp_server(tmp_path_factory: pytest.TempPathFactory, daphne_server: DemoServer) -> Iterator[HttpServer]:
    with running_http_server(tmp_path_factory.mktemp("mcp-browser") / "server.log") as server:
        try:
            yield server
        finally:
            manage(daphne_server.server.env, "shell", "-c", CLEANUP)


async def send(page: Page, text: str) -> None:
    await expect(page.locator("#chat")).to_have_attribute("data-connected", "1", timeout=15_000)
    await page.get_by_test_id("endpoint-select").select_option(label="Simulated OpenAI")
    await page.get_by_test_id("model-input").fill("sim-1")
    await page.get_by_test_id("composer").fill(text)
    await page.keyboard.press("Control+Enter")


async def test_an_http_mcp_server_added_in_the_page_answers_a_tool_call_in_a_chat(
    signed_in: Page, mcp_server: HttpServer
) -> None:
    page = signed_in
    await page.goto("/tools/")
    await page.get_by_role("navigation", name="Sections").get_by_role("link", name="MCP servers").click()
    await expect(page.locator("h1.page-title")).to_have_text("MCP servers")

    await page.get_by_test_id("mcp-add").click()
    await page.get_by_test_id("mcp-name-input").fill(SERVER)
    await page.get_by_test_id("mcp-url-input").fill(mcp_server.url)
    await page.get_by_test_id("mcp-auth-input").fill(AUTH_VALUE)
    await page.get_by_test_id("mcp-save").click()

    await expect(page.locator(".flash-success")).to_have_text(f"Added {SERVER} and imported 8 tools.")
    row = page.locator(f'tbody:has([data-testid="mcp-server-row"][data-server="{SERVER}"])')
    await expect(row.get_by_test_id("mcp-server-row")).to_contain_text("8 tools")
    await expect(row.get_by_test_id("mcp-server-row")).to_contain_text("Authorization …2d6f")
    assert TOKEN not in await page.content()

    await row.get_by_test_id("mcp-sync").click()
    await expect(row.get_by_test_id("mcp-sync-result")).to_contain_text("Synced")
    await expect(row.get_by_test_id("mcp-sync-result")).to_contain_text("8 unchanged")
    await expect(row.get_by_test_id("mcp-server-row")).to_contain_text("synced just now")

    await page.get_by_role("navigation", name="Sections").get_by_role("link", name="Playground").click()
    await page.locator('.tool-pick input[value="echo"]').check()
    await send(page, '/call echo {"text": "hello over MCP"}')

    await expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "done", timeout=30_000)
    card = page.locator('[data-testid="tool-call"]', has_text="echo").first
    await expect(card).to_have_attribute("data-status", "done")
    await expect(card.locator(".tool-result")).to_contain_text(f"mcp:{SERVER}")
    await expect(card.locator(".tool-result pre")).to_have_text("hello over MCP")
    await expect(page.get_by_test_id("message").last).to_contain_text("hello over MCP")

    pane = card.get_by_test_id("mcp-pane")
    await expect(pane).to_be_visible()
    await expect(pane.locator(".mcp-pane-server")).to_have_text(SERVER)
    await pane.locator("summary.mcp-pane-head").click()
    call = pane.locator('[data-testid="mcp-message"][data-direction="sent"]', has_text="tools/call")
    await expect(call).to_be_visible()
    await expect(call.locator("pre")).to_contain_text('"hello over MCP"')
    answer = pane.locator('[data-testid="mcp-message"][data-direction="received"]', has_text="result of tools/call")
    await expect(answer).to_contain_text("← received")
    assert TOKEN not in await page.content()

    # Tidy up through the page: the server and the tools it brought.
    await page.goto("/mcp/")
    await row.get_by_role("link", name="Edit").click()
    await page.get_by_test_id("mcp-delete-with-tools").click()
    await expect(page.locator(".flash-success")).to_have_text(f"Deleted {SERVER} and its 8 tools.")
