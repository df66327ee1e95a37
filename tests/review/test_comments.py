"""Comments: threads of replies, pinned to the conversation, a message or a call; edited and deleted by their author
only; resolved and reopened; @mentions of teammates listed in their "For you" inbox until they look."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from playground.review.models import Comment, Mention
from tests.review.conftest import CALLS, HTMX

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.http import HttpResponse
    from django.test import Client

    from playground.conversations.models import Conversation

pytestmark = pytest.mark.django_db
Clients = Callable[["User | None"], "Client"]


def post(client: Client, conversation: Conversation, body: str, **fields: str) -> HttpResponse:
    data = {"body": body, **fields}
    return client.post(f"/c/{conversation.pk}/review/comments/post/", data, **HTMX)


def action(client: Client, conversation: Conversation, comment: Comment, verb: str, **data: str) -> HttpResponse:
    return client.post(f"/c/{conversation.pk}/review/comments/{comment.pk}/{verb}/", data, **HTMX)


def test_a_comment_on_the_conversation_shows_its_author_and_time(
    reviewed: Conversation, carol: User, client_for: Clients
) -> None:
    response = post(client_for(carol), reviewed, "Why did it call get_weather four times?")
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('data-testid="comment"') == 1
    assert 'data-testid="comment-author">carol<' in html
    assert "<time datetime=" in html and "Why did it call get_weather four times?" in html
    comment = Comment.objects.get()
    assert (comment.author, comment.message_position, comment.call_id) == (carol, None, "")


def test_comments_pin_to_a_message_or_a_call_and_only_to_real_ones(
    reviewed: Conversation, bob: User, client_for: Clients
) -> None:
    client = client_for(bob)
    assert post(client, reviewed, "Good question", anchor="message:0").status_code == 200
    assert post(client, reviewed, "Lyon needs a city", anchor=f"call:{CALLS['invalid']}").status_code == 200
    assert post(client, reviewed, "Nowhere", anchor="message:42").status_code == 404
    assert post(client, reviewed, "Nowhere", anchor="call:call_missing").status_code == 404
    assert post(client, reviewed, "Nowhere", anchor="sideways").status_code == 404
    pinned = {(c.message_position, c.call_id) for c in Comment.objects.all()}
    assert pinned == {(None, CALLS["invalid"]), (0, "")}
    html = client.get(f"/c/{reviewed.pk}/review/").content.decode()
    call_card = html[html.index(f'data-call-id="{CALLS["invalid"]}"') :]
    assert call_card.index("Lyon needs a city") < call_card.index('data-call-id="call_failed"')


def test_an_empty_comment_is_refused_with_a_plain_reason(
    reviewed: Conversation, carol: User, client_for: Clients
) -> None:
    response = post(client_for(carol), reviewed, "   ")
    assert response.status_code == 400 and response.content == b"Write something first."
    assert not Comment.objects.exists()


def test_replies_thread_under_their_parent_and_keep_its_anchor(
    reviewed: Conversation, alice: User, bob: User, carol: User, client_for: Clients
) -> None:
    post(client_for(carol), reviewed, "Is this argument right?", anchor=f"call:{CALLS['invalid']}")
    root = Comment.objects.get()
    reply = post(client_for(bob), reviewed, "No: city is required.", parent=str(root.pk), anchor="conversation")
    nested = Comment.objects.get(parent=root)
    post(client_for(alice), reviewed, "Fixed the schema description.", parent=str(nested.pk))
    assert reply.status_code == 200
    assert nested.call_id == CALLS["invalid"]  # a reply goes where its thread is, whatever the form said
    assert Comment.objects.filter(parent=nested, call_id=CALLS["invalid"]).count() == 1
    html = (
        client_for(carol)
        .get(f"/c/{reviewed.pk}/review/comments/", {"anchor": f"call:{CALLS['invalid']}"}, **HTMX)
        .content.decode()
    )
    assert html.count('data-testid="thread"') == 1 and html.count('data-testid="comment"') == 3
    # Nested in order: the root, then its reply inside a replies block, then the reply to that.
    assert html.index("Is this argument right?") < html.index('class="replies"') < html.index("No: city is required.")
    assert html.index("No: city is required.") < html.index("Fixed the schema description.")
    other = post(client_for(carol), reviewed, "?", parent="999999")
    assert other.status_code == 404


def test_only_the_author_edits_and_an_edit_is_marked(
    reviewed: Conversation, bob: User, carol: User, alice: User, client_for: Clients
) -> None:
    post(client_for(carol), reviewed, "Teh model called the wrong tool")
    comment = Comment.objects.get()
    for other in (bob, alice):  # an editor and an owner: still not theirs
        refused = action(client_for(other), reviewed, comment, "edit", body="rewritten")
        assert refused.status_code == 403
        assert client_for(other).get(f"/c/{reviewed.pk}/review/comments/{comment.pk}/edit/").status_code == 403
    form = client_for(carol).get(f"/c/{reviewed.pk}/review/comments/{comment.pk}/edit/", **HTMX)
    assert form.status_code == 200 and "Teh model called the wrong tool</textarea>" in form.content.decode()
    saved = action(client_for(carol), reviewed, comment, "edit", body="The model called the wrong tool")
    assert saved.status_code == 200 and 'data-testid="comment-edited"' in saved.content.decode()
    comment.refresh_from_db()
    assert (comment.body, comment.edited) == ("The model called the wrong tool", True)


def test_only_the_author_deletes(
    reviewed: Conversation, bob: User, carol: User, alice: User, client_for: Clients
) -> None:
    post(client_for(carol), reviewed, "Delete me")
    comment = Comment.objects.get()
    assert action(client_for(alice), reviewed, comment, "delete").status_code == 403
    assert action(client_for(bob), reviewed, comment, "delete").status_code == 403
    response = action(client_for(carol), reviewed, comment, "delete")
    assert response.status_code == 200 and 'data-testid="comment"' not in response.content.decode()
    assert not Comment.objects.exists()


def test_deleting_a_comment_others_replied_to_keeps_their_replies(
    reviewed: Conversation, bob: User, carol: User, client_for: Clients
) -> None:
    post(client_for(carol), reviewed, "First thought")
    root = Comment.objects.get()
    post(client_for(bob), reviewed, "A reply worth keeping", parent=str(root.pk))
    html = action(client_for(carol), reviewed, root, "delete").content.decode()
    assert "This comment was deleted." in html and "A reply worth keeping" in html and "First thought" not in html
    root.refresh_from_db()
    assert root.body == ""
    # The stub cannot be edited back, and goes once its last reply does.
    assert action(client_for(carol), reviewed, root, "edit", body="back").status_code == 400
    action(client_for(bob), reviewed, Comment.objects.get(parent=root), "delete")
    assert not Comment.objects.exists()


def test_a_thread_is_resolved_and_reopened_by_any_member(
    reviewed: Conversation, bob: User, carol: User, client_for: Clients
) -> None:
    post(client_for(bob), reviewed, "Retry budget too low?")
    root = Comment.objects.get()
    post(client_for(carol), reviewed, "Raised it to 3.", parent=str(root.pk))
    reply = Comment.objects.get(parent=root)
    resolved = action(client_for(carol), reviewed, reply, "resolve", resolved="1")  # from a reply: the thread
    assert resolved.status_code == 200
    assert 'data-resolved="1"' in resolved.content.decode() and "Reopen" in resolved.content.decode()
    root.refresh_from_db()
    reply.refresh_from_db()
    assert root.resolved and not reply.resolved
    reopened = action(client_for(bob), reviewed, root, "resolve", resolved="0")
    root.refresh_from_db()
    assert not root.resolved and 'data-resolved="0"' in reopened.content.decode()


def test_mentions_of_teammates_reach_their_inbox_until_they_open_the_review(
    reviewed: Conversation, alice: User, bob: User, carol: User, mallory: User, client_for: Clients
) -> None:
    post(client_for(carol), reviewed, "@bob @Alice, look at this. Not @mallory, not @carol, not mail@bob.example")
    comment = Comment.objects.get()
    assert sorted(m.user.username for m in Mention.objects.all()) == ["alice", "bob"]

    inbox = client_for(bob).get("/review/inbox/").content.decode()
    assert inbox.count('data-testid="mention"') == 1
    assert f'href="/c/{reviewed.pk}/review/#comment-{comment.pk}"' in inbox
    assert "carol</strong> mentioned you in" in inbox and "Weather in four cities" in inbox
    assert 'data-testid="mention"' not in client_for(mallory).get("/review/inbox/").content.decode()

    client_for(bob).get(f"/c/{reviewed.pk}/review/")  # opening the review shows the comment: seen
    assert Mention.objects.get(user=bob).seen and not Mention.objects.get(user=alice).seen
    assert 'data-testid="mention"' not in client_for(bob).get("/review/inbox/").content.decode()
    client_for(alice).post("/review/inbox/seen/")
    assert not Mention.objects.filter(seen=False).exists()


def test_an_edit_notifies_new_names_and_forgets_removed_ones(
    reviewed: Conversation, alice: User, bob: User, carol: User, client_for: Clients
) -> None:
    post(client_for(carol), reviewed, "cc @bob")
    comment = Comment.objects.get()
    client_for(bob).get(f"/c/{reviewed.pk}/review/")  # bob saw it
    action(client_for(carol), reviewed, comment, "edit", body="cc @bob and @alice")
    assert {(m.user.username, m.seen) for m in Mention.objects.all()} == {("bob", True), ("alice", False)}
    action(client_for(carol), reviewed, comment, "edit", body="cc @alice only")
    assert [m.user.username for m in Mention.objects.all()] == ["alice"]


def test_a_comment_is_shown_as_text_with_mentions_set_apart(
    reviewed: Conversation, carol: User, client_for: Clients
) -> None:
    html = post(client_for(carol), reviewed, '<img src=x onerror="alert(1)"> thanks @bob.').content.decode()
    assert "<img src=x" not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt; thanks " in html
    assert '<span class="mention">@bob</span>.' in html
