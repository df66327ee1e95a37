"""The Tools list and editor pages: create, edit, duplicate, delete, and who may do what."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import TYPE_CHECKING, Any

import pytest
from django.urls import reverse

from playground.teams.models import Team
from playground.tools.models import Tool

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
WEATHER = '{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}'


def signed_in(client: Client, user: User, team: Team) -> Client:
    client.force_login(user)
    client.post(reverse("team-switch"), {"team": team.pk})
    return client


def make_tool(team: Team, name: str, **fields: Any) -> Tool:
    return Tool.objects.create(team=team, name=name, **fields)


def form_data(**overrides: str) -> dict[str, str]:
    return {"name": "get_weather", "description": "Weather.", "parameters": WEATHER, "mode": "manual", **overrides}


def textarea(html: str, name: str) -> str:
    match = re.search(rf'<textarea[^>]* name="{name}"[^>]*>\n(.*?)</textarea>', html, re.S)
    assert match, f"no {name} textarea"
    return unescape(match.group(1))


def rows(html: str) -> list[str]:
    return re.findall(r'data-testid="tool-row" data-tool="([^"]+)"', html)


# --- the list ----------------------------------------------------------------------------------------------------


def test_list_shows_the_current_teams_tools_with_their_badges(client: Client, alice: User, team: Team) -> None:
    make_tool(team, "lookup", description="Find an order.\nSecond line stays out.", mode="canned", strict=True)
    make_tool(team, "calc", mode="builtin", builtin="calculator")
    make_tool(Team.objects.get(personal_for=alice), "personal_only")
    html = signed_in(client, alice, team).get(reverse("tools")).content.decode()
    assert rows(html) == ["calc", "lookup"]
    assert "Find an order." in html and "Second line stays out." not in html
    assert '<span class="badge mode-badge mode-canned">canned</span>' in html
    assert '<span class="badge mode-badge mode-builtin">built-in</span>' in html
    assert '<span class="badge badge-strict">strict</span>' in html


def test_list_counts_portability_warnings(client: Client, alice: User, team: Team) -> None:
    # strict with an optional property and no additionalProperties: false -> two strict-mode warnings
    loose = {"type": "object", "properties": {"a": {"type": "string"}}}
    make_tool(team, "loose", parameters=loose, strict=True)
    make_tool(team, "tight", parameters={**loose, "required": ["a"], "additionalProperties": False}, strict=True)
    html = signed_in(client, alice, team).get(reverse("tools")).content.decode()
    loose_row = html[html.index('data-tool="loose"') : html.index('data-tool="tight"')]
    assert ">2 warnings</span>" in loose_row
    assert "additionalProperties: false" in loose_row  # the warnings themselves, in the badge's title
    assert 'title="No portability warnings">portable</span>' in html[html.index('data-tool="tight"') :]


def test_an_empty_team_gets_the_empty_state(client: Client, alice: User, team: Team) -> None:
    html = signed_in(client, alice, team).get(reverse("tools")).content.decode()
    assert "No tools yet" in html
    assert reverse("tool-new") in html


def test_htmx_list_request_gets_only_the_list_section(client: Client, alice: User, team: Team) -> None:
    make_tool(team, "calc")
    html = signed_in(client, alice, team).get(reverse("tools"), **HTMX).content.decode()
    assert html.lstrip().startswith('<section class="card card-flush" id="tool-list">')


# --- create and edit ---------------------------------------------------------------------------------------------


def test_create_saves_the_tool_and_returns_to_the_list(client: Client, bob: User, team: Team) -> None:
    response = signed_in(client, bob, team).post(reverse("tool-new"), form_data(strict="on"))
    assert response.status_code == 302 and response["Location"] == reverse("tools")
    tool = team.tools.get(name="get_weather")
    assert tool.parameters["properties"] == {"city": {"type": "string"}}
    assert (tool.description, tool.strict, tool.mode) == ("Weather.", True, "manual")
    assert "Saved get_weather." in client.get(reverse("tools")).content.decode()


def test_edit_changes_the_tool_and_may_keep_its_own_name(client: Client, bob: User, team: Team) -> None:
    tool = make_tool(team, "get_weather")
    response = signed_in(client, bob, team).post(
        reverse("tool-edit", args=[tool.pk]), form_data(description="Now described.")
    )
    assert response.status_code == 302
    tool.refresh_from_db()
    assert tool.description == "Now described."


def test_edit_page_shows_the_saved_values(client: Client, alice: User, team: Team) -> None:
    tool = make_tool(team, "lookup", description="Find it.", parameters={"type": "object", "properties": {}})
    html = signed_in(client, alice, team).get(reverse("tool-edit", args=[tool.pk])).content.decode()
    assert 'value="lookup"' in html
    assert json.loads(textarea(html, "parameters")) == {"type": "object", "properties": {}}
    assert 'data-testid="save-tool"' in html


def test_delete_removes_the_tool(client: Client, bob: User, team: Team) -> None:
    tool = make_tool(team, "gone")
    response = signed_in(client, bob, team).post(reverse("tool-delete", args=[tool.pk]), **HTMX)
    assert response.status_code == 200
    assert "Deleted gone." in response.content.decode()
    assert not Tool.objects.filter(pk=tool.pk).exists()


def test_delete_asks_for_confirmation(client: Client, alice: User, team: Team) -> None:
    make_tool(team, "gone")
    html = signed_in(client, alice, team).get(reverse("tools")).content.decode()
    assert 'hx-confirm="Delete gone? Saved conversations keep their own copy."' in html


# --- duplicate ---------------------------------------------------------------------------------------------------


def test_duplicate_copies_everything_under_a_copy_name(client: Client, bob: User, team: Team) -> None:
    rules = [{"when": {"id": "1"}, "response": "one", "is_error": False}]
    original = make_tool(team, "lookup", description="d", mode="canned", canned_rules=rules, canned_default="?")
    signed_in(client, bob, team).post(reverse("tool-duplicate", args=[original.pk]))
    copy = team.tools.get(name="lookup_copy")
    assert (copy.description, copy.mode, copy.canned_rules, copy.canned_default) == ("d", "canned", rules, "?")
    assert copy.pk != original.pk
    assert copy.created_at > original.created_at
    assert team.tools.get(name="lookup").pk == original.pk


def test_duplicating_again_numbers_the_copies(client: Client, bob: User, team: Team) -> None:
    original = make_tool(team, "lookup")
    signed_in(client, bob, team)
    for _ in range(3):
        client.post(reverse("tool-duplicate", args=[original.pk]), **HTMX)
    assert sorted(team.tools.values_list("name", flat=True)) == [
        "lookup",
        "lookup_copy",
        "lookup_copy_2",
        "lookup_copy_3",
    ]


def test_duplicate_of_a_64_character_name_stays_valid(client: Client, bob: User, team: Team) -> None:
    original = make_tool(team, "x" * 64)
    response = signed_in(client, bob, team).post(reverse("tool-duplicate", args=[original.pk]), **HTMX)
    assert response.status_code == 200
    assert team.tools.filter(name="x" * 59 + "_copy").exists()


# --- permissions -------------------------------------------------------------------------------------------------


def test_viewers_see_the_list_without_edit_controls(client: Client, carol: User, team: Team) -> None:
    tool = make_tool(team, "lookup")
    html = signed_in(client, carol, team).get(reverse("tools")).content.decode()
    assert rows(html) == ["lookup"]
    assert "Read-only" in html
    for url in (reverse("tool-new"), reverse("tool-import"), reverse("tool-delete", args=[tool.pk])):
        assert url not in html
    assert 'data-testid="export-openai"' in html  # reading includes exporting


def test_viewers_get_a_read_only_editor(client: Client, carol: User, team: Team) -> None:
    tool = make_tool(team, "lookup")
    html = signed_in(client, carol, team).get(reverse("tool-edit", args=[tool.pk])).content.decode()
    assert '<fieldset class="tool-fieldset" disabled>' in html
    assert 'data-testid="save-tool"' not in html


def test_viewers_are_refused_every_change(client: Client, carol: User, team: Team) -> None:
    tool = make_tool(team, "lookup")
    signed_in(client, carol, team)
    posts = [
        (reverse("tool-new"), form_data()),
        (reverse("tool-edit", args=[tool.pk]), form_data(name="renamed")),
        (reverse("tool-duplicate", args=[tool.pk]), {}),
        (reverse("tool-delete", args=[tool.pk]), {}),
        (reverse("tool-validate-name"), {"name": "x"}),
        (reverse("tool-validate-schema"), {"parameters": WEATHER}),
        (reverse("tool-fill-template", args=["weather"]), form_data()),
        (reverse("tool-import-preview"), {"text": "[]"}),
        (reverse("tool-import-apply"), {"text": "[]"}),
    ]
    for url, data in posts:
        assert client.post(url, data).status_code == 403, url
    assert client.get(reverse("tool-new")).status_code == 403
    assert list(team.tools.values_list("name", flat=True)) == ["lookup"]


def test_another_teams_tool_is_not_found(client: Client, alice: User, bob: User, team: Team) -> None:
    theirs = make_tool(Team.objects.get(personal_for=bob), "secret")
    signed_in(client, alice, team)
    assert client.get(reverse("tool-edit", args=[theirs.pk])).status_code == 404
    assert client.post(reverse("tool-edit", args=[theirs.pk]), form_data()).status_code == 404
    assert client.post(reverse("tool-duplicate", args=[theirs.pk])).status_code == 404
    assert client.post(reverse("tool-delete", args=[theirs.pk])).status_code == 404
    assert Tool.objects.filter(pk=theirs.pk, name="secret").exists()


def test_a_tool_of_a_team_that_is_not_current_is_not_found(client: Client, alice: User, team: Team) -> None:
    personal = make_tool(Team.objects.get(personal_for=alice), "mine")
    signed_in(client, alice, team)  # the current team is Evals, not alice's personal team
    assert client.get(reverse("tool-edit", args=[personal.pk])).status_code == 404


def test_pages_need_a_signed_in_user(client: Client) -> None:
    response = client.get(reverse("tools"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
