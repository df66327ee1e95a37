"""Who may do what, everywhere: every URL and every socket action, tried as anonymous, outsider, viewer, editor and
owner, against the table in docs/teams.md.

The routes are read from the URL configuration itself (``get_resolver()``) and the socket routes from
``playground.routing``: a route added later without a row here fails ``test_every_route_has_a_row``. The review
URLs have their rows in tests/review/test_roles.py, which this test counts as theirs.

An outcome is the HTTP status, with where a redirect goes (ids written N, the query left out): ``302 /login/`` is
the sign-in for anonymous visitors, ``404`` what people outside the team get for its objects, ``403`` a member whose
role does not allow it. Pages of "the current team" (lists, new-object forms) show an outsider their own team, where
they are owner: that is by design, and the row says so. Where the status alone cannot tell (the Team page answers a
refused change with a redirect and an error message), the row checks the effect and the outcome ends in ``done``
when the action changed the team; the same status without ``done`` means it was refused and nothing changed.

Socket outcomes: ``refused`` at the handshake, or the frames an action got back before the ``pong`` of a ping sent
after it (``nothing`` when none), each as ``type`` or ``error: <message>``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import count
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve

from playground.asgi import application
from playground.compare.models import Comparison
from playground.compare.service import create_comparison
from playground.conversations.models import Conversation
from playground.demo.catalog import load_simulated_endpoints
from playground.endpoints.models import Endpoint
from playground.mcp.models import MCPServer
from playground.routing import websocket_urlpatterns
from playground.teams import access
from playground.teams.models import Invitation, Membership, Role, Team
from playground.tools.models import Tool
from tests.compare.conftest import plan
from tests.conftest import ALLOWED_HOST, ALLOWED_ORIGIN
from tests.endpoints.support import form_data, make_endpoint, unreachable_url
from tests.mcp.support import STDIO_SERVERS
from tests.project import mcp_rows
from tests.review import test_roles as review_roles
from tests.review.conftest import build_conversation

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.db.models import QuerySet
    from django.http import HttpResponse
    from pytest_django.fixtures import SettingsWrapper

ROLES = ("anonymous", "outsider", "viewer", "editor", "owner")

LOGIN, OK, DENIED, NOT_FOUND = "302 /login/", "200", "403", "404"
MEMBERS = (LOGIN, NOT_FOUND, OK, OK, OK)  # reading one of the team's objects
EDITORS = (LOGIN, NOT_FOUND, DENIED, OK, OK)  # changing or running one of them
# A page of the current team: an outsider is shown their own team's, where they are owner.
CURRENT_TEAM = (LOGIN, OK, OK, OK, OK)
CURRENT_TEAM_EDITORS = (LOGIN, OK, DENIED, OK, OK)
ADMIN_ONLY = ("302 /admin/login/",) * 5  # none of the five is staff: Django's admin sends them to its own sign-in

WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
_serial = count()


def _unique(prefix: str) -> str:
    return f"{prefix}{next(_serial)}"


# --- the world every row acts in -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class World:
    """The team "Evals" (alice owns it, bob edits, carol views) and its objects; mallory owns another team; gus owns
    a third, "Guild", whose invitations go to whoever a row needs."""

    team: Team
    people: dict[str, User | None]
    outsiders_team: Team
    gus: User
    guild: Team
    guild_endpoint: Endpoint  # at a port nobody serves, should anything ever try to use it
    conversation: Conversation
    comparison: Comparison | None = None

    def current_team_of(self, user: User) -> Team:
        return self.outsiders_team if user == self.people["outsider"] else self.team

    # Fresh objects, so a row that deletes or changes one does not affect the next role's try.

    def tool(self) -> Tool:
        return Tool.objects.create(team=self.team, name=_unique("tool_"), parameters=WEATHER)

    def endpoint(self, **fields: Any) -> Endpoint:
        return make_endpoint(self.team, name=_unique("Local "), **fields)

    def builtin_endpoint(self) -> Endpoint:
        return Endpoint.objects.filter(team__isnull=True).order_by("pk").first()  # type: ignore[return-value]

    def newcomer(self) -> Membership:
        """A fresh viewer of the team, for the rows that change or remove a member."""
        from django.contrib.auth import get_user_model

        user = get_user_model().objects.create_user(_unique("member"))
        return Membership.objects.create(user=user, team=self.team, role=Role.VIEWER)

    def pending_invitation(self) -> Invitation:
        return Invitation.objects.create(team=self.team, username=_unique("invitee"), role=Role.VIEWER)

    def guild_invitation(self, user: User | None) -> Invitation:
        """An invitation to Guild addressed to ``user`` (to nobody in particular for anonymous visitors)."""
        username = user.get_username() if user is not None else _unique("someone")
        return Invitation.objects.create(team=self.guild, username=username, role=Role.VIEWER, invited_by=self.gus)


@pytest.fixture
def cast(team: Team, alice: User, bob: User, carol: User, django_user_model: type[User]) -> World:
    mallory = django_user_model.objects.create_user("mallory")
    gus = django_user_model.objects.create_user("gus")
    people: dict[str, User | None] = {
        "anonymous": None,
        "outsider": mallory,
        "viewer": carol,
        "editor": bob,
        "owner": alice,
    }
    guild = access.create_team(name="Guild", owner=gus)
    return World(
        team=team,
        people=people,
        outsiders_team=access.create_team(name="Elsewhere", owner=mallory),
        gus=gus,
        guild=guild,
        guild_endpoint=make_endpoint(guild, name="Guild's own", base_url=unreachable_url()),
        conversation=build_conversation(team, alice),
    )


@pytest.fixture(autouse=True)
def stdio_servers(settings: SettingsWrapper) -> None:
    """The stdio MCP servers as the administrator would list them (tests/mcp/support.py's, which run offline)."""
    settings.CROSSWIRE_MCP_STDIO_SERVERS = STDIO_SERVERS


@pytest.fixture
def world(cast: World) -> World:
    endpoints = {e.name: e.pk for e in load_simulated_endpoints()}
    columns = [(endpoints["Simulated OpenAI"], "sim-1"), (endpoints["Simulated Anthropic"], "sim-1")]
    for name in ("get_weather", "calculator"):
        Tool.objects.create(team=cast.team, name=name, parameters=WEATHER)
    comparison = create_comparison(cast.team, cast.people["owner"], plan(columns))
    return replace(cast, comparison=comparison)


def signed_in(world: World, user: User | None) -> Client:
    """A client of its own, signed in with the row's team as the current one (the outsider's: their own)."""
    client = Client()
    if user is not None:
        client.force_login(user)
        session = client.session
        session[access.CURRENT_TEAM_SESSION_KEY] = world.current_team_of(user).pk
        session.save()
    return client


# --- HTTP rows ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    data: dict[str, Any] = field(default_factory=dict)
    done: Callable[[], bool] | None = None  # whether the action took effect, for rows whose status cannot say


Build = Callable[[World, "User | None"], Request]


@dataclass(frozen=True)
class Case:
    what: str
    route: str  # the URL name the request must resolve to ("admin" for anything in Django's admin)
    request: Build
    expected: tuple[str, ...]  # anonymous, outsider, viewer, editor, owner


def get(path: Callable[[World], str]) -> Build:
    return lambda world, user: Request("GET", path(world))


def post(path: Callable[[World], str], data: Callable[[World], dict[str, Any]] | None = None) -> Build:
    return lambda world, user: Request("POST", path(world), data(world) if data else {})


def _conversation(w: World) -> str:
    return f"/c/{w.conversation.pk}"


def _comparison(w: World) -> str:
    assert w.comparison is not None
    return f"/compare/{w.comparison.pk}"


# Each builder below makes what it acts on and says how to tell that the action happened.


def exists(rows: QuerySet[Any]) -> Callable[[], bool]:
    return rows.exists


def gone(rows: QuerySet[Any]) -> Callable[[], bool]:
    return lambda: not rows.exists()


def grew(rows: QuerySet[Any]) -> Callable[[], bool]:
    before = rows.count()
    return lambda: rows.count() > before


def _new_chat(w: World, user: User | None) -> Request:
    return Request("POST", "/c/new/", done=grew(Conversation.objects.filter(team=w.team)))


def _import_conversation(w: World, user: User | None) -> Request:
    text = json.dumps({"model": "sim-1", "messages": [{"role": "user", "content": "imported"}]})
    data = {"format": "openai-chat", "text": text}
    return Request("POST", "/conversations/import/", data, grew(Conversation.objects.filter(team=w.team)))


def _fork(w: World, user: User | None) -> Request:
    path = f"/conversations/{w.conversation.pk}/fork/"
    return Request("POST", path, {"position": "0"}, grew(Conversation.objects.filter(team=w.team)))


def _compare_elsewhere(w: World, user: User | None) -> Request:
    """A plan valid in every way but its endpoint, which belongs to Guild: refused, so no comparison is made."""
    data = {"text": "hi", "col-0-endpoint_id": str(w.guild_endpoint.pk), "col-0-model": "m"}
    return Request("POST", "/compare/run/", data, grew(Comparison.objects.all()))


def _tool_form(name: str, description: str) -> dict[str, str]:
    return {"name": name, "description": description, "parameters": json.dumps(WEATHER), "mode": "manual"}


def _tool_new(w: World, user: User | None) -> Request:
    name = _unique("made_")
    return Request("POST", "/tools/new/", _tool_form(name, "Made."), exists(w.team.tools.filter(name=name)))


def _tool_edit(w: World, user: User | None) -> Request:
    tool = w.tool()
    done = exists(Tool.objects.filter(pk=tool.pk, description="Edited."))
    return Request("POST", f"/tools/{tool.pk}/", _tool_form(tool.name, "Edited."), done)


def _tool_duplicate(w: World, user: User | None) -> Request:
    tool = w.tool()
    return Request("POST", f"/tools/{tool.pk}/duplicate/", done=exists(w.team.tools.filter(name=f"{tool.name}_copy")))


def _tool_delete(w: World, user: User | None) -> Request:
    tool = w.tool()
    return Request("POST", f"/tools/{tool.pk}/delete/", done=gone(Tool.objects.filter(pk=tool.pk)))


def _tool_import(w: World, user: User | None) -> Request:
    name = _unique("imported_")
    text = json.dumps([{"type": "function", "function": {"name": name, "parameters": WEATHER}}])
    data = {"format": "auto", "on_conflict": "skip", "text": text}
    return Request("POST", "/tools/import/apply/", data, exists(w.team.tools.filter(name=name)))


def _editing_a_team_tool(path: str, **fields: str) -> Build:
    """An editor helper posted from the edit page of one of the team's tools (its hidden ``tool_id``)."""
    return lambda w, user: Request("POST", path, {"tool_id": str(w.tool().pk), **fields})


def _endpoint_create(custom: bool) -> Build:
    def build(w: World, user: User | None) -> Request:
        name = _unique("Endpoint ")
        if custom:
            data = form_data(name=name, base_url="http://gpu:8000/v1")
        else:
            data = form_data(kind="openai", name=name, base_url="https://api.openai.com/v1", api_key="sk-test-12345678")
        return Request("POST", "/providers/new/", data, exists(Endpoint.objects.filter(team=w.team, name=name)))

    return build


def _endpoint_edit(base_url: str | None) -> Build:
    """Rename a team endpoint, keeping its custom base URL (None) or moving it to ``base_url``."""

    def build(w: World, user: User | None) -> Request:
        endpoint = w.endpoint()
        name = _unique("Renamed ")
        data = form_data(name=name, base_url=base_url or endpoint.base_url)
        return Request("POST", f"/providers/{endpoint.pk}/edit/", data, exists(Endpoint.objects.filter(name=name)))

    return build


def _endpoint_delete(w: World, user: User | None) -> Request:
    endpoint = w.endpoint()
    return Request("POST", f"/providers/{endpoint.pk}/delete/", done=gone(Endpoint.objects.filter(pk=endpoint.pk)))


def _delete_builtin(w: World, user: User | None) -> Request:
    endpoint = w.builtin_endpoint()
    return Request("POST", f"/providers/{endpoint.pk}/delete/", done=gone(Endpoint.objects.filter(pk=endpoint.pk)))


def _unreachable_endpoint(action: str) -> Build:
    """Test or fetch the models of an endpoint at a local port nobody serves: refused at once, nothing leaves."""
    return lambda w, user: Request("POST", f"/providers/{w.endpoint(base_url=unreachable_url()).pk}/{action}/")


def _team_create(w: World, user: User | None) -> Request:
    name = _unique("New team ")
    done = exists(Team.objects.filter(name=name, memberships__user=user, memberships__role=Role.OWNER))
    return Request("POST", "/team/new/", {"name": name}, done)


def _invite(w: World, user: User | None) -> Request:
    username = _unique("newcomer")
    done = exists(Invitation.objects.filter(team=w.team, username=username))
    return Request("POST", "/team/invitations/new/", {"username": username, "role": Role.EDITOR}, done)


def _revoke_invitation(w: World, user: User | None) -> Request:
    invitation = w.pending_invitation()
    return Request(
        "POST", f"/team/invitations/{invitation.pk}/revoke/", done=gone(Invitation.objects.filter(pk=invitation.pk))
    )


def _answer_invitation(answer: str, *, own: bool) -> Build:
    """Accept or decline an invitation to Guild addressed to the one who answers (``own``) or to somebody else."""

    def build(w: World, user: User | None) -> Request:
        invitation = w.guild_invitation(user if own else None)
        if answer == "accept":
            done = exists(Membership.objects.filter(user=user, team=w.guild))
        else:
            done = gone(Invitation.objects.filter(pk=invitation.pk))
        return Request("POST", f"/team/invitations/{invitation.pk}/{answer}/", done=done)

    return build


def _change_role(w: World, user: User | None) -> Request:
    membership = w.newcomer()
    done = exists(Membership.objects.filter(pk=membership.pk, role=Role.EDITOR))
    return Request("POST", f"/team/members/{membership.pk}/role/", {"role": Role.EDITOR}, done)


def _remove_member(w: World, user: User | None) -> Request:
    membership = w.newcomer()
    done = gone(Membership.objects.filter(pk=membership.pk))
    return Request("POST", f"/team/members/{membership.pk}/remove/", done=done)


def _leave_team(w: World, user: User | None) -> Request:
    """Leave the team: ``done`` when one's membership went (only a member has one to lose)."""
    rows = Membership.objects.filter(team=w.team, user=user)
    done = gone(rows) if user is not None and rows.exists() else None
    return Request("POST", f"/team/{w.team.pk}/leave/", done=done)


def _mcp_create(transport: str) -> Build:
    """Add a stdio server (a key the administrator set up) or one at a URL, saved without contacting it."""

    def build(w: World, user: User | None) -> Request:
        name = _unique("server ")
        data = mcp_rows.stdio_form(name) if transport == "stdio" else mcp_rows.http_form(name, mcp_rows.MCP_URL)
        return Request("POST", "/mcp/new/", data, exists(MCPServer.objects.filter(team=w.team, name=name)))

    return build


def _mcp_edit(url: str | None) -> Build:
    """Rename a stdio server (None), or a server at ``MCP_URL`` giving it ``url``: saved without contacting it."""

    def build(w: World, user: User | None) -> Request:
        name = _unique("renamed ")
        if url is None:
            server, data = mcp_rows.stdio_server(w.team, _unique("server ")), mcp_rows.stdio_form(name)
        else:
            server, data = mcp_rows.http_server(w.team, _unique("server ")), mcp_rows.http_form(name, url)
        return Request("POST", f"/mcp/{server.pk}/edit/", data, exists(MCPServer.objects.filter(name=name)))

    return build


def _mcp_sync(w: World, user: User | None) -> Request:
    """Sync the team's stdio test server: a local process lists its tools and the team's library gets them."""
    server = mcp_rows.stdio_server(w.team, _unique("server "))
    return Request("POST", f"/mcp/{server.pk}/sync/", done=exists(Tool.objects.filter(mcp_server=server)))


def _mcp_delete(w: World, user: User | None) -> Request:
    server = mcp_rows.stdio_server(w.team, _unique("server "))
    return Request("POST", f"/mcp/{server.pk}/delete/", done=gone(MCPServer.objects.filter(pk=server.pk)))


def _mcp_server(w: World) -> str:
    return f"/mcp/{mcp_rows.stdio_server(w.team, _unique('server ')).pk}"


TO_CHAT, TO_TEAM, TO_TOOLS, TO_PROVIDERS = "302 /c/N/", "302 /team/", "302 /tools/", "302 /providers/"
TO_MCP = "302 /mcp/"

CASES: list[Case] = [
    # Playground
    Case(
        "open the playground",
        "playground",
        get(lambda w: "/"),
        # A viewer, who cannot start chats, is sent to the team's conversations; the others to a ready draft.
        (LOGIN, TO_CHAT, "302 /conversations/", TO_CHAT, TO_CHAT),
    ),
    Case(
        "start a new chat",
        "chat-new",
        _new_chat,
        (LOGIN, TO_CHAT, DENIED, f"{TO_CHAT} done", f"{TO_CHAT} done"),  # the outsider's lands in their own team
    ),
    Case("open a conversation", "chat", get(lambda w: f"{_conversation(w)}/"), MEMBERS),
    Case("fetch its transcript", "chat-transcript", get(lambda w: f"{_conversation(w)}/transcript/"), MEMBERS),
    Case("fetch its panes", "chat-panes", get(lambda w: f"{_conversation(w)}/panes/"), MEMBERS),
    Case(
        "fetch a round trip's raw events",
        "chat-wire-events",
        get(lambda w: f"{_conversation(w)}/round-trips/0/events/"),
        MEMBERS,
    ),
    Case(
        "unfold a round trip's panes",
        "chat-round-trip",
        get(lambda w: f"{_conversation(w)}/round-trips/0/panes/"),
        MEMBERS,
    ),
    Case(
        "copy a round trip's request as curl",
        "chat-round-trip-copy",
        get(lambda w: f"{_conversation(w)}/round-trips/0/copy/curl/"),
        MEMBERS,
    ),
    Case(
        "save a chat's settings",
        "chat-settings-save",
        post(lambda w: f"{_conversation(w)}/settings/"),
        # Editors are let through, then told the (empty) settings are not valid: nothing is saved.
        (LOGIN, NOT_FOUND, DENIED, OK, OK),
    ),
    Case(
        "reset a chat's settings",
        "chat-settings-reset",
        post(lambda w: f"{_conversation(w)}/settings/reset/"),
        (LOGIN, NOT_FOUND, DENIED, TO_CHAT, TO_CHAT),
    ),
    Case(
        "retry from here (plain form)",
        "chat-retry",
        post(lambda w: f"{_conversation(w)}/retry/"),
        # Editors are let through, then told there is nothing to retry (the conversation has no settings): no run.
        (LOGIN, NOT_FOUND, DENIED, TO_CHAT, TO_CHAT),
    ),
    # Conversations
    Case("list the conversations", "conversations", get(lambda w: "/conversations/"), CURRENT_TEAM),
    Case(
        "export as Crosswire JSON",
        "conversation-export-json",
        get(lambda w: f"/conversations/{w.conversation.pk}/export/json/"),
        MEMBERS,
    ),
    Case(
        "export as Markdown",
        "conversation-export-markdown",
        get(lambda w: f"/conversations/{w.conversation.pk}/export/markdown/"),
        MEMBERS,
    ),
    Case(
        "export as OpenTelemetry",
        "conversation-export-otel",
        get(lambda w: f"/conversations/{w.conversation.pk}/export/otel/"),
        MEMBERS,
    ),
    Case(
        "export a round trip's wire request",
        "conversation-export-wire",
        get(lambda w: f"/conversations/{w.conversation.pk}/export/round-trips/0/wire/"),
        MEMBERS,
    ),
    Case(
        "open the Export menu",
        "conversation-export-menu",
        get(lambda w: f"/conversations/{w.conversation.pk}/export/menu/"),
        MEMBERS,
    ),
    Case(
        "open the Fork menu",
        "conversation-fork-menu",
        get(lambda w: f"/conversations/{w.conversation.pk}/fork/menu/"),
        EDITORS,
    ),
    Case(
        "fork a conversation",
        "conversation-fork",
        _fork,
        (LOGIN, NOT_FOUND, DENIED, f"{TO_CHAT} done", f"{TO_CHAT} done"),
    ),
    Case("open the import page", "conversation-import", get(lambda w: "/conversations/import/"), CURRENT_TEAM_EDITORS),
    Case(
        "import a conversation",
        "conversation-import",
        _import_conversation,
        (LOGIN, TO_CHAT, DENIED, f"{TO_CHAT} done", f"{TO_CHAT} done"),  # the outsider's goes to their own team
    ),
    # Tools
    Case("list the tools", "tools", get(lambda w: "/tools/"), CURRENT_TEAM),
    Case("export the tools", "tool-export", get(lambda w: "/tools/export/?format=openai"), CURRENT_TEAM),
    Case("open a tool (read-only for viewers)", "tool-edit", get(lambda w: f"/tools/{w.tool().pk}/"), MEMBERS),
    Case("open the new-tool form", "tool-new", get(lambda w: "/tools/new/"), CURRENT_TEAM_EDITORS),
    Case(
        "create a tool",
        "tool-new",
        _tool_new,
        (LOGIN, TO_TOOLS, DENIED, f"{TO_TOOLS} done", f"{TO_TOOLS} done"),  # the outsider's: in their own team
    ),
    Case("edit a tool", "tool-edit", _tool_edit, (LOGIN, NOT_FOUND, DENIED, f"{TO_TOOLS} done", f"{TO_TOOLS} done")),
    Case(
        "duplicate a tool",
        "tool-duplicate",
        _tool_duplicate,
        (LOGIN, NOT_FOUND, DENIED, f"{TO_TOOLS} done", f"{TO_TOOLS} done"),
    ),
    Case(
        "delete a tool",
        "tool-delete",
        _tool_delete,
        (LOGIN, NOT_FOUND, DENIED, f"{TO_TOOLS} done", f"{TO_TOOLS} done"),
    ),
    Case(
        "check a name while editing a tool",
        "tool-validate-name",
        _editing_a_team_tool("/tools/check/name/", name="fresh_name"),
        EDITORS,
    ),
    Case(
        "check a schema",
        "tool-validate-schema",
        post(lambda w: "/tools/check/schema/", lambda w: {"parameters": json.dumps(WEATHER)}),
        CURRENT_TEAM_EDITORS,
    ),
    Case(
        "fill the schema from a template while editing a tool",
        "tool-fill-template",
        _editing_a_team_tool("/tools/fill/template/weather/"),
        EDITORS,
    ),
    Case(
        "fill the schema from an example while editing a tool",
        "tool-fill-example",
        _editing_a_team_tool("/tools/fill/example/", example='{"city": "Oslo"}'),
        EDITORS,
    ),
    Case(
        "fill in a built-in while editing a tool",
        "tool-fill-builtin",
        _editing_a_team_tool("/tools/fill/builtin/", builtin="calculator"),
        EDITORS,
    ),
    Case(
        "offer a built-in",
        "tool-builtin-offer",
        get(lambda w: "/tools/builtin-offer/?builtin=calculator"),
        CURRENT_TEAM_EDITORS,
    ),
    Case("open the import page", "tool-import", get(lambda w: "/tools/import/"), CURRENT_TEAM_EDITORS),
    Case(
        "preview an import",
        "tool-import-preview",
        post(lambda w: "/tools/import/preview/", lambda w: {"format": "auto", "on_conflict": "skip", "text": "[]"}),
        CURRENT_TEAM_EDITORS,
    ),
    Case(
        "import tools",
        "tool-import-apply",
        _tool_import,
        (LOGIN, TO_TOOLS, DENIED, f"{TO_TOOLS} done", f"{TO_TOOLS} done"),  # the outsider's: their own team
    ),
    # Compare
    Case("open Compare", "compare", get(lambda w: "/compare/"), CURRENT_TEAM),
    Case(
        "run a comparison on another team's endpoint",
        "compare-run",
        _compare_elsewhere,
        (LOGIN, "400", DENIED, "400", "400"),  # refused before anything runs, whoever asks
    ),
    Case("open a comparison", "comparison", get(lambda w: f"{_comparison(w)}/"), MEMBERS),
    Case("fetch its results", "comparison-results", get(lambda w: f"{_comparison(w)}/results/"), MEMBERS),
    Case("fetch one column", "comparison-column", get(lambda w: f"{_comparison(w)}/column/0/"), MEMBERS),
    Case("fetch the diff", "comparison-diff", get(lambda w: f"{_comparison(w)}/diff/"), MEMBERS),
    Case(
        "stop one column of a comparison",
        "comparison-column-stop",
        post(lambda w: f"{_comparison(w)}/column/0/stop/"),
        (LOGIN, NOT_FOUND, DENIED, "204", "204"),
    ),
    Case(
        "stop a comparison",
        "comparison-stop",
        post(lambda w: f"{_comparison(w)}/stop/"),
        (LOGIN, NOT_FOUND, DENIED, "302 /compare/N/", "302 /compare/N/"),
    ),
    Case(
        "replay a conversation on another team's endpoint",
        "replay",
        post(
            lambda w: f"/compare/replay/{w.conversation.pk}/",
            lambda w: {"endpoint_id": str(w.guild_endpoint.pk), "model": "m", "from_position": "0"},
        ),
        # Editors are let through, then sent back to the conversation: that endpoint is not the team's. Nothing runs.
        (LOGIN, NOT_FOUND, DENIED, TO_CHAT, TO_CHAT),
    ),
    Case(
        "list the messages a replay may start from",
        "replay-menu",
        get(lambda w: f"/compare/replay/{w.conversation.pk}/menu/"),
        EDITORS,
    ),
    # Providers
    Case("list the endpoints", "providers", get(lambda w: "/providers/"), CURRENT_TEAM),
    Case("open the new-endpoint form", "endpoint-create", get(lambda w: "/providers/new/"), CURRENT_TEAM_EDITORS),
    Case(
        "add an official-API endpoint",
        "endpoint-create",
        _endpoint_create(custom=False),
        (LOGIN, TO_PROVIDERS, DENIED, f"{TO_PROVIDERS} done", f"{TO_PROVIDERS} done"),
    ),
    Case(
        "add an endpoint with a custom base URL",
        "endpoint-create",
        _endpoint_create(custom=True),
        # The editor gets the form back, saying only owners may; the outsider owns their own team.
        (LOGIN, TO_PROVIDERS, DENIED, OK, f"{TO_PROVIDERS} done"),
    ),
    Case(
        "open an endpoint's edit form", "endpoint-edit", get(lambda w: f"/providers/{w.endpoint().pk}/edit/"), EDITORS
    ),
    Case(
        "edit an endpoint, keeping its custom base URL",
        "endpoint-edit",
        _endpoint_edit(None),
        (LOGIN, NOT_FOUND, DENIED, f"{TO_PROVIDERS} done", f"{TO_PROVIDERS} done"),
    ),
    Case(
        "edit an endpoint, moving its custom base URL",
        "endpoint-edit",
        _endpoint_edit("http://other-gpu:8000/v1"),
        (LOGIN, NOT_FOUND, DENIED, OK, f"{TO_PROVIDERS} done"),
    ),
    Case(
        "edit a built-in simulator endpoint",
        "endpoint-edit",
        get(lambda w: f"/providers/{w.builtin_endpoint().pk}/edit/"),
        (LOGIN, DENIED, DENIED, DENIED, DENIED),  # every team sees them; nobody changes them
    ),
    Case(
        "delete a built-in simulator endpoint",
        "endpoint-delete",
        _delete_builtin,
        (LOGIN, DENIED, DENIED, DENIED, DENIED),
    ),
    Case(
        "delete an endpoint",
        "endpoint-delete",
        _endpoint_delete,
        (LOGIN, NOT_FOUND, DENIED, f"{TO_PROVIDERS} done", f"{TO_PROVIDERS} done"),
    ),
    Case(
        "test an endpoint",
        "endpoint-test",
        _unreachable_endpoint("test"),
        (LOGIN, NOT_FOUND, DENIED, TO_PROVIDERS, TO_PROVIDERS),
    ),
    Case(
        "fetch an endpoint's models",
        "endpoint-fetch-models",
        _unreachable_endpoint("models"),
        (LOGIN, NOT_FOUND, DENIED, TO_PROVIDERS, TO_PROVIDERS),
    ),
    Case(
        "fetch a built-in endpoint's models",
        "endpoint-fetch-models",
        post(lambda w: f"/providers/{w.builtin_endpoint().pk}/models/"),
        (LOGIN, DENIED, DENIED, DENIED, DENIED),
    ),
    # MCP servers
    Case("list the MCP servers", "mcp-servers", get(lambda w: "/mcp/"), CURRENT_TEAM),
    Case("open the new-MCP-server form", "mcp-server-create", get(lambda w: "/mcp/new/"), CURRENT_TEAM_EDITORS),
    Case(
        "add a stdio MCP server",
        "mcp-server-create",
        _mcp_create("stdio"),
        (LOGIN, TO_MCP, DENIED, f"{TO_MCP} done", f"{TO_MCP} done"),  # the outsider's: in their own team
    ),
    Case(
        "add an MCP server at a URL",
        "mcp-server-create",
        _mcp_create("http"),
        # Every MCP URL is a custom one: the editor gets the form back, saying only owners may.
        (LOGIN, TO_MCP, DENIED, OK, f"{TO_MCP} done"),
    ),
    Case("open an MCP server's edit form", "mcp-server-edit", get(lambda w: f"{_mcp_server(w)}/edit/"), EDITORS),
    Case(
        "edit a stdio MCP server",
        "mcp-server-edit",
        _mcp_edit(None),
        (LOGIN, NOT_FOUND, DENIED, f"{TO_MCP} done", f"{TO_MCP} done"),
    ),
    Case(
        "edit an MCP server, keeping its URL",
        "mcp-server-edit",
        _mcp_edit(mcp_rows.MCP_URL),
        (LOGIN, NOT_FOUND, DENIED, f"{TO_MCP} done", f"{TO_MCP} done"),
    ),
    Case(
        "edit an MCP server, moving its URL",
        "mcp-server-edit",
        _mcp_edit("http://other-mcp-host:8000/mcp"),
        (LOGIN, NOT_FOUND, DENIED, OK, f"{TO_MCP} done"),
    ),
    Case(
        "sync an MCP server",
        "mcp-server-sync",
        _mcp_sync,
        (LOGIN, NOT_FOUND, DENIED, f"{TO_MCP} done", f"{TO_MCP} done"),
    ),
    Case(
        "delete an MCP server",
        "mcp-server-delete",
        _mcp_delete,
        (LOGIN, NOT_FOUND, DENIED, f"{TO_MCP} done", f"{TO_MCP} done"),
    ),
    # Team
    Case("open the Team page", "team", get(lambda w: "/team/"), CURRENT_TEAM),
    Case(
        "create a team of one's own",
        "team-create",
        _team_create,
        (LOGIN, f"{TO_TEAM} done", f"{TO_TEAM} done", f"{TO_TEAM} done", f"{TO_TEAM} done"),
    ),
    Case(
        "switch to the team",
        "team-switch",
        post(lambda w: "/team/switch/", lambda w: {"team": str(w.team.pk)}),
        (LOGIN, NOT_FOUND, "302 /", "302 /", "302 /"),
    ),
    Case(
        "invite someone",
        "team-invite",
        _invite,
        # Refused members get the Team page back with the reason; the outsider invites to their own team.
        (LOGIN, TO_TEAM, TO_TEAM, TO_TEAM, f"{TO_TEAM} done"),
    ),
    Case(
        "withdraw an invitation",
        "team-invitation-revoke",
        _revoke_invitation,
        (LOGIN, NOT_FOUND, TO_TEAM, TO_TEAM, f"{TO_TEAM} done"),
    ),
    Case(
        "change a member's role",
        "team-change-role",
        _change_role,
        (LOGIN, NOT_FOUND, TO_TEAM, TO_TEAM, f"{TO_TEAM} done"),
    ),
    Case(
        "remove a member",
        "team-remove-member",
        _remove_member,
        (LOGIN, NOT_FOUND, TO_TEAM, TO_TEAM, f"{TO_TEAM} done"),
    ),
    Case(
        "leave the team",
        "team-leave",
        _leave_team,
        # Any member may leave; the owner here is the team's only one, refused with the reason on the Team page.
        (LOGIN, NOT_FOUND, "302 / done", "302 / done", TO_TEAM),
    ),
    Case(
        "accept one's own invitation",
        "invitation-accept",
        _answer_invitation("accept", own=True),
        (LOGIN, f"{TO_TEAM} done", f"{TO_TEAM} done", f"{TO_TEAM} done", f"{TO_TEAM} done"),
    ),
    Case(
        "accept someone else's invitation",
        "invitation-accept",
        _answer_invitation("accept", own=False),
        (LOGIN, NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND),
    ),
    Case(
        "decline one's own invitation",
        "invitation-decline",
        _answer_invitation("decline", own=True),
        (LOGIN, f"{TO_TEAM} done", f"{TO_TEAM} done", f"{TO_TEAM} done", f"{TO_TEAM} done"),
    ),
    Case(
        "decline someone else's invitation",
        "invitation-decline",
        _answer_invitation("decline", own=False),
        (LOGIN, NOT_FOUND, NOT_FOUND, NOT_FOUND, NOT_FOUND),
    ),
    # Signing in and out, and Django's admin
    Case("open the sign-in page", "login", get(lambda w: "/login/"), (OK, "302 /", "302 /", "302 /", "302 /")),
    Case(
        "sign in with a wrong password",
        "login",
        post(lambda w: "/login/", lambda w: {"username": "alice", "password": "wrong"}),
        (OK, "302 /", "302 /", "302 /", "302 /"),
    ),
    Case("sign out", "logout", post(lambda w: "/logout/"), (LOGIN,) * 5),
    Case("sign out with a GET", "logout", get(lambda w: "/logout/"), ("405",) * 5),
    Case("open the admin", "admin", get(lambda w: "/admin/"), ADMIN_ONLY),
    Case("open the admin's user list", "admin", get(lambda w: "/admin/auth/user/"), ADMIN_ONLY),
]


def route_of(path: str) -> str:
    match = resolve(urlsplit(path).path)
    return "admin" if match.namespace == "admin" else str(match.url_name)


def outcome(response: HttpResponse, done: Callable[[], bool] | None) -> str:
    text = str(response.status_code)
    if 300 <= response.status_code < 400:
        text += " " + re.sub(r"/\d+(?=/)", "/N", urlsplit(response["Location"]).path)
    if done is not None and done():
        text += " done"
    return text


def all_routes() -> list[str]:
    """Every URL name of the app, from the URL configuration; Django's admin counts as one route."""
    names: list[str] = []

    def walk(patterns: list[URLPattern | URLResolver], prefix: str) -> None:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                if entry.namespace == "admin":
                    names.append("admin")
                else:
                    walk(entry.url_patterns, prefix + str(entry.pattern))
            else:
                names.append(entry.name or prefix + str(entry.pattern))

    walk(get_resolver().url_patterns, "")
    return names


def review_routes(world: World) -> set[str]:
    """The routes tests/review/test_roles.py has rows for, found by resolving the requests its table makes."""
    owner = world.people["owner"]
    review_world = review_roles.World(world.conversation, world.gus)
    return {route_of(request(review_world, owner)[1]) for _, request, _ in review_roles.TABLE}


@pytest.mark.django_db
def test_every_route_has_a_row(cast: World) -> None:
    http_routes = all_routes()
    assert len(http_routes) == len(set(http_routes)), "two routes share a name"
    with_rows = {case.route for case in CASES} | review_routes(cast)
    missing = [route for route in http_routes if route not in with_rows]
    assert not missing, f"routes with no expected access: {missing}"
    assert with_rows <= set(http_routes), "rows for routes that no longer exist"
    socket_routes = {_socket_route(route) for route in websocket_urlpatterns}
    socket_rows = {socket_route_of(case.path.format(conversation=1)) for case in SOCKET_CASES}
    assert socket_routes - socket_rows == set(), "sockets with no expected access"


@pytest.mark.django_db
@pytest.mark.parametrize("case", CASES, ids=[case.what for case in CASES])
def test_each_route_answers_each_role_as_the_table_says(case: Case, world: World) -> None:
    seen: dict[str, str] = {}
    for role in ROLES:
        user = world.people[role]
        client = signed_in(world, user)
        request = case.request(world, user)
        assert route_of(request.path) == case.route, f"{request.path} is not {case.route}"
        send = client.get if request.method == "GET" else client.post
        seen[role] = outcome(send(request.path, request.data), request.done)
    assert seen == dict(zip(ROLES, case.expected, strict=True))


# --- sockets -----------------------------------------------------------------------------------------------------

REFUSED, NOTHING = "refused", "nothing"
RUN_REFUSAL = "error: Viewers can read this conversation but not run it."
SOCKET_MEMBERS = (REFUSED, REFUSED, "opened", "opened", "opened")
SIGNED_IN = (REFUSED, "opened", "opened", "opened", "opened")


def runs(editors: str) -> tuple[str, ...]:
    """A run action: refused at the handshake outside the team, refused to viewers, ``editors`` for the others."""
    return (REFUSED, REFUSED, RUN_REFUSAL, editors, editors)


@dataclass(frozen=True)
class SocketCase:
    what: str
    path: str  # {conversation}: the team's conversation, interrupted, so answers to it get a reply without a run
    action: dict[str, Any] | Callable[[World], dict[str, Any]] | None  # None: only open the socket
    expected: tuple[str, ...]


CHAT = "/ws/conversations/{conversation}/"
NOT_WAITING = "error: That call is not waiting for this answer any more."

SOCKET_CASES: list[SocketCase] = [
    SocketCase("open the chat socket", CHAT, None, (REFUSED, REFUSED, *["opened: snapshot"] * 3)),
    SocketCase("open the chat socket of no conversation", "/ws/conversations/999999999/", None, (REFUSED,) * 5),
    # No options: the settings are checked after the role, so editors get this instead of a run.
    SocketCase("send with no settings", CHAT, {"type": "send", "text": "hi"}, runs("error: Check the chat settings.")),
    SocketCase(
        "send on another team's endpoint",
        CHAT,
        lambda w: {"type": "send", "text": "hi", "options": {"endpoint_id": w.guild_endpoint.pk, "model": "m"}},
        runs("error: Pick a provider endpoint."),
    ),
    SocketCase("retry", CHAT, {"type": "retry"}, runs("error: There is nothing to retry yet: send a message first.")),
    SocketCase(
        "answer a manual call", CHAT, {"type": "tool_result", "call_id": "c1", "content": "x"}, runs(NOT_WAITING)
    ),
    SocketCase("approve a call", CHAT, {"type": "approval", "call_id": "c1", "action": "approve"}, runs(NOT_WAITING)),
    SocketCase("stop", CHAT, {"type": "stop"}, runs(NOTHING)),
    SocketCase("open the review socket", "/ws/review/{conversation}/", None, SOCKET_MEMBERS),
    SocketCase(
        "act on the review socket (it only listens)",
        "/ws/review/{conversation}/",
        {"type": "send", "text": "hi"},
        (REFUSED, REFUSED, *["error: unknown message type 'send'"] * 3),
    ),
    SocketCase("open the status socket", "/ws/status/", None, SIGNED_IN),
    SocketCase("open a socket at an unknown path", "/ws/nothing/", None, (REFUSED,) * 5),
]


def _socket_route(route: Any) -> str:
    return str(route.pattern)


def socket_route_of(path: str) -> str:
    """The socket route a path reaches, matched as channels' URLRouter does: the first pattern that matches."""
    for route in websocket_urlpatterns:
        if route.pattern.match(path.lstrip("/")):
            return _socket_route(route)
    raise AssertionError(f"no socket route for {path}")


def _headers(world: World, user: User | None) -> list[tuple[bytes, bytes]]:
    headers = [(b"origin", ALLOWED_ORIGIN.encode()), (b"host", ALLOWED_HOST.encode())]
    if user is not None:
        client = signed_in(world, user)
        headers.append((b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode()))
    return headers


def _describe(frames: list[dict[str, Any]]) -> str:
    texts = [f"error: {f['error']}" if f.get("type") == "error" else str(f.get("type")) for f in frames]
    return " | ".join(texts) or NOTHING


async def _until_pong(socket: WebsocketCommunicator) -> list[dict[str, Any]]:
    """Ping, and every frame that comes before the pong (a closed socket reads as a frame ``closed <code>``)."""
    await socket.send_json_to({"type": "ping"})
    frames: list[dict[str, Any]] = []
    while True:
        output = await socket.receive_output(timeout=10)
        if output["type"] == "websocket.close":
            return [*frames, {"type": f"closed {output.get('code')}"}]
        message = json.loads(output["text"])
        for frame in message if isinstance(message, list) else [message]:
            if frame.get("type") == "pong":
                return frames
            frames.append(frame)


async def _try(case: SocketCase, world: World, path: str, headers: list[tuple[bytes, bytes]]) -> str:
    socket = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await socket.connect()
    if not connected:
        return REFUSED
    try:
        opening = await _until_pong(socket)
        if case.action is None:
            return "opened" + (f": {_describe(opening)}" if opening else "")
        await socket.send_json_to(case.action(world) if callable(case.action) else case.action)
        return _describe(await _until_pong(socket))
    finally:
        await socket.disconnect()


@pytest.fixture
def interrupted(cast: World) -> World:
    Conversation.objects.filter(pk=cast.conversation.pk).update(status=Conversation.Status.INTERRUPTED)
    return cast


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
@pytest.mark.parametrize("case", SOCKET_CASES, ids=[case.what for case in SOCKET_CASES])
async def test_each_socket_action_answers_each_role_as_the_table_says(case: SocketCase, interrupted: World) -> None:
    path = case.path.format(conversation=interrupted.conversation.pk)
    seen: dict[str, str] = {}
    for role in ROLES:
        headers = await database_sync_to_async(_headers)(interrupted, interrupted.people[role])
        seen[role] = await _try(case, interrupted, path, headers)
    assert seen == dict(zip(ROLES, case.expected, strict=True))
