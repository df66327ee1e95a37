"""The editor's live endpoints: schema and name checks as the user types, templates and schema from example."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import TYPE_CHECKING, Any

import pytest
from django.urls import reverse

from playground.tools.forms import SCHEMA_TEMPLATES
from playground.tools.models import Tool

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
TIGHT = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


def signed_in(client: Client, user: User, team: Team) -> Client:
    client.force_login(user)
    client.post(reverse("team-switch"), {"team": team.pk})
    return client


def check_schema(client: Client, schema: Any, **extra: str) -> str:
    text = schema if isinstance(schema, str) else json.dumps(schema)
    response = client.post(reverse("tool-validate-schema"), {"parameters": text, **extra}, **HTMX)
    assert response.status_code == 200
    return unescape(response.content.decode())


def problems(html: str, kind: str) -> list[tuple[str, str]]:
    pattern = rf'<li class="problem problem-{kind}">(?:<code class="problem-path">(.*?)</code>)?<span>(.*?)</span></li>'
    return re.findall(pattern, html)


def textarea(html: str, name: str) -> str:
    match = re.search(rf'<textarea[^>]* name="{name}"[^>]*>\n(.*?)</textarea>', html, re.S)
    assert match, f"no {name} textarea"
    return unescape(match.group(1))


# --- schema ------------------------------------------------------------------------------------------------------


def test_a_valid_portable_schema_says_so(client: Client, bob: User, team: Team) -> None:
    html = check_schema(signed_in(client, bob, team), TIGHT, strict="on")
    assert html.lstrip().startswith('<div id="schema-problems" class="problems" data-testid="schema-problems"')
    assert "✓ Valid schema, no portability warnings" in html


def test_meta_schema_errors_come_with_their_json_paths(client: Client, bob: User, team: Team) -> None:
    schema = {
        "type": "object",
        "properties": {"unit": {"type": "strin"}, "days": {"type": "integer", "minimum": "one"}},
        "required": "days",
    }
    html = check_schema(signed_in(client, bob, team), schema)
    assert "3 problems: the tool cannot be saved like this" in html
    assert problems(html, "error") == [
        ("/properties/days/minimum", "'one' is not of type 'number'"),
        (
            "/properties/unit/type",
            "'strin' is not a JSON Schema type (use one of: string, number, integer, boolean, object, array, null).",
        ),
        ("/required", "'days' is not of type 'array'"),
    ]


def test_the_root_must_be_an_object(client: Client, bob: User, team: Team) -> None:
    html = check_schema(signed_in(client, bob, team), {"type": "array", "items": {"type": "string"}})
    assert problems(html, "error") == [("/type", 'Tool parameters must be "type": "object" at the top level.')]


def test_json_syntax_errors_give_line_and_column(client: Client, bob: User, team: Team) -> None:
    html = check_schema(signed_in(client, bob, team), '{\n  "type": "object"\n  "properties": {}\n}')
    assert problems(html, "error") == [("", "Not valid JSON: Expecting ',' delimiter (line 3, column 3).")]


def test_strict_mode_rules_are_warnings_only_when_strict_is_checked(client: Client, bob: User, team: Team) -> None:
    loose = {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}}
    signed_in(client, bob, team)
    assert "✓ Valid schema" in check_schema(client, loose)
    html = check_schema(client, loose, strict="on")
    assert "Valid schema, 2 portability warnings" in html
    assert problems(html, "warning") == [
        ("/", "strict mode needs every property in `required` (missing: city, unit)."),
        ("/", "strict mode needs `additionalProperties: false`."),
    ]
    assert problems(html, "error") == []


def test_keywords_some_providers_lack_are_warnings(client: Client, bob: User, team: Team) -> None:
    schema = {"type": "object", "properties": {"id": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}
    html = check_schema(signed_in(client, bob, team), schema)
    assert problems(html, "warning") == [("/", "`oneOf` is not supported by every provider's schema subset.")]


def test_the_editor_triggers_the_check_as_the_user_types(client: Client, bob: User, team: Team) -> None:
    html = signed_in(client, bob, team).get(reverse("tool-new")).content.decode()
    editor = html[html.index('<textarea id="tool-parameters"') :]
    editor = editor[: editor.index(">")]
    assert f'hx-post="{reverse("tool-validate-schema")}"' in editor
    assert 'hx-trigger="input changed delay:400ms"' in editor
    assert 'data-testid="schema-editor"' in editor


# --- name --------------------------------------------------------------------------------------------------------


def test_name_check_explains_the_rule(client: Client, bob: User, team: Team) -> None:
    html = signed_in(client, bob, team).post(reverse("tool-validate-name"), {"name": "bad name!"}, **HTMX)
    assert "Use 1 to 64 letters, digits, underscores or hyphens" in html.content.decode()


def test_name_check_reports_a_taken_name_but_not_the_tools_own(client: Client, bob: User, team: Team) -> None:
    tool = Tool.objects.create(team=team, name="lookup")
    signed_in(client, bob, team)
    taken = client.post(reverse("tool-validate-name"), {"name": "lookup"}, **HTMX).content.decode()
    assert "The team already has a tool called &#x27;lookup&#x27;." in taken
    own = client.post(reverse("tool-validate-name"), {"name": "lookup", "tool_id": tool.pk}, **HTMX).content
    assert "✓ Name available" in own.decode()


# --- filling the schema ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", list(SCHEMA_TEMPLATES))
def test_templates_fill_the_schema_and_keep_the_rest(client: Client, bob: User, team: Team, key: str) -> None:
    typed = {"name": "my_tool", "description": "Mine.", "parameters": "{broken", "strict": "on"}
    response = signed_in(client, bob, team).post(reverse("tool-fill-template", args=[key]), typed, **HTMX)
    html = response.content.decode()
    assert json.loads(textarea(html, "parameters")) == SCHEMA_TEMPLATES[key].schema
    assert 'value="my_tool"' in html and textarea(html, "description") == "Mine."
    assert "✓ Valid schema, no portability warnings" in html  # every template passes strict mode


def test_an_unknown_template_is_not_found(client: Client, bob: User, team: Team) -> None:
    assert signed_in(client, bob, team).post(reverse("tool-fill-template", args=["nope"])).status_code == 404


def test_schema_from_example_arguments(client: Client, bob: User, team: Team) -> None:
    example = '{"city": "Paris", "days": 3, "tags": ["a"], "options": {"metric": true}}'
    response = signed_in(client, bob, team).post(reverse("tool-fill-example"), {"example": example}, **HTMX)
    html = response.content.decode()
    schema = json.loads(textarea(html, "parameters"))
    assert schema["type"] == "object"
    assert schema["properties"]["days"] == {"type": "integer"}
    assert schema["properties"]["tags"] == {"type": "array", "items": {"type": "string"}}
    assert schema["properties"]["options"]["properties"]["metric"] == {"type": "boolean"}
    assert sorted(schema["required"]) == ["city", "days", "options", "tags"]
    assert '<div id="example-problems" hx-swap-oob="true">' in html  # clears an earlier complaint


@pytest.mark.parametrize(
    ("example", "message"),
    [
        ("", "Paste the arguments of an example call, as a JSON object."),
        ('{"city": ', "Not valid JSON: Expecting value (line 1, column 10)."),
        ("[1, 2]", "Example arguments must be a JSON object, like a tool call&#x27;s arguments."),
    ],
)
def test_a_bad_example_is_explained_next_to_it(
    client: Client, bob: User, team: Team, example: str, message: str
) -> None:
    response = signed_in(client, bob, team).post(reverse("tool-fill-example"), {"example": example}, **HTMX)
    assert response["HX-Retarget"] == "#example-problems"
    assert response["HX-Reswap"] == "outerHTML"
    assert message in response.content.decode()
    assert "tool-definition" not in response.content.decode()  # the editor is left alone
