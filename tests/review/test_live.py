"""Live review: a comment or verdict posted reaches every open review page of the conversation through the channel
layer; only team members may listen, and a member removed is cut off."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import AsyncClient

from playground.asgi import application
from playground.review.anchors import Anchor
from playground.review.models import Comment
from playground.shell.consumers import CLOSE_REVOKED
from playground.teams import access
from playground.teams.models import Membership
from tests.conftest import ALLOWED_HOST, ALLOWED_ORIGIN
from tests.review.conftest import CALLS, build_conversation

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.conversations.models import Conversation
    from playground.teams.models import Team

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]
Clients = Callable[["User | None"], "Client"]
TIMEOUT_S = 5


@pytest.fixture
def live_conversation(team: Team, alice: User) -> Conversation:
    return build_conversation(team, alice)


async def socket_for(client_for: Clients, user: User | None, conversation_id: int) -> WebsocketCommunicator:
    headers = [(b"origin", ALLOWED_ORIGIN.encode()), (b"host", ALLOWED_HOST.encode())]
    if user is not None:
        client = await database_sync_to_async(client_for)(user)
        headers.append((b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode()))
    return WebsocketCommunicator(application, f"/ws/review/{conversation_id}/", headers=headers)


async def opened(client_for: Clients, user: User, conversation_id: int) -> WebsocketCommunicator:
    socket = await socket_for(client_for, user, conversation_id)
    connected, _ = await socket.connect()
    assert connected
    return socket


HX = {"HX-Request": "true"}  # with each request: AsyncClient drops headers given to its constructor


async def signed_in(user: User) -> AsyncClient:
    client = AsyncClient()
    await client.aforce_login(user)
    return client


async def test_a_comment_reaches_another_members_open_page(
    live_conversation: Conversation, bob: User, carol: User, client_for: Clients
) -> None:
    watcher = await opened(client_for, carol, live_conversation.pk)
    poster = await signed_in(bob)
    anchor = f"call:{CALLS['invalid']}"
    response = await poster.post(
        f"/c/{live_conversation.pk}/review/comments/post/", {"body": "Seen live?", "anchor": anchor}, headers=HX
    )
    assert response.status_code == 200
    comment = await Comment.objects.aget()
    frame: dict[str, Any] = await watcher.receive_json_from(timeout=TIMEOUT_S)
    expected_dom = Anchor(call_id=CALLS["invalid"]).dom
    assert frame == {"type": "review.comments", "anchor": anchor, "dom": expected_dom, "comment": comment.pk}
    # What the page then fetches, as the watcher: the new comment, rendered for her.
    reader = await signed_in(carol)
    fetched = await reader.get(f"/c/{live_conversation.pk}/review/comments/", {"anchor": frame["anchor"]}, headers=HX)
    html = fetched.content.decode()
    assert f'id="comments-{expected_dom}"' in html and "Seen live?" in html and 'data-testid="comment"' in html
    await watcher.disconnect()


async def test_a_verdict_and_a_label_reach_other_pages_too(
    live_conversation: Conversation, alice: User, bob: User, carol: User, client_for: Clients
) -> None:
    watcher = await opened(client_for, alice, live_conversation.pk)
    await (await signed_in(carol)).post(
        f"/c/{live_conversation.pk}/review/verdicts/save/", {"call_id": CALLS["good"], "kind": "right"}, headers=HX
    )
    frame = await watcher.receive_json_from(timeout=TIMEOUT_S)
    assert frame == {
        "type": "review.verdicts",
        "anchor": f"call:{CALLS['good']}",
        "dom": Anchor(call_id=CALLS["good"]).dom,
    }
    await (await signed_in(bob)).post(
        f"/c/{live_conversation.pk}/review/labels/add/", {"name": "regression"}, headers=HX
    )
    assert await watcher.receive_json_from(timeout=TIMEOUT_S) == {"type": "review.labels"}
    await watcher.disconnect()


async def test_only_members_may_listen(
    live_conversation: Conversation, carol: User, mallory: User, client_for: Clients
) -> None:
    for user in (None, mallory):
        socket = await socket_for(client_for, user, live_conversation.pk)
        connected, _ = await socket.connect()
        assert not connected
    missing = await socket_for(client_for, carol, 987654)
    assert not (await missing.connect())[0]
    viewer = await opened(client_for, carol, live_conversation.pk)
    await viewer.send_json_to({"type": "ping"})
    assert await viewer.receive_json_from(timeout=TIMEOUT_S) == {"type": "pong"}
    await viewer.disconnect()


async def test_a_member_removed_from_the_team_is_cut_off(
    live_conversation: Conversation, alice: User, carol: User, client_for: Clients
) -> None:
    watcher = await opened(client_for, carol, live_conversation.pk)
    membership = await Membership.objects.select_related("team").aget(user=carol, team=live_conversation.team_id)
    await database_sync_to_async(access.remove_member)(membership=membership, actor=alice)
    output = await watcher.receive_output(timeout=TIMEOUT_S)
    assert output["type"] == "websocket.close" and output.get("code") == CLOSE_REVOKED
