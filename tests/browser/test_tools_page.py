"""The Tools page in a real browser: live schema checks while typing, saving, the list, and an OpenAI export."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.browser.conftest import htmx_settled

pytestmark = pytest.mark.browser

TOOL_NAME = "browser_forecast"
BROKEN = '{"type": "object", "properties": {"city": {"type": "strng"}}, "required": ["city"]}'
FIXED = '{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}'


async def retype(page: Page, selector: str, text: str) -> None:
    """Replace a field's content by typing, key by key, as a person would."""
    field = page.locator(selector)
    await field.click()
    await page.keyboard.press("ControlOrMeta+a")
    await page.keyboard.press("Delete")
    await field.press_sequentially(text)


async def test_create_a_tool_with_live_schema_checks_then_export_it(signed_in: Page, tmp_path: Path) -> None:
    page = signed_in
    await page.goto("/tools/")
    await page.get_by_role("link", name="New tool").first.click()
    # htmx binds the live checks once the new page has loaded; keys typed before that would go unnoticed.
    await page.wait_for_url("**/tools/new/", wait_until="load")
    await expect(page.locator("h1.page-title")).to_have_text("New tool")

    name = page.get_by_test_id("tool-name-input")
    await name.press_sequentially("bad name")
    await expect(page.locator("#name-feedback")).to_contain_text("Use 1 to 64 letters, digits, underscores")
    await retype(page, '[data-testid="tool-name-input"]', TOOL_NAME)
    await expect(page.locator("#name-feedback")).to_have_text("✓ Name available")

    problems = page.get_by_test_id("schema-problems")
    await retype(page, '[data-testid="schema-editor"]', BROKEN)
    await expect(problems).to_contain_text("1 problem: the tool cannot be saved like this")
    await expect(problems.locator(".problem-error .problem-path")).to_have_text("/properties/city/type")
    await expect(problems.locator(".problem-error")).to_contain_text("'strng' is not a JSON Schema type")

    await retype(page, '[data-testid="schema-editor"]', FIXED)
    await expect(problems).to_contain_text("✓ Valid schema")
    await expect(problems.locator(".problem-error")).to_have_count(0)
    # strict mode: the same schema now lacks additionalProperties: false, a warning that does not block saving
    await page.get_by_label("strict").check()
    await expect(problems).to_contain_text("1 portability warning")

    await htmx_settled(page)
    await page.get_by_test_id("save-tool").click()
    await expect(page.locator("h1.page-title")).to_have_text("Tools")
    await expect(page.locator(".flash-success")).to_have_text(f"Saved {TOOL_NAME}.")
    row = page.locator(f'[data-testid="tool-row"][data-tool="{TOOL_NAME}"]')
    await expect(row).to_be_visible()
    await expect(row.locator(".badge-strict")).to_have_text("strict")
    await expect(row.locator(".badge-warning")).to_have_text("1 warning")

    await row.get_by_role("checkbox").check()
    await expect(page.locator(".tool-export-scope")).to_have_text("1 selected")
    async with page.expect_download() as download_info:
        await page.get_by_test_id("export-openai").click()
    download = await download_info.value
    target = tmp_path / download.suggested_filename
    await download.save_as(target)
    assert download.suggested_filename.endswith("-tools-openai.json")
    assert json.loads(target.read_text()) == [
        {
            "type": "function",
            "function": {"name": TOOL_NAME, "description": "", "parameters": json.loads(FIXED), "strict": True},
        }
    ]


async def test_tab_indents_in_the_schema_editor_and_line_numbers_follow(signed_in: Page) -> None:
    page = signed_in
    await page.goto("/tools/new/")
    editor = page.get_by_test_id("schema-editor")
    await retype(page, '[data-testid="schema-editor"]', "{")
    await page.keyboard.press("Enter")
    await page.keyboard.press("Tab")
    await page.keyboard.type('"a": 1')
    await page.keyboard.press("Enter")
    await page.keyboard.type("}")
    await expect(editor).to_have_value('{\n  "a": 1\n  }')  # Enter keeps the line's indent
    await expect(page.locator(".code-gutter")).to_have_text("1\n2\n3")
    await expect(editor).to_be_focused()


async def test_editor_fill_buttons_canned_rules_and_import(signed_in: Page) -> None:
    page = signed_in
    await page.goto("/tools/new/")
    editor = page.get_by_test_id("schema-editor")
    await page.get_by_role("button", name="search (query + limit)").click()
    await expect(editor).to_have_value(re.compile(r'"limit": \{'))
    await expect(page.get_by_test_id("schema-problems")).to_contain_text("✓ Valid schema")

    await page.get_by_label("Example arguments (JSON object)").fill("[1]")
    await page.get_by_role("button", name="Generate schema").click()
    await expect(page.locator("#example-problems")).to_contain_text("must be a JSON object")
    await page.get_by_label("Example arguments (JSON object)").fill('{"order_id": "A-1", "express": true}')
    await page.get_by_role("button", name="Generate schema").click()
    await expect(editor).to_have_value(re.compile(r'"express": \{\s*"type": "boolean"'))
    await expect(page.locator("#example-problems")).to_be_empty()

    await page.get_by_role("radio", name="Built-in").check()
    await page.locator("#tool-builtin").select_option("calculator")
    await page.get_by_test_id("use-builtin").click()
    await expect(page.get_by_test_id("tool-name-input")).to_have_value("calculator")
    await expect(editor).to_have_value(re.compile(r'"expression"'))

    await page.get_by_role("radio", name="Canned responses").check()
    await htmx_settled(page)
    for _ in range(2):
        await page.get_by_role("button", name="Add rule").click()
    await expect(page.locator("[data-rule-row]:visible")).to_have_count(2)
    await page.locator("[data-rule-row]").last.get_by_role("button", name="Remove this rule").click()
    await page.locator('textarea[name="rule-0-when"]').fill('{"expression": "*"}')
    await page.locator('textarea[name="rule-0-response"]').fill("42")
    await page.get_by_test_id("tool-name-input").fill("browser_canned_calc")
    await htmx_settled(page)
    await page.get_by_test_id("save-tool").click()
    row = page.locator('[data-testid="tool-row"][data-tool="browser_canned_calc"]')
    await expect(row.locator(".mode-badge")).to_have_text("canned")
    await expect(row).to_contain_text("1 rule")

    await page.get_by_role("link", name="Import").click()
    await page.wait_for_url("**/tools/import/", wait_until="load")
    await page.get_by_test_id("import-input").fill(
        '[{"name": "browser_imported", "input_schema": {"type": "object"}}, {"name": "bad name"}]'
    )
    await page.get_by_role("button", name="Preview").click()
    await expect(page.locator('[data-testid="import-row"][data-action="error"]')).to_contain_text("name: Use 1 to 64")
    await page.get_by_test_id("import-apply").click()
    await expect(page.locator(".flash-success")).to_have_text("Imported 1 tool, 1 refused.")
    await expect(page.locator('[data-testid="tool-row"][data-tool="browser_imported"]')).to_be_visible()


async def test_a_refused_saves_list_gives_way_once_the_form_is_edited(
    signed_in: Page, console_errors: list[str]
) -> None:
    # It kept saying "A name is required" above a name typed since, whose own check said something else.
    page = signed_in
    await page.goto("/tools/new/")
    async with page.expect_navigation(wait_until="load"):  # the refused page's scripts run before it is typed in
        await page.get_by_test_id("save-tool").click()
    errors = page.get_by_test_id("save-errors")
    await expect(errors).to_contain_text("A name is required.")
    await page.get_by_test_id("tool-name-input").fill("my tool!")
    await expect(errors).to_have_text("Not saved yet. Save when the checks below are clear.")
    # The refused save's page comes with status 422, which Chromium logs as a failed load: that one is expected.
    refused = [e for e in console_errors if "status of 422" in e and "/tools/new/" in e]
    assert len(refused) == 1
    console_errors.remove(refused[0])
