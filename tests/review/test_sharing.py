"""Share links: made and revoked by editors, opened signed out, never stored in clear, never showing a key."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import TYPE_CHECKING

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from playground.conversations.models import Conversation
from playground.endpoints.models import Endpoint
from playground.review.models import ShareLink
from tests.chat.conftest import frames_until, open_chat, options
from tests.echo_provider import echo_provider
from tests.review.conftest import HTMX

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.teams.models import Team

Clients = Callable[["User | None"], "Client"]
KEY = "sk-live-review-0123456789abcdefSECRET"


def share(client: Client, conversation: Conversation, expires: str = "") -> str:
    """Makes a link through the page; returns its path, as the panel shows it once."""
    response = client.post(f"/c/{conversation.pk}/review/shares/", {"expires": expires}, **HTMX)
    assert response.status_code == 200, response.content
    match = re.search(r'data-testid="share-url"[^>]*>http://testserver(/s/[\w-]+/)<', response.content.decode())
    assert match is not None, response.content.decode()
    return match.group(1)


@pytest.mark.django_db
def test_the_token_is_shown_once_and_only_its_hash_is_kept(
    reviewed: Conversation, bob: User, client_for: Clients
) -> None:
    path = share(client_for(bob), reviewed)
    token = path.removeprefix("/s/").removesuffix("/")
    assert len(token) == 43  # secrets.token_urlsafe(32)
    link = ShareLink.objects.get()
    assert link.token_hash == hashlib.sha256(token.encode()).hexdigest()
    stored = [str(value) for value in ShareLink.objects.values_list().get()]
    assert all(token not in value for value in stored)
    page = client_for(bob).get(f"/c/{reviewed.pk}/review/").content.decode()
    assert token not in page, "listed afterwards without its URL"
    assert 'data-testid="share-link"' in page and "bob" in page and 'data-testid="share-revoke"' in page


@pytest.mark.django_db
def test_the_shared_page_opens_signed_out_read_only_and_unindexed(
    reviewed: Conversation, bob: User, carol: User, client_for: Clients
) -> None:
    client_for(carol).post(
        f"/c/{reviewed.pk}/review/comments/post/", {"body": "Atlantis is not a city", "anchor": "conversation"}
    )
    path = share(client_for(bob), reviewed)
    response = client_for(None).get(path)
    assert response.status_code == 200
    assert response["X-Robots-Tag"].startswith("noindex")
    assert response["Cache-Control"] == "no-store" and response["Referrer-Policy"] == "no-referrer"
    html = response.content.decode()
    assert 'data-testid="shared-conversation"' in html
    assert '<meta name="robots" content="noindex, nofollow">' in html
    assert "Weather in four cities" in html and "Atlantis is not a city" in html
    assert 'data-testid="tool-call"' in html and 'data-testid="round-trip"' in html
    for absent in (
        "comment-input",
        "comment-submit",
        "verdict-select",
        "share-create",
        "data-ws-url",
        "csrfmiddlewaretoken",
    ):
        assert absent not in html, absent
    # Credential headers are left out altogether on a shared page, not only their values.
    assert "<dt>authorization</dt>" not in html and "<dt>content-type</dt>" in html
    assert 'data-testid="no-discussion"' not in html, "it has a comment"


def test_a_shared_page_without_comments_says_so(reviewed: Conversation, bob: User, client_for: Clients) -> None:
    html = client_for(None).get(share(client_for(bob), reviewed)).content.decode()
    assert 'data-testid="no-discussion"' in html and "No comments on the conversation as a whole." in html


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("state", "status", "words"), [("revoked", 410, "was revoked"), ("expired", 410, "has expired")]
)
def test_a_revoked_or_expired_link_says_so(
    reviewed: Conversation, bob: User, client_for: Clients, state: str, status: int, words: str
) -> None:
    path = share(client_for(bob), reviewed)
    link = ShareLink.objects.get()
    if state == "revoked":
        revoked = client_for(bob).post(f"/c/{reviewed.pk}/review/shares/{link.pk}/revoke/", **HTMX)
        assert revoked.status_code == 200 and 'data-state="revoked"' in revoked.content.decode()
        assert 'data-testid="share-revoke"' not in revoked.content.decode()
    else:
        ShareLink.objects.filter(pk=link.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    response = client_for(None).get(path)
    assert response.status_code == status
    html = response.content.decode()
    assert words in html and f'data-state="{state}"' in html and "Weather in four cities" not in html
    assert response["X-Robots-Tag"].startswith("noindex")


@pytest.mark.django_db
def test_an_expiry_is_set_when_chosen_and_unknown_tokens_are_404(
    reviewed: Conversation, bob: User, client_for: Clients
) -> None:
    share(client_for(bob), reviewed, expires="7")
    link = ShareLink.objects.get()
    assert link.expires_at is not None
    assert timedelta(days=6, hours=23) < link.expires_at - timezone.now() <= timedelta(days=7)
    unknown = client_for(None).get("/s/not-a-real-token/")
    assert unknown.status_code == 404 and b"No such link" in unknown.content
    assert client_for(None).get("/s/" + "a" * 300 + "/").status_code == 404
    refused = client_for(bob).post(f"/c/{reviewed.pk}/review/shares/", {"expires": "9999"}, **HTMX)
    assert refused.status_code == 400


@pytest.mark.django_db
def test_viewers_cannot_share_or_revoke(reviewed: Conversation, bob: User, carol: User, client_for: Clients) -> None:
    share(client_for(bob), reviewed)
    link = ShareLink.objects.get()
    assert client_for(carol).post(f"/c/{reviewed.pk}/review/shares/", **HTMX).status_code == 403
    assert client_for(carol).post(f"/c/{reviewed.pk}/review/shares/{link.pk}/revoke/", **HTMX).status_code == 403
    assert ShareLink.objects.count() == 1 and ShareLink.objects.get().revoked_at is None
    page = client_for(carol).get(f"/c/{reviewed.pk}/review/").content.decode()
    assert 'data-testid="share-create"' not in page and 'data-testid="share-link"' not in page


# --- a real run against an endpoint with a key ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def echo_url() -> Iterator[str]:
    with echo_provider() as url:
        yield url


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_no_key_or_auth_header_reaches_a_shared_page(
    team: Team, alice: User, echo_url: str, client_for: Clients
) -> None:
    endpoint = Endpoint(team=team, name="Echo", kind=Endpoint.Kind.COMPATIBLE, format="openai-chat", base_url=echo_url)
    endpoint.set_api_key(KEY)
    await endpoint.asave()
    conversation = await Conversation.objects.acreate(team=team, created_by=alice)
    owner = await database_sync_to_async(client_for)(alice)
    cookie = f"sessionid={owner.cookies['sessionid'].value}".encode()
    headers = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1"), (b"cookie", cookie)]
    chat = await open_chat(conversation.pk, headers)
    await chat.receive_json_from()
    # The echo provider quotes the key back in its answer and its error: everything saved is scrubbed already.
    turn = await database_sync_to_async(options)("Echo", model="echo-stream", tools=[])
    await chat.send_json_to({"type": "send", "text": "hello", "options": turn})
    await frames_until(chat, "run.end")
    await chat.disconnect()

    path = await database_sync_to_async(share)(owner, conversation)
    shared = await database_sync_to_async(client_for(None).get)(path)
    signed_in = await database_sync_to_async(owner.get)(f"/c/{conversation.pk}/review/")
    assert shared.status_code == 200 and signed_in.status_code == 200
    for html in (shared.content.decode(), signed_in.content.decode()):
        assert 'data-testid="pane-wire"' in html and "/chat/completions" in html  # the wire request is there
        assert KEY not in html and KEY[8:] not in html
    assert "<dt>authorization</dt>" not in shared.content.decode().lower()
