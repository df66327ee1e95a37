"""The MCP servers page: adding HTTP and stdio servers (connecting for real first), syncing, deleting, and who may
do what. The servers are the SDK-built test server over streamable HTTP and over stdio (tests/mcp/support.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from django.test import Client
from django.urls import reverse

from playground.endpoints import crypto
from playground.mcp.models import MCPServer
from playground.teams import access
from playground.tools.models import Tool
from tests.endpoints.support import HTMX, signed_in
from tests.helpers import free_port
from tests.mcp.support import AUTH_VALUE, CONNECT_TIMEOUT_S, TOKEN, HttpServer

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db

V1_TOOLS = {"echo", "add", "structured_only", "pixel", "fail", "slow", "echo_auth", "crash"}


@pytest.fixture(autouse=True)
def allow_the_test_server(settings: SettingsWrapper, http_server: HttpServer) -> None:
    settings.CROSSWIRE_ALLOWED_BASE_URLS = [http_server.url.rsplit("/", 1)[0]]


def http_form(url: str, **fields: Any) -> dict[str, Any]:
    return {
        "transport": "http",
        "name": "remote tools",
        "url": url,
        "auth_header_name": "Authorization",
        "auth_header_value": AUTH_VALUE,
        "connect_timeout_s": str(CONNECT_TIMEOUT_S),
        "call_timeout_s": "30",
        **fields,
    }


def stdio_form(key: str = "tests", **fields: Any) -> dict[str, Any]:
    return {
        "transport": "stdio",
        "name": "local tools",
        "stdio_key": key,
        "connect_timeout_s": str(CONNECT_TIMEOUT_S),
        **fields,
    }


def make_server(team: Team, name: str = "local tools", stdio_key: str = "tests") -> MCPServer:
    return MCPServer.objects.create(
        team=team,
        name=name,
        transport=MCPServer.Transport.STDIO,
        stdio_key=stdio_key,
        connect_timeout_s=CONNECT_TIMEOUT_S,
    )


def test_an_owner_adds_an_http_server_whose_tools_are_imported_and_whose_auth_value_is_never_shown(
    client: Client, alice: User, team: Team, http_server: HttpServer
) -> None:
    client = signed_in(client, alice, team)

    response = client.post(reverse("mcp-server-create"), http_form(http_server.url), follow=True)

    server = MCPServer.objects.get(team=team)
    assert (server.name, server.transport, server.url) == ("remote tools", "http", http_server.url)
    assert server.auth_header_name == "Authorization"
    assert TOKEN not in server.auth_header_encrypted and crypto.decrypt(server.auth_header_encrypted) == AUTH_VALUE
    assert server.last_synced_at is not None and server.last_error == ""
    assert set(Tool.objects.filter(mcp_server=server).values_list("mcp_tool", flat=True)) == V1_TOOLS
    html = response.content.decode()
    assert "Added remote tools and imported 8 tools." in html
    assert html.count('data-testid="mcp-server-row"') == 1
    assert "Authorization …2d6f" in html and "8 tools" in html
    for page in (html, client.get(reverse("mcp-server-edit", args=[server.pk])).content.decode()):
        assert TOKEN not in page


def test_a_url_outside_the_allow_list_is_refused_before_any_contact_and_the_form_keeps_what_was_typed(
    client: Client, alice: User, team: Team, http_server: HttpServer
) -> None:
    url = "http://10.9.8.7:8123/mcp"

    response = signed_in(client, alice, team).post(reverse("mcp-server-create"), http_form(url, name="blocked one"))

    assert response.status_code == 200
    html = response.content.decode()
    assert "This deployment does not allow that base URL; CROSSWIRE_ALLOWED_BASE_URLS allows" in html
    assert 'value="blocked one"' in html and f'value="{url}"' in html
    assert TOKEN not in html
    assert not MCPServer.objects.exists()


def test_an_unreachable_server_is_reported_readably_and_nothing_is_saved(
    client: Client, alice: User, team: Team, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_ALLOWED_BASE_URLS = ["*"]
    url = f"http://127.0.0.1:{free_port()}/mcp"

    response = signed_in(client, alice, team).post(reverse("mcp-server-create"), http_form(url, name="nobody home"))

    html = response.content.decode()
    assert "Nothing was saved: the server could not be listed." in html
    assert "Could not reach the MCP server at this URL" in html
    assert 'value="nobody home"' in html and f'value="{url}"' in html
    assert "type it again" in html and TOKEN not in html
    assert 'data-testid="mcp-save-anyway"' in html
    assert not MCPServer.objects.exists()


def test_save_anyway_stores_a_server_that_does_not_answer_yet(
    client: Client, alice: User, team: Team, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_ALLOWED_BASE_URLS = ["*"]
    form = http_form(f"http://127.0.0.1:{free_port()}/mcp", save_anyway="on")

    response = signed_in(client, alice, team).post(reverse("mcp-server-create"), form, follow=True)

    server = MCPServer.objects.get(team=team)
    assert server.last_synced_at is None and crypto.decrypt(server.auth_header_encrypted) == AUTH_VALUE
    assert "without connecting" in response.content.decode()


def test_a_wrong_auth_value_is_refused_by_the_server_and_reported(
    client: Client, alice: User, team: Team, http_server: HttpServer
) -> None:
    wrong = "Bearer not-the-right-token-123"

    response = signed_in(client, alice, team).post(
        reverse("mcp-server-create"), http_form(http_server.url, auth_header_value=wrong)
    )

    html = response.content.decode()
    assert "refused the handshake (HTTP 401): check the URL and the auth header." in html
    assert "not-the-right-token" not in html
    assert not MCPServer.objects.exists()


def test_an_editor_cannot_set_a_url_but_can_add_a_stdio_server(client: Client, bob: User, team: Team) -> None:
    client = signed_in(client, bob, team)

    refused = client.post(reverse("mcp-server-create"), http_form("http://127.0.0.1:1/mcp"))
    added = client.post(reverse("mcp-server-create"), stdio_form(), follow=True)

    assert "Only team owners can set a custom base URL." in refused.content.decode()
    server = MCPServer.objects.get(team=team)
    assert (server.transport, server.stdio_key, server.url) == ("stdio", "tests", "")
    assert "Added local tools and imported 8 tools." in added.content.decode()


def test_a_stdio_server_is_only_picked_from_the_administrators_list(client: Client, alice: User, team: Team) -> None:
    client = signed_in(client, alice, team)

    page = client.get(reverse("mcp-server-create") + "?transport=stdio").content.decode()
    unknown = client.post(reverse("mcp-server-create"), stdio_form("rm -rf /", command="touch /tmp/owned"))

    assert '<option value="tests">tests</option>' in page and '<option value="malformed">' in page
    assert 'name="command"' not in page  # there is nothing to type a command into
    assert "Select a valid choice. rm -rf / is not one of the available choices." in unknown.content.decode()
    assert not MCPServer.objects.exists()


def test_a_misconfigured_stdio_entry_is_refused_with_the_reason(
    client: Client, alice: User, team: Team, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_MCP_STDIO_SERVERS = {"broken": {"command": "not a list"}}

    response = signed_in(client, alice, team).post(reverse("mcp-server-create"), stdio_form("broken"))

    assert "misconfigured: &quot;command&quot; must be a list of strings." in response.content.decode()
    assert not MCPServer.objects.exists()


def test_sync_rerenders_the_row_with_what_was_added_updated_and_removed(
    client: Client, alice: User, team: Team
) -> None:
    client = signed_in(client, alice, team)
    server = make_server(team)
    first = client.post(reverse("mcp-server-sync", args=[server.pk]), **HTMX).content.decode()
    # The administrator points the same key at the server's second version: echo changed, crash gone, fresh new.
    MCPServer.objects.filter(pk=server.pk).update(stdio_key="tests-v2")

    response = client.post(reverse("mcp-server-sync", args=[server.pk]), **HTMX)

    assert "<strong>8 added</strong>" in first
    html = response.content.decode()
    assert html.strip().startswith(f'<tbody class="mcp-server" id="mcp-server-{server.pk}">')
    assert 'data-testid="mcp-server-row"' in html and "<html" not in html
    assert '<strong>1 added</strong> <span class="mono">(fresh)</span>' in html
    assert '<strong>1 updated</strong> <span class="mono">(echo)</span>' in html
    assert '<strong>1 removed</strong> <span class="mono">(crash)</span>' in html
    assert "6 unchanged" in html
    assert "8 tools" in html and "1 removed</span>" in html
    assert (
        'is-removed" href="/tools/' in html
        and '<span class="mcp-chip-name">crash</span> <span class="mcp-chip-note">removed</span>' in html
    )
    assert Tool.objects.get(mcp_server=server, mcp_tool="crash").mcp_removed_at is not None


def test_a_failed_sync_shows_the_error_in_the_row_and_keeps_the_tools(
    client: Client, alice: User, team: Team, settings: SettingsWrapper
) -> None:
    client = signed_in(client, alice, team)
    server = make_server(team)
    client.post(reverse("mcp-server-sync", args=[server.pk]), **HTMX)
    settings.CROSSWIRE_MCP_STDIO_SERVERS = {}

    html = client.post(reverse("mcp-server-sync", args=[server.pk]), **HTMX).content.decode()

    assert "Sync failed" in html and "No stdio MCP server named &#x27;tests&#x27; is configured" in html
    assert Tool.objects.filter(mcp_server=server, mcp_removed_at=None).count() == 8
    assert "No stdio MCP server named" in MCPServer.objects.get(pk=server.pk).last_error


def test_delete_keeps_the_tools_unless_asked_to_take_them(client: Client, alice: User, team: Team) -> None:
    client = signed_in(client, alice, team)
    kept, taken = make_server(team, "kept"), make_server(team, "taken")
    for server in (kept, taken):
        client.post(reverse("mcp-server-sync", args=[server.pk]), **HTMX)

    row = client.post(reverse("mcp-server-delete", args=[kept.pk]), **HTMX)
    page = client.post(reverse("mcp-server-delete", args=[taken.pk]), {"with_tools": "1"}, follow=True)

    assert row.status_code == 200 and row.content == b""
    assert "Deleted taken and its 8 tools." in page.content.decode()
    assert not MCPServer.objects.exists()
    # The first server's tools stay, unanswerable; the second's went with it (they were named echo_mcp, ...).
    assert Tool.objects.filter(team=team, mode="mcp").count() == 8
    assert set(Tool.objects.filter(team=team).values_list("mcp_tool", flat=True)) == V1_TOOLS


def test_another_teams_server_is_404_for_every_action(client: Client, alice: User, bob: User, team: Team) -> None:
    theirs = make_server(access.ensure_personal_team(bob), "bob's server")
    client = signed_in(client, alice, team)

    for name in ("mcp-server-edit", "mcp-server-sync", "mcp-server-delete"):
        assert client.post(reverse(name, args=[theirs.pk])).status_code == 404
    assert "bob&#x27;s server" not in client.get(reverse("mcp-servers")).content.decode()
    assert MCPServer.objects.filter(pk=theirs.pk).exists()


def test_a_viewer_sees_the_list_and_cannot_change_anything(client: Client, carol: User, team: Team) -> None:
    server = make_server(team)
    client = signed_in(client, carol, team)

    html = client.get(reverse("mcp-servers")).content.decode()

    assert 'data-testid="mcp-server-row"' in html and "read-only" in html
    assert 'data-testid="mcp-add"' not in html and 'data-testid="mcp-sync"' not in html
    assert client.get(reverse("mcp-server-create")).status_code == 403
    assert client.post(reverse("mcp-server-create"), stdio_form(name="mine")).status_code == 403
    assert client.post(reverse("mcp-server-edit", args=[server.pk]), stdio_form()).status_code == 403
    assert client.post(reverse("mcp-server-sync", args=[server.pk])).status_code == 403
    assert client.post(reverse("mcp-server-delete", args=[server.pk])).status_code == 403
    assert MCPServer.objects.filter(team=team).count() == 1 and not Tool.objects.exists()


def test_editing_keeps_the_stored_auth_value_when_left_empty(
    client: Client, alice: User, team: Team, http_server: HttpServer
) -> None:
    client = signed_in(client, alice, team)
    client.post(reverse("mcp-server-create"), http_form(http_server.url))
    server = MCPServer.objects.get(team=team)

    response = client.post(
        reverse("mcp-server-edit", args=[server.pk]), http_form(http_server.url, name="renamed", auth_header_value="")
    )

    assert response.status_code == 302
    server.refresh_from_db()
    assert server.name == "renamed" and crypto.decrypt(server.auth_header_encrypted) == AUTH_VALUE


def test_the_pages_need_a_login(client: Client) -> None:
    for url in (reverse("mcp-servers"), reverse("mcp-server-create")):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_the_tools_list_names_the_server_that_answers_each_imported_tool(
    client: Client, alice: User, team: Team
) -> None:
    client = signed_in(client, alice, team)
    server = make_server(team)
    client.post(reverse("mcp-server-sync", args=[server.pk]), **HTMX)
    Tool.objects.filter(mcp_server=server, mcp_tool="crash").update(mcp_removed_at=server.created_at)

    html = client.get(reverse("tools")).content.decode()

    assert html.count(">MCP: local tools</a>") == 8
    assert html.count('title="The server no longer lists this tool">removed</span>') == 1
