"""Saving from the editor: names, schemas, canned rules and built-ins refused with reasons, and nothing typed lost."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import TYPE_CHECKING, Any

import pytest
from django.urls import reverse

from playground.tools.builtins import BUILTINS
from playground.tools.models import Tool

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db

WEATHER = '{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}'


def signed_in(client: Client, user: User, team: Team) -> Client:
    client.force_login(user)
    client.post(reverse("team-switch"), {"team": team.pk})
    return client


def form_data(**overrides: Any) -> dict[str, Any]:
    return {"name": "get_weather", "description": "Weather.", "parameters": WEATHER, "mode": "manual", **overrides}


def textarea(html: str, name: str) -> str:
    match = re.search(rf'<textarea[^>]* name="{name}"[^>]*>\n(.*?)</textarea>', html, re.S)
    assert match, f"no {name} textarea"
    return unescape(match.group(1))


def save_errors(html: str) -> list[str]:
    block = html[html.index('data-testid="save-errors"') :]
    block = block[: block.index("</ul>")]
    return [unescape(item) for item in re.findall(r"<li>(.*?)</li>", block)]


def create(client: Client, **overrides: Any) -> Any:
    return client.post(reverse("tool-new"), form_data(**overrides))


# --- names -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["get weather", "naïve", "a" * 65, "semi;colon", "dot.ted"])
def test_names_providers_reject_are_refused(client: Client, bob: User, team: Team, name: str) -> None:
    response = create(signed_in(client, bob, team), name=name)
    assert response.status_code == 422
    assert save_errors(response.content.decode()) == [
        "Use 1 to 64 letters, digits, underscores or hyphens (providers reject anything else)."
    ]
    assert not team.tools.exists()


def test_an_empty_name_is_refused(client: Client, bob: User, team: Team) -> None:
    response = create(signed_in(client, bob, team), name="  ")
    assert save_errors(response.content.decode()) == ["A name is required."]


def test_names_are_unique_per_team(client: Client, bob: User, team: Team) -> None:
    Tool.objects.create(team=team, name="get_weather")
    response = create(signed_in(client, bob, team))
    assert response.status_code == 422
    assert save_errors(response.content.decode()) == ["The team already has a tool called 'get_weather'."]
    assert team.tools.count() == 1


def test_the_same_name_in_another_team_is_fine(client: Client, alice: User, bob: User, team: Team) -> None:
    Tool.objects.create(team=bob.personal_team, name="get_weather")
    assert create(signed_in(client, alice, team)).status_code == 302


def test_renaming_onto_another_tool_is_refused(client: Client, bob: User, team: Team) -> None:
    Tool.objects.create(team=team, name="taken")
    mine = Tool.objects.create(team=team, name="mine")
    response = signed_in(client, bob, team).post(reverse("tool-edit", args=[mine.pk]), form_data(name="taken"))
    assert response.status_code == 422
    mine.refresh_from_db()
    assert mine.name == "mine"


# --- schemas -----------------------------------------------------------------------------------------------------


def test_an_invalid_schema_is_refused_and_everything_typed_comes_back(client: Client, bob: User, team: Team) -> None:
    schema = '{\n  "type": "object",\n  "properties": {"unit": {"type": "strin"}}\n}'
    typed = form_data(
        name="half_done",
        description="  Indented\nsecond line ",
        parameters=schema,
        strict="on",
        mode="canned",
        canned_default="fallback",
        example='{"unit": "c"}',
        **{"rule-0-when": '{"unit": "c"}', "rule-0-response": "ok", "rule-0-is_error": "on"},
    )
    response = signed_in(client, bob, team).post(reverse("tool-new"), typed)
    html = response.content.decode()
    assert response.status_code == 422
    assert not team.tools.exists()
    assert save_errors(html) == ["The schema has 1 problem (listed below)."]
    assert '<code class="problem-path">/properties/unit/type</code>' in html
    assert textarea(html, "parameters") == schema
    assert textarea(html, "description") == "  Indented\nsecond line "
    assert textarea(html, "rule-0-when") == '{"unit": "c"}'
    assert textarea(html, "rule-0-response") == "ok"
    assert textarea(html, "canned_default") == "fallback"
    assert textarea(html, "example") == '{"unit": "c"}'
    assert 'name="rule-0-is_error" checked' in html
    assert 'value="half_done"' in html
    assert 'name="strict" checked' in html
    assert 'id="mode-canned" checked' in html


def test_a_schema_that_is_not_json_is_refused_with_its_position(client: Client, bob: User, team: Team) -> None:
    response = create(signed_in(client, bob, team), parameters='{"type": "object",}')
    html = unescape(response.content.decode())
    assert response.status_code == 422
    assert "Not valid JSON: Expecting property name enclosed in double quotes (line 1, column 19)." in html


def test_the_root_must_be_an_object_schema(client: Client, bob: User, team: Team) -> None:
    response = create(signed_in(client, bob, team), parameters='{"type": "string"}')
    html = unescape(response.content.decode())
    assert '<code class="problem-path">/type</code><span>Tool parameters must be "type": "object"' in html


def test_portability_warnings_do_not_block_saving(client: Client, bob: User, team: Team) -> None:
    response = create(signed_in(client, bob, team), strict="on")  # WEATHER lacks additionalProperties: false
    assert response.status_code == 302
    assert team.tools.get().strict is True


def test_an_empty_schema_means_no_arguments(client: Client, bob: User, team: Team) -> None:
    create(signed_in(client, bob, team), parameters="  ")
    assert team.tools.get().parameters == {"type": "object", "properties": {}}


# --- canned rules ------------------------------------------------------------------------------------------------


def test_canned_rules_are_saved_in_order_with_blank_rows_dropped(client: Client, bob: User, team: Team) -> None:
    rules = {
        "rule-3-when": '{"city": "Paris"}',
        "rule-3-response": "sunny",
        "rule-7-when": "",
        "rule-7-response": "",
        "rule-10-when": '{"city": "*", "unit.name": "k"}',
        "rule-10-response": "no kelvin",
        "rule-10-is_error": "on",
    }
    response = create(signed_in(client, bob, team), mode="canned", canned_default="cloudy", **rules)
    assert response.status_code == 302
    tool = team.tools.get()
    assert tool.canned_rules == [
        {"when": {"city": "Paris"}, "response": "sunny", "is_error": False},
        {"when": {"city": "*", "unit.name": "k"}, "response": "no kelvin", "is_error": True},
    ]
    assert tool.canned_default == "cloudy"
    assert tool.config().canned_rules[1].is_error is True


@pytest.mark.parametrize(
    ("when", "message"),
    [
        ('{"city": ', "Rule 2: `when` is not valid JSON: Expecting value (line 1, column 10)."),
        ('["city"]', 'Rule 2: `when` must be a JSON object of argument paths to values, e.g. {"city": "Paris"}.'),
        ('{"a..b": 1}', "Rule 2: 'a..b' is not an argument path: use names joined by dots, e.g. customer.name."),
    ],
)
def test_a_canned_rule_whose_when_is_not_an_object_is_refused(
    client: Client, bob: User, team: Team, when: str, message: str
) -> None:
    rules = {"rule-0-when": "{}", "rule-0-response": "a", "rule-1-when": when, "rule-1-response": "b"}
    response = create(signed_in(client, bob, team), mode="canned", **rules)
    html = response.content.decode()
    assert response.status_code == 422
    assert save_errors(html) == [message]
    assert '<div class="rule-row has-error" data-rule-row>' in html
    assert not team.tools.exists()


def test_rules_only_count_in_canned_mode(client: Client, bob: User, team: Team) -> None:
    response = create(
        signed_in(client, bob, team), mode="manual", **{"rule-0-when": "not json", "rule-0-response": "x"}
    )
    assert response.status_code == 302
    assert team.tools.get().canned_rules == []


def test_editor_shows_saved_rules_as_rows(client: Client, alice: User, team: Team) -> None:
    rules = [{"when": {"id": "A-1"}, "response": "shipped", "is_error": False}]
    tool = Tool.objects.create(team=team, name="lookup", mode="canned", canned_rules=rules)
    html = signed_in(client, alice, team).get(reverse("tool-edit", args=[tool.pk])).content.decode()
    assert json.loads(textarea(html, "rule-0-when")) == {"id": "A-1"}
    assert textarea(html, "rule-0-response") == "shipped"
    assert 'data-next-index="1"' in html
    assert 'name="rule-__index__-when"' in html  # the row tools.js copies for "Add rule"


# --- built-ins ---------------------------------------------------------------------------------------------------


def test_builtin_mode_saves_the_chosen_builtin(client: Client, bob: User, team: Team) -> None:
    create(signed_in(client, bob, team), mode="builtin", builtin="calculator", canned_default="dropped")
    tool = team.tools.get()
    assert (tool.mode, tool.builtin, tool.canned_default) == ("builtin", "calculator", "")


def test_builtin_mode_needs_a_builtin(client: Client, bob: User, team: Team) -> None:
    response = create(signed_in(client, bob, team), mode="builtin", builtin="")
    assert response.status_code == 422
    assert save_errors(response.content.decode()) == ["Choose which built-in answers the calls."]
    response = create(client, mode="builtin", builtin="rm_rf")
    assert response.status_code == 422
    assert "Select a valid choice. rm_rf is not one of the available choices." in save_errors(response.content.decode())
    assert not team.tools.exists()


def test_choosing_a_builtin_offers_to_fill_the_definition(client: Client, bob: User, team: Team) -> None:
    html = signed_in(client, bob, team).get(reverse("tool-builtin-offer"), {"builtin": "convert_units"}).content
    assert BUILTINS["convert_units"].description in html.decode()
    assert b'data-testid="use-builtin"' in html
    assert b"use-builtin" not in client.get(reverse("tool-builtin-offer"), {"builtin": ""}).content


def test_use_builtin_fills_name_description_and_schema(client: Client, bob: User, team: Team) -> None:
    typed = form_data(name="", description="", parameters="{}", mode="builtin", builtin="get_weather")
    html = signed_in(client, bob, team).post(reverse("tool-fill-builtin"), typed).content.decode()
    assert 'value="get_weather"' in html
    assert textarea(html, "description") == BUILTINS["get_weather"].description
    assert json.loads(textarea(html, "parameters")) == BUILTINS["get_weather"].parameters
    assert "✓ Valid schema" in html


def test_use_builtin_with_an_unknown_builtin_is_not_found(client: Client, bob: User, team: Team) -> None:
    assert signed_in(client, bob, team).post(reverse("tool-fill-builtin"), {"builtin": "nope"}).status_code == 404
