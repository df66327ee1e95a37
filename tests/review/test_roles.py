"""Who may do what in review: every review URL, tried as anonymous, outsider, viewer, editor and owner.

The table below is the one in docs/teams.md, as HTTP statuses: 200 done (302 for the inbox's plain form, which
redirects), 302 to the sign-in for anonymous visitors, 404 for people outside the team (another team's conversation
looks like no conversation), 403 for members whose role does not allow it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest
from django.test import Client

from playground.review.models import Comment, Label, ShareLink
from playground.review.sharing import create_link
from playground.teams import access
from playground.teams.models import Role
from tests.review.conftest import CALLS, HTMX, build_conversation

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from playground.conversations.models import Conversation
    from playground.teams.models import Team

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "outsider", "viewer", "editor", "owner")
OK, SIGN_IN, DENIED, NOT_FOUND = 200, 302, 403, 404
MEMBERS_ONLY = (SIGN_IN, NOT_FOUND, OK, OK, OK)
EDITORS_ONLY = (SIGN_IN, NOT_FOUND, DENIED, OK, OK)
NOBODY = (SIGN_IN, NOT_FOUND, DENIED, DENIED, DENIED)


@dataclass(frozen=True)
class World:
    conversation: Conversation
    someone_else: User  # a fifth member, whose comment nobody else may change

    @property
    def base(self) -> str:
        return f"/c/{self.conversation.pk}/review"

    def comment_by(self, user: User | None) -> Comment:
        """A comment of the user's own (anonymous visitors get someone else's: they reach no comment anyway)."""
        return Comment.objects.create(conversation=self.conversation, author=user or self.someone_else, body="words")

    def others_comment(self) -> Comment:
        return self.comment_by(self.someone_else)

    def label(self) -> Label:
        label = Label.objects.create(team=self.conversation.team, name=f"label-{Label.objects.count()}")
        label.conversations.add(self.conversation)
        return label

    def link(self) -> ShareLink:
        return create_link(conversation=self.conversation, user=self.someone_else, expires_in=None)[0]


Request = Callable[[World, "User | None"], tuple[str, str, dict[str, str]]]
Data = Callable[[World], dict[str, str]]


def _get(path: Callable[[World, User | None], str]) -> Request:
    return lambda world, user: ("GET", path(world, user), {})


def _post(path: Callable[[World, User | None], str], data: Data | None = None) -> Request:
    """``data`` is made when the request is, so each try gets fresh rows to act on."""
    return lambda world, user: ("POST", path(world, user), data(world) if data else {})


def _shared(world: World, _: User | None) -> str:
    _, token = create_link(conversation=world.conversation, user=world.someone_else, expires_in=None)
    return f"/s/{token}/"


# (what, request, expected status for anonymous, outsider, viewer, editor, owner)
TABLE: list[tuple[str, Request, tuple[int, ...]]] = [
    ("open the review", _get(lambda w, u: f"{w.base}/"), MEMBERS_ONLY),
    ("fetch a thread", _get(lambda w, u: f"{w.base}/comments/?anchor=conversation"), MEMBERS_ONLY),
    ("open a comment form", _get(lambda w, u: f"{w.base}/comments/new/?anchor=message:0"), MEMBERS_ONLY),
    (
        "comment",
        _post(lambda w, u: f"{w.base}/comments/post/", lambda w: {"body": "hi", "anchor": "message:1"}),
        MEMBERS_ONLY,
    ),
    (
        "reply",
        _post(lambda w, u: f"{w.base}/comments/post/", lambda w: {"body": "hi", "parent": str(w.others_comment().pk)}),
        MEMBERS_ONLY,
    ),
    (
        "open the edit form of one's comment",
        _get(lambda w, u: f"{w.base}/comments/{w.comment_by(u).pk}/edit/"),
        MEMBERS_ONLY,
    ),
    (
        "edit one's comment",
        _post(lambda w, u: f"{w.base}/comments/{w.comment_by(u).pk}/edit/", lambda w: {"body": "new"}),
        MEMBERS_ONLY,
    ),
    (
        "edit someone else's comment",
        _post(lambda w, u: f"{w.base}/comments/{w.others_comment().pk}/edit/", lambda w: {"body": "new"}),
        NOBODY,
    ),
    ("cancel an edit", _get(lambda w, u: f"{w.base}/comments/{w.comment_by(u).pk}/cancel/"), MEMBERS_ONLY),
    ("delete one's comment", _post(lambda w, u: f"{w.base}/comments/{w.comment_by(u).pk}/delete/"), MEMBERS_ONLY),
    ("delete someone else's comment", _post(lambda w, u: f"{w.base}/comments/{w.others_comment().pk}/delete/"), NOBODY),
    (
        "resolve a thread",
        _post(lambda w, u: f"{w.base}/comments/{w.others_comment().pk}/resolve/", lambda w: {"resolved": "1"}),
        MEMBERS_ONLY,
    ),
    ("fetch a call's verdicts", _get(lambda w, u: f"{w.base}/verdicts/?call={CALLS['good']}"), MEMBERS_ONLY),
    (
        "give a verdict",
        _post(lambda w, u: f"{w.base}/verdicts/save/", lambda w: {"call_id": CALLS["good"], "kind": "right"}),
        MEMBERS_ONLY,
    ),
    ("fetch the labels", _get(lambda w, u: f"{w.base}/labels/"), MEMBERS_ONLY),
    ("add a label", _post(lambda w, u: f"{w.base}/labels/add/", lambda w: {"name": "regression"}), EDITORS_ONLY),
    ("remove a label", _post(lambda w, u: f"{w.base}/labels/{w.label().pk}/remove/"), EDITORS_ONLY),
    ("create a share link", _post(lambda w, u: f"{w.base}/shares/", lambda w: {"expires": "7"}), EDITORS_ONLY),
    ("revoke a share link", _post(lambda w, u: f"{w.base}/shares/{w.link().pk}/revoke/"), EDITORS_ONLY),
    ("open a share link", _get(_shared), (OK, OK, OK, OK, OK)),
    ("unfold a round trip through a share link", _get(lambda w, u: f"{_shared(w, u)}round-trips/0/panes/"), (OK,) * 5),
    ("open the For you inbox", _get(lambda w, u: "/review/inbox/"), (SIGN_IN, OK, OK, OK, OK)),
    ("mark every mention seen", _post(lambda w, u: "/review/inbox/seen/"), (SIGN_IN, 302, 302, 302, 302)),
]


@pytest.fixture
def world(team: Team, alice: User, django_user_model: type[User]) -> World:
    dave = django_user_model.objects.create_user("dave")
    access.add_member(team=team, actor=alice, username="dave", role=Role.VIEWER)
    return World(build_conversation(team, alice), dave)


def test_every_review_url_answers_each_role_as_the_table_says(
    world: World, alice: User, bob: User, carol: User, mallory: User
) -> None:
    people: dict[str, User | None] = {
        "anonymous": None,
        "outsider": mallory,
        "viewer": carol,
        "editor": bob,
        "owner": alice,
    }
    expected = {what: dict(zip(ROLES, statuses, strict=True)) for what, _, statuses in TABLE}
    seen: dict[str, dict[str, int]] = {}
    for what, request, _ in TABLE:
        for role in ROLES:
            user = people[role]
            client = Client()
            if user is not None:
                client.force_login(user)
            method, path, data = request(world, user)
            send = client.get if method == "GET" else client.post
            seen.setdefault(what, {})[role] = send(path, data, **HTMX).status_code
    assert seen == expected
