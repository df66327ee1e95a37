"""Signing in and out, the pages behind it, and the local demo account."""

from __future__ import annotations

import re
from io import StringIO
from typing import TYPE_CHECKING

import pytest
from django.core.management import CommandError, call_command
from django.test import Client, override_settings
from django.urls import reverse

from playground.shell.navigation import SECTIONS, Section
from playground.teams.models import Membership, Role, Team
from tests.conftest import PASSWORD

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from pytest_django.fixtures import SettingsWrapper

pytestmark = pytest.mark.django_db


def test_login_page_is_styled_and_offline(client: Client) -> None:
    response = client.get(reverse("login"))
    assert response.status_code == 200
    html = response.content.decode()
    assert '<link rel="stylesheet" href="/static/css/app.css">' in html
    assert 'name="username"' in html
    assert 'name="password"' in html
    # Everything is served by the app itself: no CDN, no web fonts.
    assert not re.search(r'(src|href)="(https?:)?//', html)


def test_signing_in_lands_on_the_playground(client: Client, alice: User) -> None:
    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD}, follow=True)
    assert response.redirect_chain[0] == (reverse("playground"), 302)
    assert response.status_code == 200
    assert b'<h1 class="page-title">Playground</h1>' in response.content
    assert b"alice" in response.content
    assert b"alice&#x27;s team" in response.content


def test_wrong_password_is_refused_with_a_message(client: Client, alice: User) -> None:
    response = client.post(reverse("login"), {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert b"don't match" in response.content
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize("section", SECTIONS, ids=lambda s: s.key)
def test_every_section_needs_a_login(client: Client, section: Section) -> None:
    url = reverse(section.url_name)
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={url}"


@pytest.mark.parametrize("section", SECTIONS, ids=lambda s: s.key)
def test_every_section_renders_inside_the_shell(client: Client, alice: User, section: Section) -> None:
    client.force_login(alice)
    # follow: the playground opens (or starts) a conversation at its own URL.
    response = client.get(reverse(section.url_name), follow=True)
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<h1 class="page-title">{section.label}</h1>' in html
    assert 'aria-current="page"' in html
    for other in SECTIONS:
        assert f'href="{reverse(other.url_name)}"' in html
    assert '<dialog id="help-dialog"' in html
    assert 'data-live-url="/ws/status/"' in html


def test_shell_sends_the_csrf_token_with_every_htmx_request(client: Client, alice: User) -> None:
    client.force_login(alice)
    html = client.get(reverse("team")).content.decode()
    match = re.search(r"<body hx-headers='\{\"X-CSRFToken\": \"([^\"]+)\"\}'", html)
    assert match, "CSRF token missing from hx-headers on <body>"
    assert '<script src="/static/django_htmx/htmx-2.min.js" defer></script>' in html
    # Never django-htmx's debug helper, even when DEBUG is on (./scripts/run): it would swap a refused action's
    # plain-text reply in for the whole page, where the pages show it beside the form that was refused.
    with override_settings(DEBUG=True):
        assert "django-htmx.js" not in client.get(reverse("team")).content.decode()


def test_placeholder_sections_describe_what_is_coming(client: Client, alice: User) -> None:
    client.force_login(alice)
    assert b"No tools yet" in client.get(reverse("tools")).content
    assert b"No conversations yet" in client.get(reverse("conversations")).content


def test_signing_out_needs_a_post_and_ends_the_session(client: Client, alice: User) -> None:
    client.force_login(alice)
    assert client.get(reverse("logout")).status_code == 405
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert response["Location"] == reverse("login")
    assert client.get(reverse("playground")).status_code == 302


def test_new_users_get_a_personal_team_they_own(alice: User) -> None:
    team = Team.objects.get(personal_for=alice)
    assert team.name == "alice's team"
    assert Membership.objects.get(team=team).role == Role.OWNER


def test_health_check_answers_without_a_login(client: Client) -> None:
    response = client.get("/healthz", HTTP_HOST="10.0.0.7:8000")  # an IP that is not in ALLOWED_HOSTS
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def signs_in(client: Client, username: str, password: str) -> bool:
    """Through the real sign-in form (django-axes needs the request a bare client.login() lacks)."""
    response = client.post("/login/", {"username": username, "password": password})
    return response.status_code == 302


def run_setup_demo() -> str:
    out = StringIO()
    call_command("setup_demo", "--url", "http://127.0.0.1:8000/", stdout=out)
    return out.getvalue()


def test_setup_demo_prints_a_working_random_password(client: Client, settings: SettingsWrapper) -> None:
    settings.DEBUG = True
    output = run_setup_demo()
    password = re.search(r"Password:\s+(\S+)", output).group(1)  # type: ignore[union-attr]
    assert "Username:  demo" in output
    assert "http://127.0.0.1:8000/" in output
    assert len(password) >= 16
    assert signs_in(client, "demo", password)


def test_setup_demo_is_idempotent_and_rotates_the_password(settings: SettingsWrapper, client: Client) -> None:
    settings.DEBUG = True
    first = re.search(r"Password:\s+(\S+)", run_setup_demo()).group(1)  # type: ignore[union-attr]
    second = re.search(r"Password:\s+(\S+)", run_setup_demo()).group(1)  # type: ignore[union-attr]
    assert first != second
    assert not signs_in(client, "demo", first)
    assert signs_in(client, "demo", second)
    demo_team = Team.objects.get(name="Demo team")
    roles = dict(demo_team.memberships.values_list("user__username", "role"))
    assert roles == {"demo": Role.OWNER, "ada": Role.EDITOR, "grace": Role.VIEWER}


def test_setup_demo_registers_the_simulated_endpoints_and_example_tools(settings: SettingsWrapper) -> None:
    from playground.endpoints.models import Endpoint
    from playground.tools.models import Tool

    settings.DEBUG = True
    run_setup_demo()
    run_setup_demo()  # twice: nothing is duplicated
    simulated = Endpoint.objects.filter(team__isnull=True, kind="simulated").order_by("name")
    assert [(e.name, e.format, e.base_url) for e in simulated] == [
        ("Simulated Anthropic", "anthropic", "/anthropic"),
        ("Simulated Gemini", "gemini", "/gemini"),
        ("Simulated OpenAI", "openai-chat", "/openai/v1"),
        ("Simulated OpenAI Responses", "openai-responses", "/openai/v1"),
    ]
    assert {"sim-1", "sim-cut", "sim-429"} <= set(simulated[1].model_names)
    assert {"sim-1", "sim-cut", "sim-429"} <= set(simulated[2].model_names)
    assert {"sim-1", "sim-cut", "sim-429"} <= set(simulated[3].model_names)
    demo_tools = set(Tool.objects.filter(team__name="Demo team").values_list("name", flat=True))
    assert demo_tools == {"get_weather", "calculator", "lookup_order", "search_docs", "bar_chart"}


def test_setup_demo_refuses_when_debug_is_off(settings: SettingsWrapper, django_user_model: type[User]) -> None:
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG is off"):
        run_setup_demo()
    assert not django_user_model.objects.filter(username="demo").exists()


def test_opening_another_teams_conversation_makes_it_the_current_team(client: Client, alice: User) -> None:
    """The header names the team whose page is open, and a New chat from there starts in that team."""
    from playground.conversations.models import Conversation
    from playground.teams.access import ensure_personal_team

    guild = Team.objects.create(name="Guild")
    Membership.objects.create(user=alice, team=guild, role=Role.EDITOR)
    theirs = Conversation.objects.create(team=guild, created_by=None, title="Guild chat")
    client.force_login(alice)
    assert client.get(reverse("team")).context["current_team"] == ensure_personal_team(alice)
    for page in (reverse("chat", args=[theirs.pk]), f"/c/{theirs.pk}/review/"):
        client.post(reverse("team-switch"), {"team": ensure_personal_team(alice).pk})
        assert client.get(page).status_code == 200
        assert client.get(reverse("team")).context["current_team"] == guild, page
    created = client.post(reverse("chat-new"))
    assert Conversation.objects.get(pk=int(created["Location"].strip("/").split("/")[-1])).team == guild
