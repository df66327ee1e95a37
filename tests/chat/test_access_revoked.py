"""An open socket keeps no access its user has lost: removed from the team, made a viewer, signed out, a password
changed or an account turned off."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.models import Session
from django.test import Client

from playground.asgi import application
from playground.shell.consumers import CLOSE_REVOKED
from playground.teams import access
from playground.teams.models import Membership, Role
from tests.chat.conftest import open_chat, options
from tests.conftest import ALLOWED_HOST, ALLOWED_ORIGIN

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from playground.conversations.models import Conversation

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]
CLOSE_WAIT_S = 5


def session_headers(user: User) -> tuple[Client, list[tuple[bytes, bytes]]]:
    """A browser session of its own for ``user``: its client (to sign out) and its socket headers."""
    client = Client()
    client.force_login(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    return client, [(b"origin", ALLOWED_ORIGIN.encode()), (b"host", ALLOWED_HOST.encode()), (b"cookie", cookie)]


async def opened(conversation: Conversation, headers: list[tuple[bytes, bytes]]) -> WebsocketCommunicator:
    chat = await open_chat(conversation.pk, headers)
    assert (await chat.receive_json_from())["type"] == "snapshot"
    return chat


async def closed_with(chat: WebsocketCommunicator) -> int | None:
    output = await chat.receive_output(timeout=CLOSE_WAIT_S)
    return output.get("code") if output["type"] == "websocket.close" else None


async def test_a_member_removed_from_the_team_is_cut_off(conversation: Conversation, alice: User, bob: User) -> None:
    _, headers = await database_sync_to_async(session_headers)(bob)
    chat = await opened(conversation, headers)
    membership = await Membership.objects.select_related("team").aget(user=bob, team=conversation.team_id)
    await database_sync_to_async(access.remove_member)(membership=membership, actor=alice)
    assert await closed_with(chat) == CLOSE_REVOKED


async def test_a_member_who_leaves_the_team_is_cut_off(conversation: Conversation, bob: User) -> None:
    browser, headers = await database_sync_to_async(session_headers)(bob)
    chat = await opened(conversation, headers)
    response = await database_sync_to_async(browser.post)(f"/team/{conversation.team_id}/leave/")
    assert response["Location"] == "/"
    assert await closed_with(chat) == CLOSE_REVOKED


async def test_a_member_made_viewer_keeps_reading_but_cannot_run(
    conversation: Conversation, alice: User, bob: User
) -> None:
    _, headers = await database_sync_to_async(session_headers)(bob)
    chat = await opened(conversation, headers)
    membership = await Membership.objects.select_related("team").aget(user=bob, team=conversation.team_id)
    await database_sync_to_async(access.change_role)(membership=membership, actor=alice, role=Role.VIEWER)
    # Still open, and the page is told: it stops offering what it drew for an editor.
    assert await chat.receive_json_from(timeout=CLOSE_WAIT_S) == {"type": "access", "can_edit": False}
    await chat.send_json_to({"type": "send", "text": "hi", "options": await database_sync_to_async(options)()})
    assert (await chat.receive_json_from())["error"] == "Viewers can read this conversation but not run it."
    assert await conversation.messages.acount() == 0
    await database_sync_to_async(access.change_role)(membership=membership, actor=alice, role=Role.EDITOR)
    assert await chat.receive_json_from(timeout=CLOSE_WAIT_S) == {"type": "access", "can_edit": True}
    await database_sync_to_async(access.change_role)(membership=membership, actor=alice, role=Role.EDITOR)
    assert await chat.receive_nothing(timeout=0.5), "a change that leaves the role as it was says nothing"
    await chat.disconnect()


async def test_signing_out_closes_that_sessions_sockets_only(conversation: Conversation, bob: User) -> None:
    laptop, laptop_headers = await database_sync_to_async(session_headers)(bob)
    _, phone_headers = await database_sync_to_async(session_headers)(bob)
    on_laptop, on_phone = await opened(conversation, laptop_headers), await opened(conversation, phone_headers)
    await database_sync_to_async(laptop.post)("/logout/")
    assert await closed_with(on_laptop) == CLOSE_REVOKED
    await on_phone.send_json_to({"type": "ping"})
    assert await on_phone.receive_json_from() == {"type": "pong"}
    await on_phone.disconnect()


@pytest.mark.parametrize("change", ["password", "turned off"])
async def test_a_password_changed_or_an_account_turned_off_closes_its_open_sockets(
    conversation: Conversation, bob: User, change: str
) -> None:
    _, headers = await database_sync_to_async(session_headers)(bob)
    chat = await opened(conversation, headers)

    def edit_account() -> None:
        if change == "password":
            bob.set_password("a-new-password-5678")
        else:
            bob.is_active = False
        bob.save()

    await database_sync_to_async(edit_account)()
    assert await closed_with(chat) == CLOSE_REVOKED


async def test_an_action_after_the_password_changed_unannounced_is_refused(
    conversation: Conversation, bob: User
) -> None:
    # Changed by a statement no signal sees (another tool, a restore): the action itself checks the password.
    _, headers = await database_sync_to_async(session_headers)(bob)
    chat = await opened(conversation, headers)
    await type(bob).objects.filter(pk=bob.pk).aupdate(password="!changed-elsewhere")
    await chat.send_json_to({"type": "send", "text": "hi", "options": await database_sync_to_async(options)()})
    assert await closed_with(chat) == CLOSE_REVOKED
    assert await conversation.messages.acount() == 0


async def test_an_action_on_a_socket_whose_session_is_gone_is_refused(conversation: Conversation, bob: User) -> None:
    # No announcement at all (a session expired, or deleted by another tool): the action itself checks.
    _, headers = await database_sync_to_async(session_headers)(bob)
    chat = await opened(conversation, headers)
    await Session.objects.all().adelete()
    await chat.send_json_to({"type": "send", "text": "hi", "options": await database_sync_to_async(options)()})
    assert await closed_with(chat) == CLOSE_REVOKED
    assert await conversation.messages.acount() == 0


@pytest.mark.parametrize(
    ("text", "sent_options"),
    [("", "valid"), ("hi", ["not", "a", "dict"]), ("hi", {"model": ""})],
    ids=["empty message", "malformed settings", "invalid settings"],
)
async def test_a_message_refused_before_its_turn_opens_is_still_checked_first(
    conversation: Conversation, bob: User, text: str, sent_options: Any
) -> None:
    # The access check of a message is made in the trip that opens its turn; one refused before that trip (nothing
    # to send, settings to fix) must not tell a socket that has lost its access anything but that.
    _, headers = await database_sync_to_async(session_headers)(bob)
    chat = await opened(conversation, headers)
    if sent_options == "valid":
        sent_options = await database_sync_to_async(options)()
    await Session.objects.all().adelete()
    await chat.send_json_to({"type": "send", "text": text, "options": sent_options})
    assert await closed_with(chat) == CLOSE_REVOKED


async def test_a_socket_without_access_has_no_attached_image_decoded(
    conversation: Conversation, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Images are decoded before the turn's opening trip, which checks access: a message with images is checked first.
    from playground.chat import service
    from tests.chat.image_fixtures import attached

    decoded: list[str] = []
    real = service.user_content

    def user_content(text: str, images: Any) -> Any:
        decoded.append(text)
        return real(text, images)

    monkeypatch.setattr(service, "user_content", user_content)
    _, headers = await database_sync_to_async(session_headers)(bob)
    chat = await opened(conversation, headers)
    await Session.objects.all().adelete()
    turn = await database_sync_to_async(options)()
    await chat.send_json_to({"type": "send", "text": "look", "images": [attached()], "options": turn})
    assert await closed_with(chat) == CLOSE_REVOKED
    assert decoded == [] and await conversation.messages.acount() == 0


async def test_a_viewers_empty_message_is_told_it_cannot_run(
    conversation: Conversation, alice: User, bob: User
) -> None:
    _, headers = await database_sync_to_async(session_headers)(bob)
    chat = await opened(conversation, headers)
    await Membership.objects.filter(user=bob, team_id=conversation.team_id).aupdate(role=Role.VIEWER)
    await chat.send_json_to({"type": "send", "text": " ", "options": await database_sync_to_async(options)()})
    assert (await chat.receive_json_from())["error"] == "Viewers can read this conversation but not run it."
    assert await chat.receive_nothing(timeout=0.2), "one answer: not also 'Type a message first'"
    await chat.disconnect()


@pytest.mark.parametrize(
    "frame",
    [
        "not json at all",
        "[" * 10_000 + "]" * 10_000,
        '{"type": "send", "text": "\\ud800"}',
        '{"type": "ping", "n": 1e999}',
    ],
)
async def test_a_crafted_frame_is_answered_and_the_socket_lives_on(
    conversation: Conversation, alice_ws_headers: list[tuple[bytes, bytes]], frame: str
) -> None:
    chat = await opened(conversation, alice_ws_headers)
    await chat.send_to(text_data=frame)
    reply = await chat.receive_json_from()
    assert reply["type"] == "error" and reply["error"].startswith("The frame was refused: ")
    await chat.send_json_to({"type": "ping"})
    assert await chat.receive_json_from() == {"type": "pong"}
    await chat.disconnect()


async def test_a_binary_frame_is_answered(
    conversation: Conversation, alice_ws_headers: list[tuple[bytes, bytes]]
) -> None:
    chat = await opened(conversation, alice_ws_headers)
    await chat.send_to(bytes_data=b"\x00\x01")
    assert (await chat.receive_json_from())["error"] == "Frames must be JSON text, not binary."
    await chat.disconnect()


@pytest.mark.parametrize(
    "path", ["/ws/conversations/abc/", "/ws/conversations/99999999999999999999999/", "/ws/nowhere/", "/ws/"]
)
async def test_unknown_socket_paths_are_refused_not_errors(
    alice_ws_headers: list[tuple[bytes, bytes]], path: str
) -> None:
    communicator = WebsocketCommunicator(application, path, headers=alice_ws_headers)
    connected, code = await communicator.connect()
    assert (connected, code) == (False, 4401)


def test_headers_helper_makes_separate_sessions(bob: User) -> None:
    first, _ = session_headers(bob)
    second, _ = session_headers(bob)
    assert first.session.session_key != second.session.session_key
