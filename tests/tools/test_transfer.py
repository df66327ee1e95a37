"""Export (OpenAI, Anthropic, Crosswire downloads) and import (detect, preview, per-tool report, name clashes)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils.html import escape

from playground.tools.models import Tool
from playground.tools.transfer import NOT_TOOLS, read_document

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
WEATHER: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}
RULES = [{"when": {"city": "Paris"}, "response": "sunny", "is_error": False}]


def signed_in(client: Client, user: User, team: Team) -> Client:
    client.force_login(user)
    client.post(reverse("team-switch"), {"team": team.pk})
    return client


@pytest.fixture
def library(team: Team) -> list[Tool]:
    return [
        Tool.objects.create(team=team, name="get_weather", description="Weather.", parameters=WEATHER, strict=True),
        Tool.objects.create(
            team=team, name="lookup", description="Find.", mode="canned", canned_rules=RULES, canned_default="?"
        ),
        Tool.objects.create(team=team, name="calc", mode="builtin", builtin="calculator"),
    ]


def download(client: Client, fmt: str, ids: list[int] | None = None) -> Any:
    response = client.get(reverse("tool-export"), {"format": fmt, "ids": ids or []})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == f'attachment; filename="evals-tools-{fmt}.json"'
    return json.loads(response.content)


def preview(client: Client, text: str, **extra: str) -> str:
    response = client.post(reverse("tool-import-preview"), {"text": text, **extra}, **HTMX)
    assert response.status_code == 200
    return response.content.decode()


def apply(client: Client, payload: Any, **extra: str) -> Any:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return client.post(reverse("tool-import-apply"), {"text": text, **extra})


def names(team: Team) -> list[str]:
    return sorted(team.tools.values_list("name", flat=True))


# --- export ------------------------------------------------------------------------------------------------------


def test_openai_export_is_a_list_of_function_tools(client: Client, carol: User, team: Team, library: Any) -> None:
    tools = download(signed_in(client, carol, team), "openai")
    assert [t["function"]["name"] for t in tools] == ["calc", "get_weather", "lookup"]
    assert all(set(t) == {"type", "function"} and t["type"] == "function" for t in tools)
    weather = tools[1]["function"]
    assert weather == {"name": "get_weather", "description": "Weather.", "parameters": WEATHER, "strict": True}
    assert "strict" not in tools[2]["function"]


def test_anthropic_export_uses_input_schema(client: Client, carol: User, team: Team, library: Any) -> None:
    tools = download(signed_in(client, carol, team), "anthropic")
    assert [t["name"] for t in tools] == ["calc", "get_weather", "lookup"]
    assert tools[1] == {"name": "get_weather", "description": "Weather.", "input_schema": WEATHER, "strict": True}
    assert all("function" not in t and "parameters" not in t for t in tools)


def test_crosswire_export_carries_how_calls_are_answered(client: Client, carol: User, team: Team, library: Any) -> None:
    document = download(signed_in(client, carol, team), "crosswire")
    assert (document["format"], document["version"]) == ("crosswire.tools", 1)
    lookup = next(t for t in document["tools"] if t["name"] == "lookup")
    assert (lookup["mode"], lookup["canned_rules"], lookup["canned_default"]) == ("canned", RULES, "?")
    calc = next(t for t in document["tools"] if t["name"] == "calc")
    assert (calc["mode"], calc["builtin"]) == ("builtin", "calculator")


def test_export_of_selected_tools_only(client: Client, alice: User, bob: User, team: Team, library: list[Tool]) -> None:
    elsewhere = Tool.objects.create(team=bob.personal_team, name="not_yours")
    tools = download(signed_in(client, alice, team), "openai", [library[1].pk, elsewhere.pk])
    assert [t["function"]["name"] for t in tools] == ["lookup"]


def test_export_refuses_an_unknown_format(client: Client, alice: User, team: Team) -> None:
    assert signed_in(client, alice, team).get(reverse("tool-export"), {"format": "yaml"}).status_code == 400


def test_crosswire_export_imports_back_identically(client: Client, alice: User, team: Team, library: Any) -> None:
    document = download(signed_in(client, alice, team), "crosswire")
    before = {t.name: t.config() for t in library}
    team.tools.all().delete()
    assert apply(client, document).status_code == 302
    assert {t.name: t.config() for t in team.tools.all()} == before


# --- import: formats ---------------------------------------------------------------------------------------------


def test_import_openai_tools(client: Client, bob: User, team: Team) -> None:
    payload = [{"type": "function", "function": {"name": "get_weather", "description": "W.", "parameters": WEATHER}}]
    signed_in(client, bob, team)
    html = preview(client, json.dumps(payload))
    assert '<span class="badge">OpenAI format</span>' in html
    assert 'data-testid="import-row" data-action="create"' in html
    assert names(team) == []  # a preview changes nothing
    response = apply(client, payload)
    assert response.status_code == 302
    tool = team.tools.get()
    assert (tool.name, tool.description, tool.parameters, tool.mode) == ("get_weather", "W.", WEATHER, "manual")
    assert "Imported 1 tool." in client.get(reverse("tools")).content.decode()


def test_import_anthropic_tools(client: Client, bob: User, team: Team) -> None:
    payload = [
        {"name": "get_weather", "description": "W.", "input_schema": WEATHER, "strict": True},
        {"name": "ping", "input_schema": {"type": "object", "properties": {}}},
    ]
    signed_in(client, bob, team)
    assert '<span class="badge">Anthropic format</span>' in preview(client, json.dumps(payload))
    apply(client, payload)
    weather = team.tools.get(name="get_weather")
    assert (weather.parameters, weather.strict) == (WEATHER, True)
    assert team.tools.get(name="ping").description == ""


def test_the_format_select_overrides_detection(client: Client, bob: User, team: Team) -> None:
    payload = [{"name": "get_weather", "input_schema": WEATHER}]
    html = preview(signed_in(client, bob, team), json.dumps(payload), format="openai")
    assert "Not an OpenAI function tool" in html
    assert 'data-action="create"' not in html


def test_a_request_body_or_a_single_tool_can_be_pasted() -> None:
    body = {"model": "m", "tools": [{"type": "function", "function": {"name": "a"}}]}
    assert read_document(json.dumps(body)) == ("openai", body["tools"])
    single = {"name": "a", "input_schema": WEATHER}
    assert read_document(json.dumps(single)) == ("anthropic", [single])


def test_import_from_an_uploaded_file(client: Client, bob: User, team: Team) -> None:
    payload = [{"type": "function", "function": {"name": "from_file", "parameters": WEATHER}}]
    upload = SimpleUploadedFile("tools.json", json.dumps(payload).encode(), content_type="application/json")
    signed_in(client, bob, team)
    response = client.post(reverse("tool-import-apply"), {"text": "", "file": upload})
    assert response.status_code == 302
    assert names(team) == ["from_file"]


# --- import: problems and clashes --------------------------------------------------------------------------------


def test_bad_tools_are_reported_one_by_one_and_the_good_ones_imported(client: Client, bob: User, team: Team) -> None:
    payload = [
        {"type": "function", "function": {"name": "good", "parameters": WEATHER}},
        {"type": "function", "function": {"name": "bad name", "parameters": WEATHER}},
        {"type": "function", "function": {"name": "bad_schema", "parameters": {"type": "object", "required": 1}}},
        {"type": "function", "function": {"name": "not_object", "parameters": {"type": "string"}}},
        {"type": "retrieval"},
        "a string",
    ]
    signed_in(client, bob, team)
    html = preview(client, json.dumps(payload))
    assert "1 to import · 5 refused" in html
    assert "name: Use 1 to 64 letters, digits, underscores or hyphens" in html
    assert "parameters/required: 1 is not of type &#x27;array&#x27;" in html
    assert "parameters/type: Tool parameters must be &quot;type&quot;: &quot;object&quot; at the top level." in html
    assert "Not an OpenAI function tool" in html
    assert "Not a JSON object." in html
    response = apply(client, payload)
    assert response.status_code == 302
    assert names(team) == ["good"]
    assert "Imported 1 tool, 5 refused." in client.get(reverse("tools")).content.decode()


def test_bad_crosswire_settings_are_reported(client: Client, bob: User, team: Team) -> None:
    document = {
        "format": "crosswire.tools",
        "version": 1,
        "tools": [
            {"name": "a", "mode": "magic"},
            {"name": "b", "mode": "builtin", "builtin": "shell"},
            {"name": "c", "mode": "canned", "canned_rules": [{"when": ["x"], "response": "r"}]},
        ],
    }
    html = preview(signed_in(client, bob, team), json.dumps(document))
    assert "mode: &#x27;magic&#x27; is not one of manual, canned, builtin." in html
    assert "builtin: &#x27;shell&#x27; is not a built-in tool" in html
    assert "canned_rules rule 1: `when` must be a JSON object." in html
    response = apply(client, document)
    assert response.status_code == 422
    assert "Nothing was imported" in response.content.decode()
    assert names(team) == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "Not valid JSON: Expecting value (line 1, column 1)."),
        ("[]", "The list holds no tools."),
        ("42", "Expected a JSON list of tools (or an object with a `tools` list)."),
        ('{"format": "crosswire.tools", "version": 9, "tools": []}', "Unsupported Crosswire export version 9."),
        ("  ", "Paste a tool list or choose a file."),
    ],
)
def test_unusable_documents_are_refused_as_a_whole(
    client: Client, bob: User, team: Team, text: str, message: str
) -> None:
    html = preview(signed_in(client, bob, team), text)
    assert f'<p class="alert alert-error" role="alert" data-testid="import-refused">{message}</p>' in html


@pytest.mark.parametrize("text", ['{"a": 1}', '[{"a": 1}, {"b": 2}]', '{"tools": [{"x": 1}]}'])
def test_a_document_with_nothing_like_a_tool_says_so(client: Client, bob: User, team: Team, text: str) -> None:
    # It was read as Anthropic's, and each entry refused as "not an Anthropic custom tool".
    html = preview(signed_in(client, bob, team), text)
    assert f'data-testid="import-refused">{escape(NOT_TOOLS)}</p>' in html
    assert "Anthropic format" not in html


def test_existing_names_are_skipped_by_default(client: Client, bob: User, team: Team) -> None:
    Tool.objects.create(team=team, name="get_weather", description="mine")
    payload = [
        {"name": "get_weather", "description": "theirs", "input_schema": WEATHER},
        {"name": "fresh", "input_schema": WEATHER},
    ]
    signed_in(client, bob, team)
    assert 'data-action="skip"' in preview(client, json.dumps(payload))
    apply(client, payload)
    assert names(team) == ["fresh", "get_weather"]
    assert team.tools.get(name="get_weather").description == "mine"
    assert "Imported 1 tool, 1 skipped (name already used)." in client.get(reverse("tools")).content.decode()


def test_existing_names_can_be_renamed(client: Client, bob: User, team: Team) -> None:
    Tool.objects.create(team=team, name="get_weather")
    Tool.objects.create(team=team, name="get_weather_imported")
    payload = [{"name": "get_weather", "description": "theirs", "input_schema": WEATHER}]
    signed_in(client, bob, team)
    html = preview(client, json.dumps(payload), on_conflict="rename")
    assert '<span class="mono small">get_weather_imported_2</span>' in html
    apply(client, payload, on_conflict="rename")
    assert team.tools.get(name="get_weather_imported_2").description == "theirs"


def test_duplicates_inside_one_document_clash_with_each_other(client: Client, bob: User, team: Team) -> None:
    payload = [{"name": "twin", "description": "first", "input_schema": WEATHER}] * 2
    signed_in(client, bob, team)
    apply(client, payload, on_conflict="rename")
    assert names(team) == ["twin", "twin_imported"]
