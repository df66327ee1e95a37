"""Crafted input on the tool pages: deeply nested JSON and schemas whose `$ref`s loop are refused, never a 500.

Each handler answers the way it answers invalid JSON (a problem in the schema panel, the form back with 422, the
import preview's refusal), keeps what was pasted, and saves nothing.
"""

from __future__ import annotations

import json
import re
from html import unescape
from typing import TYPE_CHECKING, Any

import pytest
from django.urls import reverse

from playground.tools.models import Tool
from playground.tools.schema import check_arguments, field_states
from playground.tools.schema_walk import LOOP

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
WEATHER = '{"type": "object", "properties": {"city": {"type": "string"}}}'
TOO_DEEP = "The JSON is nested too deeply: at most 64 levels of objects and arrays are accepted."
# Both shapes from the report: 100,000 nested arrays (200 KB, under every size limit) and 5,000 nested objects.
DEEP_TEXTS = {"arrays": "[" * 100_000 + "]" * 100_000, "objects": '{"a":' * 5_000 + "1" + "}" * 5_000}
# Validating {"a": ...} against this recursed until RecursionError: /$defs/x is only a reference to itself.
REF_LOOP: dict[str, Any] = {
    "$defs": {"x": {"$ref": "#/$defs/x"}},
    "type": "object",
    "properties": {"a": {"$ref": "#/$defs/x"}},
}


@pytest.fixture(params=list(DEEP_TEXTS))
def deep(request: pytest.FixtureRequest) -> str:
    return DEEP_TEXTS[request.param]


def signed_in(client: Client, user: User, team: Team) -> Client:
    client.force_login(user)
    client.post(reverse("team-switch"), {"team": team.pk})
    return client


def form_data(**overrides: str) -> dict[str, str]:
    return {"name": "get_weather", "description": "Weather.", "parameters": WEATHER, "mode": "manual", **overrides}


def textarea(html: str, name: str) -> str:
    match = re.search(rf'<textarea[^>]* name="{name}"[^>]*>\n(.*?)</textarea>', html, re.S)
    assert match, f"no {name} textarea"
    return unescape(match.group(1))


def save_errors(html: str) -> list[str]:
    block = html[html.index('data-testid="save-errors"') :]
    block = block[: block.index("</ul>")]
    return [unescape(item) for item in re.findall(r"<li>(.*?)</li>", block)]


def schema_errors(html: str) -> list[tuple[str, str]]:
    pattern = r'<li class="problem problem-error">(?:<code class="problem-path">(.*?)</code>)?<span>(.*?)</span></li>'
    return [(path, unescape(message)) for path, message in re.findall(pattern, html)]


def refusal(html: str) -> str:
    match = re.search(r'data-testid="import-refused">(.*?)</p>', html, re.S)
    assert match, "no refusal"
    return unescape(match.group(1))


def nested_items(levels: int) -> dict[str, Any]:
    """An object schema whose one property is ``levels`` arrays deep: JSON depth ``levels + 3``."""
    leaf: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        leaf = {"type": "array", "items": leaf}
    return {"type": "object", "properties": {"x": leaf}}


# --- the schema check and the example ----------------------------------------------------------------------------


def test_the_schema_check_refuses_deep_json(client: Client, bob: User, team: Team, deep: str) -> None:
    response = signed_in(client, bob, team).post(reverse("tool-validate-schema"), {"parameters": deep}, **HTMX)
    assert response.status_code == 200
    assert schema_errors(response.content.decode()) == [("", TOO_DEEP)]


def test_a_schema_at_the_depth_limit_is_checked_and_one_past_it_refused(client: Client, bob: User, team: Team) -> None:
    signed_in(client, bob, team)
    at_limit = client.post(reverse("tool-validate-schema"), {"parameters": json.dumps(nested_items(61))}, **HTMX)
    assert at_limit.status_code == 200
    assert "✓ Valid schema" in at_limit.content.decode()
    past = client.post(reverse("tool-validate-schema"), {"parameters": json.dumps(nested_items(62))}, **HTMX)
    assert schema_errors(past.content.decode()) == [("", TOO_DEEP)]


def test_a_deep_example_is_explained_next_to_it(client: Client, bob: User, team: Team, deep: str) -> None:
    response = signed_in(client, bob, team).post(reverse("tool-fill-example"), {"example": deep}, **HTMX)
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#example-problems"
    assert TOO_DEEP in response.content.decode()
    assert "tool-definition" not in response.content.decode()  # the editor, and the schema in it, are left alone


def test_an_example_whose_schema_would_be_too_deep_is_explained(client: Client, bob: User, team: Team) -> None:
    # 40 levels of objects are within the limit, but the schema made from them nests properties twice as deep.
    example = '{"a":' * 40 + "1" + "}" * 40
    response = signed_in(client, bob, team).post(reverse("tool-fill-example"), {"example": example}, **HTMX)
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#example-problems"
    assert f"The schema made from this example would be too deep. {TOO_DEEP}" in response.content.decode()


# --- saving a tool -----------------------------------------------------------------------------------------------


def test_a_new_tool_with_a_deep_schema_is_refused(client: Client, bob: User, team: Team, deep: str) -> None:
    response = signed_in(client, bob, team).post(reverse("tool-new"), form_data(parameters=deep))
    html = response.content.decode()
    assert response.status_code == 422
    assert save_errors(html) == ["The schema has 1 problem (listed below)."]
    assert schema_errors(html) == [("", TOO_DEEP)]
    assert textarea(html, "parameters") == deep  # nothing typed is lost
    assert not Tool.objects.exists()


def test_editing_a_tool_to_a_deep_schema_is_refused(client: Client, bob: User, team: Team, deep: str) -> None:
    tool = Tool.objects.create(team=team, name="get_weather", parameters=json.loads(WEATHER))
    response = signed_in(client, bob, team).post(reverse("tool-edit", args=[tool.pk]), form_data(parameters=deep))
    assert response.status_code == 422
    assert schema_errors(response.content.decode()) == [("", TOO_DEEP)]
    tool.refresh_from_db()
    assert tool.parameters == json.loads(WEATHER)


def test_a_deep_when_condition_is_refused(client: Client, bob: User, team: Team, deep: str) -> None:
    rule = {"rule-0-when": deep, "rule-0-response": "sunny"}
    response = signed_in(client, bob, team).post(reverse("tool-new"), form_data(mode="canned", **rule))
    html = response.content.decode()
    assert response.status_code == 422
    assert save_errors(html) == [f"Rule 1: {TOO_DEEP}"]
    assert textarea(html, "rule-0-when") == deep
    assert not Tool.objects.exists()


def test_a_deep_canned_default_answer_is_refused(client: Client, bob: User, team: Team, deep: str) -> None:
    signed_in(client, bob, team)
    response = client.post(reverse("tool-new"), form_data(mode="canned", canned_default=deep))
    html = response.content.decode()
    assert response.status_code == 422
    assert save_errors(html) == [TOO_DEEP]
    assert textarea(html, "canned_default") == deep
    assert not Tool.objects.exists()
    # An answer that is not JSON is free text, however many brackets it opens: nothing will parse it.
    unbalanced = "[" * 100 + " draft"
    assert client.post(reverse("tool-new"), form_data(mode="canned", canned_default=unbalanced)).status_code == 302
    assert team.tools.get().canned_default == unbalanced


def test_a_deep_canned_rule_answer_is_refused(client: Client, bob: User, team: Team, deep: str) -> None:
    rule = {"rule-0-when": "{}", "rule-0-response": deep}
    response = signed_in(client, bob, team).post(reverse("tool-new"), form_data(mode="canned", **rule))
    assert response.status_code == 422
    assert save_errors(response.content.decode()) == [f"Rule 1: {TOO_DEEP}"]
    assert not Tool.objects.exists()


# --- importing ---------------------------------------------------------------------------------------------------


def test_the_import_preview_refuses_a_deep_document(client: Client, bob: User, team: Team, deep: str) -> None:
    signed_in(client, bob, team)
    partial = client.post(reverse("tool-import-preview"), {"text": deep}, **HTMX)
    assert partial.status_code == 200
    assert refusal(partial.content.decode()) == TOO_DEEP
    page = client.post(reverse("tool-import-preview"), {"text": deep})
    assert page.status_code == 200
    assert refusal(page.content.decode()) == TOO_DEEP
    assert textarea(page.content.decode(), "text") == deep  # the pasted text stays


def test_applying_a_deep_import_imports_nothing(client: Client, bob: User, team: Team, deep: str) -> None:
    signed_in(client, bob, team)
    page = client.post(reverse("tool-import-apply"), {"text": deep})
    assert page.status_code == 422
    assert refusal(page.content.decode()) == TOO_DEEP
    partial = client.post(reverse("tool-import-apply"), {"text": deep}, **HTMX)
    assert partial.status_code == 200
    assert refusal(partial.content.decode()) == TOO_DEEP
    assert not Tool.objects.exists()


def test_a_deep_schema_inside_an_import_refuses_the_document(client: Client, bob: User, team: Team) -> None:
    tools = [{"type": "function", "function": {"name": "deep", "parameters": nested_items(300)}}]
    response = signed_in(client, bob, team).post(reverse("tool-import-apply"), {"text": json.dumps(tools)})
    assert response.status_code == 422
    assert refusal(response.content.decode()) == TOO_DEEP
    assert not Tool.objects.exists()


# --- schemas whose references loop -------------------------------------------------------------------------------


def test_a_ref_loop_is_refused_by_the_schema_check(client: Client, bob: User, team: Team) -> None:
    signed_in(client, bob, team)
    looping = client.post(reverse("tool-validate-schema"), {"parameters": json.dumps(REF_LOOP)}, **HTMX)
    assert looping.status_code == 200
    assert schema_errors(looping.content.decode()) == [("/$defs/x", LOOP)]
    # Recursion that reads a deeper part of the arguments at each step ends with them: that schema is fine.
    recursive = {"type": "object", "properties": {"a": {"$ref": "#"}}}
    response = client.post(reverse("tool-new"), form_data(parameters=json.dumps(recursive)))
    assert response.status_code == 302
    assert check_arguments(recursive, '{"a": {"a": {"a": {}}}}').ok


@pytest.mark.parametrize(
    "schema",
    [
        {"$defs": {"x": {"allOf": [{"$ref": "#/$defs/y"}]}, "y": {"anyOf": [{"$ref": "#/$defs/x"}]}}},
        {"$defs": {"x": {"not": {"$ref": "#/$defs/x"}}}},
        {"$defs": {"x": {"$anchor": "me", "if": {"$ref": "#me"}}}},
    ],
    ids=["through-allOf-and-anyOf", "through-not", "through-an-anchor"],
)
def test_loops_through_other_keywords_are_refused(
    schema: dict[str, Any], client: Client, bob: User, team: Team
) -> None:
    whole = {**schema, "type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}}
    response = signed_in(client, bob, team).post(reverse("tool-new"), form_data(parameters=json.dumps(whole)))
    assert response.status_code == 422
    assert [message for _, message in schema_errors(response.content.decode())] == [LOOP]
    assert not Tool.objects.exists()


def test_a_ref_loop_inside_an_import_refuses_that_tool(client: Client, bob: User, team: Team) -> None:
    tools = [
        {"type": "function", "function": {"name": "loops", "parameters": REF_LOOP}},
        {"type": "function", "function": {"name": "fine", "parameters": json.loads(WEATHER)}},
    ]
    signed_in(client, bob, team)
    preview = client.post(reverse("tool-import-preview"), {"text": json.dumps(tools)}, **HTMX)
    assert f"parameters/$defs/x: {LOOP}" in unescape(preview.content.decode())
    client.post(reverse("tool-import-apply"), {"text": json.dumps(tools)})
    assert list(team.tools.values_list("name", flat=True)) == ["fine"]


@pytest.mark.parametrize("ref", ["#/$defs/nope", "http://127.0.0.1:9/schema.json"], ids=["missing", "remote"])
def test_a_ref_that_points_outside_the_schema_is_refused(client: Client, bob: User, team: Team, ref: str) -> None:
    # jsonschema would fetch the remote one with urlopen while checking a call: the server must not read URLs.
    schema = {"type": "object", "properties": {"a": {"$ref": ref}}}
    html = signed_in(client, bob, team).post(
        reverse("tool-validate-schema"), {"parameters": json.dumps(schema)}, **HTMX
    )
    message = f"{ref!r} points nowhere in this schema (only references inside it are followed)."
    assert schema_errors(html.content.decode()) == [("/properties/a/$ref", message)]


def test_a_pattern_python_cannot_compile_is_refused(client: Client, bob: User, team: Team) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "(unclosed"}}}
    html = signed_in(client, bob, team).post(
        reverse("tool-validate-schema"), {"parameters": json.dumps(schema)}, **HTMX
    )
    [(where, message)] = schema_errors(html.content.decode())
    assert where == "/properties/a/pattern"
    assert message.startswith("Not a regular expression Python can use: missing ), unterminated subpattern")


# --- checking calls against schemas saved before these checks ----------------------------------------------------


@pytest.mark.parametrize(
    "schema",
    [
        REF_LOOP,
        {"type": "object", "properties": {"a": {"$ref": "http://127.0.0.1:9/schema.json"}}},
        {"type": "object", "properties": {"a": {"type": "string", "pattern": "(unclosed"}}},
    ],
    ids=["ref-loop", "remote-ref", "bad-pattern"],
)
def test_checking_arguments_against_an_unusable_schema_reports_a_problem(schema: dict[str, Any]) -> None:
    check = check_arguments(schema, '{"a": "x"}')
    assert not check.ok
    assert check.summary().startswith("The tool's schema cannot check these arguments:")


def test_live_field_checks_resolve_references_against_the_whole_schema() -> None:
    schema = {
        "$defs": {"city": {"type": "string"}},
        "type": "object",
        "properties": {"city": {"$ref": "#/$defs/city"}, "loop": {"$ref": "#/$defs/x"}},
    }
    schema["$defs"]["x"] = {"$ref": "#/$defs/x"}
    states = {state.name: state for state in field_states(schema, '{"city": 3, "loop": 1}')}
    assert states["city"].state == "invalid"
    assert states["city"].message == "3 is not of type 'string'"
    assert states["loop"].state == "invalid"
    assert states["loop"].message.startswith("The tool's schema cannot check these arguments:")
