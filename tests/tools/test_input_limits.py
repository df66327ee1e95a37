"""The size limits on the tool pages (CROSSWIRE_MAX_SCHEMA_BYTES, _CANNED_BYTES, _IMPORT_BYTES): refused with the
size and the limit, what was pasted kept, and a document exactly at the limit accepted."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import TYPE_CHECKING, Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from playground.tools.models import Tool
from providers import jsonsafe

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def signed_in(client: Client, user: User, team: Team) -> Client:
    client.force_login(user)
    client.post(reverse("team-switch"), {"team": team.pk})
    return client


def schema_text(size: int) -> str:
    """A valid object schema of exactly ``size`` bytes (padded in its description)."""
    head, tail = '{"type": "object", "description": "', '"}'
    return head + "x" * (size - len(head) - len(tail)) + tail


def compact_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def form_data(**overrides: str) -> dict[str, str]:
    return {"name": "get_weather", "parameters": schema_text(200), "mode": "manual", **overrides}


def save_errors(html: str) -> list[str]:
    block = html[html.index('data-testid="save-errors"') :]
    block = block[: block.index("</ul>")]
    return [unescape(item) for item in re.findall(r"<li>(.*?)</li>", block)]


def schema_errors(html: str) -> list[str]:
    return [
        unescape(m)
        for m in re.findall(r'<li class="problem problem-error">(?:<code.*?</code>)?<span>(.*?)</span>', html)
    ]


def textarea(html: str, name: str) -> str:
    match = re.search(rf'<textarea[^>]* name="{name}"[^>]*>\n(.*?)</textarea>', html, re.S)
    assert match, f"no {name} textarea"
    return unescape(match.group(1))


def refusal(html: str) -> str:
    match = re.search(r'data-testid="import-refused">(.*?)</p>', html, re.S)
    assert match, "no refusal"
    return unescape(match.group(1))


# --- schemas -----------------------------------------------------------------------------------------------------


def test_the_schema_check_refuses_a_schema_over_the_limit(
    client: Client, bob: User, team: Team, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_MAX_SCHEMA_BYTES = 1000
    signed_in(client, bob, team)
    over = client.post(reverse("tool-validate-schema"), {"parameters": schema_text(1001)}, **HTMX)
    assert over.status_code == 200
    assert schema_errors(over.content.decode()) == ["The schema is 1,001 bytes; the limit is 1,000."]
    at_limit = client.post(reverse("tool-validate-schema"), {"parameters": schema_text(1000)}, **HTMX)
    assert "Valid schema" in at_limit.content.decode()


def test_a_large_schema_is_refused_before_it_is_even_parsed(
    client: Client, bob: User, team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The default limit, 256 KiB. Parsing and validating such a schema is where the CPU went.
    def parse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a schema over the limit was parsed")

    monkeypatch.setattr(jsonsafe, "loads", parse)
    response = signed_in(client, bob, team).post(
        reverse("tool-validate-schema"), {"parameters": schema_text(300_000)}, **HTMX
    )
    assert schema_errors(response.content.decode()) == ["The schema is 300,000 bytes; the limit is 262,144."]


def test_saving_a_schema_over_the_limit_is_refused(
    client: Client, bob: User, team: Team, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_MAX_SCHEMA_BYTES = 1000
    signed_in(client, bob, team)
    response = client.post(reverse("tool-new"), form_data(parameters=schema_text(1001)))
    html = response.content.decode()
    assert response.status_code == 422
    assert save_errors(html) == ["The schema has 1 problem (listed below)."]
    assert schema_errors(html) == ["The schema is 1,001 bytes; the limit is 1,000."]
    assert textarea(html, "parameters") == schema_text(1001)
    assert not Tool.objects.exists()
    assert client.post(reverse("tool-new"), form_data(parameters=schema_text(1000))).status_code == 302


def test_an_example_over_the_schema_limit_is_refused(
    client: Client, bob: User, team: Team, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_MAX_SCHEMA_BYTES = 100
    example = json.dumps({"note": "x" * 100})
    response = signed_in(client, bob, team).post(reverse("tool-fill-example"), {"example": example}, **HTMX)
    assert response["HX-Retarget"] == "#example-problems"
    assert "The example is 112 bytes; the limit is 100." in response.content.decode()


# --- canned answers ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("over", "at_limit", "message"),
    [
        (
            {"canned_default": "é" * 51},
            {"canned_default": "é" * 50},
            "The default response is 102 bytes; the limit is 100.",
        ),
        (
            {"rule-0-response": "x" * 101},
            {"rule-0-response": "x" * 100},
            "Rule 1: The response is 101 bytes; the limit is 100.",
        ),
        (
            {"rule-0-when": json.dumps({"a": "x" * 92})},
            {"rule-0-when": json.dumps({"a": "x" * 91})},
            "Rule 1: `when` is 101 bytes; the limit is 100.",
        ),
    ],
    ids=["default", "rule-response", "rule-when"],
)
def test_canned_text_over_the_limit_is_refused(
    client: Client,
    bob: User,
    team: Team,
    settings: SettingsWrapper,
    over: dict[str, str],
    at_limit: dict[str, str],
    message: str,
) -> None:
    # The limit counts UTF-8 bytes, not characters: 51 "é" are 102 bytes.
    settings.CROSSWIRE_MAX_CANNED_BYTES = 100
    rule = {"rule-0-when": "{}", "rule-0-response": "ok"}
    signed_in(client, bob, team)
    response = client.post(reverse("tool-new"), form_data(mode="canned", **(rule | over)))
    assert response.status_code == 422
    assert save_errors(response.content.decode()) == [message]
    assert not Tool.objects.exists()
    assert client.post(reverse("tool-new"), form_data(mode="canned", **(rule | at_limit))).status_code == 302


# --- imports -----------------------------------------------------------------------------------------------------


def tool_list(size: int) -> str:
    """A one-tool OpenAI list of exactly ``size`` bytes (padded in the description)."""
    empty = json.dumps([{"type": "function", "function": {"name": "padded", "description": ""}}])
    return json.dumps([{"type": "function", "function": {"name": "padded", "description": "x" * (size - len(empty))}}])


def test_pasted_text_over_the_import_limit_is_refused(
    client: Client, bob: User, team: Team, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_MAX_IMPORT_BYTES = 500
    signed_in(client, bob, team)
    response = client.post(reverse("tool-import-preview"), {"text": tool_list(501)})
    assert response.status_code == 200
    assert refusal(response.content.decode()) == "The tool list is 501 bytes; the limit is 500."
    assert textarea(response.content.decode(), "text") == tool_list(501)
    assert client.post(reverse("tool-import-apply"), {"text": tool_list(501)}).status_code == 422
    assert not Tool.objects.exists()
    at_limit = client.post(reverse("tool-import-preview"), {"text": tool_list(500)}, **HTMX)
    assert 'data-testid="import-row" data-action="create"' in at_limit.content.decode()


def test_an_uploaded_file_over_the_import_limit_is_refused(
    client: Client, bob: User, team: Team, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_MAX_IMPORT_BYTES = 500
    signed_in(client, bob, team)
    upload = SimpleUploadedFile("tools.json", tool_list(501).encode(), content_type="application/json")
    response = client.post(reverse("tool-import-apply"), {"text": "", "file": upload})
    assert response.status_code == 422
    assert refusal(response.content.decode()) == "tools.json is 501 bytes; the limit is 500."
    assert not Tool.objects.exists()
    upload = SimpleUploadedFile("tools.json", tool_list(500).encode(), content_type="application/json")
    assert client.post(reverse("tool-import-apply"), {"text": "", "file": upload}).status_code == 302
    assert list(team.tools.values_list("name", flat=True)) == ["padded"]


def test_each_imported_schema_is_held_to_the_schema_limit(
    client: Client, bob: User, team: Team, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_MAX_SCHEMA_BYTES = 100
    big = {"type": "object", "description": "x" * 100}
    tools = [{"name": "big", "input_schema": big}, {"name": "small", "input_schema": {"type": "object"}}]
    signed_in(client, bob, team)
    preview = client.post(reverse("tool-import-preview"), {"text": json.dumps(tools)}, **HTMX)
    message = f"parameters: The schema is {compact_size(big)} bytes; the limit is 100."
    assert message in unescape(preview.content.decode())
    client.post(reverse("tool-import-apply"), {"text": json.dumps(tools)})
    assert list(team.tools.values_list("name", flat=True)) == ["small"]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"canned_default": "x" * 101}, "canned_default: The default response is 101 bytes; the limit is 100."),
        ({"canned_default": {"not": "text"}}, "canned_default: The default response must be a string."),
        (
            {"canned_rules": [{"when": {}, "response": "x" * 101}]},
            "canned_rules rule 1: The response is 101 bytes; the limit is 100.",
        ),
        ({"canned_rules": [{"when": {}, "response": ["x"]}]}, "canned_rules rule 1: The response must be a string."),
    ],
    ids=["default-size", "default-type", "response-size", "response-type"],
)
def test_imported_canned_answers_are_held_to_the_canned_limit(
    client: Client, bob: User, team: Team, settings: SettingsWrapper, fields: dict[str, Any], message: str
) -> None:
    settings.CROSSWIRE_MAX_CANNED_BYTES = 100
    document = {"format": "crosswire.tools", "version": 1, "tools": [{"name": "canned", "mode": "canned", **fields}]}
    signed_in(client, bob, team)
    preview = client.post(reverse("tool-import-preview"), {"text": json.dumps(document)}, **HTMX)
    assert message in unescape(preview.content.decode())
    assert client.post(reverse("tool-import-apply"), {"text": json.dumps(document)}).status_code == 422
    assert not Tool.objects.exists()
