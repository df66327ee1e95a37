"""The portability check on the Tools pages: the editor shows each target's findings (live as the schema is
edited), the list a compact chip per target; both carry the testids external checks rely on."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import TYPE_CHECKING

import pytest
from django.urls import reverse

from playground.tools.models import Tool
from providers.portability import TARGETS

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
TARGET_IDS = [target.id for target in TARGETS]
EMAIL = {
    "type": "object",
    # An integer format on a string: Gemini refuses it (formats it never takes, such as email, the codec drops).
    "properties": {"to": {"type": "string", "format": "int64"}},
    "required": ["to"],
    "additionalProperties": False,
}
FINDING = re.compile(
    r'<(?:li|span) class="[^"]*" data-testid="portability-finding" '
    r'data-target="([^"]+)" data-level="([^"]+)">(.*?)</(?:li|span)>'
)


def signed_in(client: Client, user: User, team: Team) -> Client:
    client.force_login(user)
    client.post(reverse("team-switch"), {"team": team.pk})
    return client


def findings(html: str) -> list[tuple[str, str, str]]:
    return [(target, level, unescape(re.sub("<[^>]+>", "", text))) for target, level, text in FINDING.findall(html)]


def test_the_editor_shows_each_targets_findings(client: Client, alice: User, team: Team) -> None:
    tool = Tool.objects.create(team=team, name="send_mail", parameters=EMAIL)
    html = signed_in(client, alice, team).get(reverse("tool-edit", args=[tool.pk])).content.decode()
    assert html.count('data-testid="portability"') == 1
    found = findings(html)
    assert {target for target, _, _ in found} == set(TARGET_IDS)
    assert ("gemini", "error", "$.to: format 'int64' is refused (only 'enum' and 'date-time' for STRING)") in found
    assert ("anthropic", "ok", "accepted; the schema goes out unchanged") in found
    assert any(t == "openai-responses" and level == "change" and "strict: false" in m for t, level, m in found)
    # What Gemini is sent, in its own shape (types in upper case), behind a disclosure.
    assert "What is sent" in html and "&quot;type&quot;: &quot;STRING&quot;" in html


def test_the_editor_updates_the_findings_as_the_schema_is_edited(client: Client, bob: User, team: Team) -> None:
    signed_in(client, bob, team)
    loose = {"type": "object", "properties": {"city": {"type": "string"}}}
    response = client.post(
        reverse("tool-validate-schema"),
        {"parameters": json.dumps(loose), "name": "get_weather", "strict": "on"},
        **HTMX,
    )
    html = response.content.decode()
    # The problems partial, then the panel swapped out of band.
    assert 'id="schema-problems"' in html and 'id="tool-portability"' in html and 'hx-swap-oob="true"' in html
    found = findings(html)
    assert ("openai-chat", "error") in {(t, level) for t, level, _ in found}  # strict ticked: OpenAI refuses it
    strict_changes = [m for t, level, m in found if t == "openai-strict" and level == "change"]
    assert "city made nullable and required" in strict_changes


def test_an_invalid_schema_has_no_findings_yet(client: Client, bob: User, team: Team) -> None:
    signed_in(client, bob, team)
    html = client.post(reverse("tool-validate-schema"), {"parameters": "{not json"}, **HTMX).content.decode()
    assert 'data-testid="portability"' in html and findings(html) == []
    assert "Once the schema is valid JSON Schema" in html


def test_a_new_tool_shows_the_panel_for_its_starting_schema(client: Client, bob: User, team: Team) -> None:
    html = signed_in(client, bob, team).get(reverse("tool-new")).content.decode()
    assert {target for target, _, _ in findings(html)} == set(TARGET_IDS)


def test_the_list_shows_a_chip_per_target_with_every_finding(client: Client, alice: User, team: Team) -> None:
    Tool.objects.create(team=team, name="send_mail", parameters=EMAIL)
    Tool.objects.create(team=team, name="tight", parameters={**EMAIL, "properties": {"to": {"type": "string"}}})
    html = signed_in(client, alice, team).get(reverse("tools")).content.decode()
    assert html.count('data-testid="portability"') == 2
    mail_row = html[html.index('data-tool="send_mail"') : html.index('data-tool="tight"')]
    chips = re.findall(r'class="pchip pchip-(\w+)" title="[^"]*" data-portability-target="([^"]+)"', mail_row)
    assert [target for _, target in chips] == TARGET_IDS
    assert dict((target, level) for level, target in chips)["gemini"] == "error"
    assert ("gemini", "error") in {(t, level) for t, level, _ in findings(mail_row)}
    tight_row = html[html.index('data-tool="tight"') :]
    levels = dict(re.findall(r'class="pchip pchip-(\w+)" title="[^"]*" data-portability-target="(gemini)"', tight_row))
    assert levels == {"change": "gemini"}  # additionalProperties dropped for Gemini, nothing refused


def test_the_list_chip_title_lists_the_findings(client: Client, alice: User, team: Team) -> None:
    Tool.objects.create(team=team, name="send_mail", parameters=EMAIL)
    html = unescape(signed_in(client, alice, team).get(reverse("tools")).content.decode())
    assert "Gemini: refuses it\n• `$.to`: format 'int64' is refused" in html


def test_the_schema_check_says_when_a_target_refuses_a_valid_schema(client: Client, bob: User, team: Team) -> None:
    signed_in(client, bob, team)
    post = {"parameters": json.dumps(EMAIL), "name": "send_mail"}
    html = unescape(client.post(reverse("tool-validate-schema"), post, **HTMX).content.decode())
    assert "Valid schema, but refused by Gemini: see Portability below" in html
    assert "no portability warnings" not in html


def test_the_list_calls_a_tool_portable_only_when_no_target_refuses_it(client: Client, alice: User, team: Team) -> None:
    Tool.objects.create(team=team, name="send_mail", parameters=EMAIL)
    Tool.objects.create(team=team, name="tight", parameters={**EMAIL, "properties": {"to": {"type": "string"}}})
    html = signed_in(client, alice, team).get(reverse("tools")).content.decode()
    mail_row = html[html.index('data-tool="send_mail"') : html.index('data-tool="tight"')]
    assert ">portable</span>" not in mail_row and ">portable</span>" in html[html.index('data-tool="tight"') :]
