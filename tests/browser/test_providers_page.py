"""The Providers page in a real browser: add an endpoint from a preset, see only its key hint, test a connection.

The shared daphne reaches no simulator (CROSSWIRE_SIMULATOR_URL defaults to port 8000), so this module runs its own
daphne pointed at a standalone simulator; the connection test then makes a real HTTP request, as in a deployment.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator

import pytest
from playwright.async_api import Browser, Page, expect

from providers.simulator.openai_server import MODELS as OPENAI_MODELS
from tests.browser.conftest import sign_in, watch_console
from tests.conftest import DemoServer
from tests.helpers import prepare_database, server_env, start_daphne
from tests.simulator_process import standalone_simulator

pytestmark = pytest.mark.browser

KEY = "sk-ollama-browser-test-3f9c2b71d4e8"


@pytest.fixture(scope="module")
def providers_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoServer]:
    with standalone_simulator() as simulator_url:
        data_dir = tmp_path_factory.mktemp("providers")
        env = server_env(data_dir, CROSSWIRE_SIMULATOR_URL=simulator_url)
        password = prepare_database(env)
        server = start_daphne(env, data_dir / "daphne.log")
        try:
            yield DemoServer(server=server, username="demo", password=password)
        finally:
            server.stop()


@pytest.fixture
async def providers_page(browser: Browser, providers_server: DemoServer) -> AsyncIterator[Page]:
    context = await browser.new_context(base_url=providers_server.url)
    page = await context.new_page()
    errors = watch_console(page)
    await sign_in(page, providers_server.username, providers_server.password)
    yield page
    await context.close()
    assert errors == []


async def test_add_from_a_preset_then_test_the_simulator(providers_page: Page) -> None:
    page = providers_page
    await page.get_by_role("navigation", name="Sections").get_by_role("link", name="Providers").click()
    await expect(page.locator("h1.page-title")).to_have_text("Providers")
    await page.get_by_role("link", name="Add endpoint").click()
    await page.get_by_role("link", name=re.compile("^OpenAI-compatible")).click()
    await page.get_by_role("group", name="Presets").get_by_role("link", name="Ollama").click()

    form = page.get_by_test_id("endpoint-form")
    await expect(form.locator("input[name=name]")).to_have_value("Ollama")
    await expect(form.locator("input[name=base_url]")).to_have_value("http://localhost:11434/v1")
    await page.get_by_test_id("api-key-input").fill(KEY)
    await form.locator("textarea[name=model_names]").fill("llama3.2:3b, qwen3:8b")
    await form.get_by_role("button", name="Add endpoint").click()

    await expect(page).to_have_url(re.compile(r"/providers/$"))
    await expect(page.locator(".flash-success")).to_have_text("Added Ollama.")
    row = page.get_by_test_id("endpoint-row").filter(has_text="Ollama")
    await expect(row).to_contain_text("…" + KEY[-4:])
    await expect(row).to_contain_text("http://localhost:11434/v1")
    await expect(row).to_contain_text("2 models")
    assert KEY not in await page.content()

    simulated = page.locator("tbody.endpoint").filter(has_text=re.compile(r"Simulated OpenAI(?! Responses)"))
    await expect(simulated).to_contain_text("Simulator, no key needed")
    await simulated.get_by_test_id("test-connection").click()
    result = simulated.get_by_test_id("test-result")
    await expect(result.locator(".endpoint-status")).to_have_text("OK")
    await expect(result).to_contain_text(re.compile(r"\d+ ms"))
    await expect(result).to_contain_text("sim-1")


async def test_fetch_models_in_the_form_and_the_row_then_delete(
    providers_page: Page, providers_server: DemoServer
) -> None:
    page = providers_page
    page.on("dialog", lambda dialog: dialog.accept())
    simulator_url = providers_server.server.env["CROSSWIRE_SIMULATOR_URL"]
    await page.goto("/providers/new/?kind=openai-compatible")
    form = page.get_by_test_id("endpoint-form")
    await form.locator("input[name=name]").fill("Local sim")
    await form.locator("input[name=base_url]").fill(simulator_url + "/openai/v1")
    await form.get_by_role("button", name="Add endpoint").click()
    await expect(page.locator(".flash-success")).to_have_text("Added Local sim.")

    row = page.locator("tbody.endpoint").filter(has_text="Local sim")
    await expect(row).to_contain_text("0 models")
    await row.get_by_test_id("fetch-models").click()
    # What the simulator's OpenAI models route lists: every model it serves, as a real server's /models does.
    await expect(row).to_contain_text(f"{len(OPENAI_MODELS)} models")
    await expect(row.get_by_test_id("test-result")).to_contain_text(f"Fetched {len(OPENAI_MODELS)} model names.")

    await row.get_by_role("link", name="Edit").click()
    models = page.locator("#model-fields")
    await models.locator("textarea").fill("typed-only")
    await models.get_by_test_id("fetch-models").click()
    await expect(models.locator("textarea")).to_have_value(re.compile(r"^sim-1\nsim-ollama\n"))
    await expect(models.locator("select[name=default_model]")).to_have_value("sim-1")
    await page.get_by_role("link", name="Cancel").click()

    row = page.locator("tbody.endpoint").filter(has_text="Local sim")
    await row.get_by_role("button", name="Delete Local sim").click()
    await expect(row).to_have_count(0)
    await page.reload()
    await expect(page.get_by_test_id("endpoint-row").filter(has_text="Local sim")).to_have_count(0)
