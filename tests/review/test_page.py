"""The review page: the saved timeline with folded panes, what the jump keys go to, and who may open it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from tests.review.conftest import CALLS

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.conversations.models import Conversation

pytestmark = pytest.mark.django_db


def page(client: Client, conversation: Conversation) -> str:
    response = client.get(f"/c/{conversation.pk}/review/")
    assert response.status_code == 200
    return response.content.decode()


def test_the_timeline_shows_messages_calls_and_folded_panes(
    reviewed: Conversation, carol: User, client_for: Callable[[User | None], Client]
) -> None:
    html = page(client_for(carol), reviewed)  # a viewer reads it all
    assert "What&#x27;s the weather in Paris" in html
    for call_id in CALLS.values():
        assert f'data-call-id="{call_id}"' in html
    assert html.count('data-testid="round-trip"') == 2
    # Each round trip's panes are there, folded: no <details class="review-rt"> starts open.
    assert re.findall(r'<details class="review-rt[^"]*"[^>]*>', html)
    assert not re.search(r'<details class="review-rt[^>]*\bopen\b', html)
    assert 'data-testid="pane-wire"' in html and "rate_limit" in html


def test_the_failed_round_trip_stands_alone_after_the_messages_it_followed(
    reviewed: Conversation, carol: User, client_for: Callable[[User | None], Client]
) -> None:
    html = page(client_for(carol), reviewed)
    assert html.index('id="msg-1"') < html.index('id="step-rt-1"')


def test_jump_targets_and_counts(
    reviewed: Conversation, carol: User, client_for: Callable[[User | None], Client]
) -> None:
    html = page(client_for(carol), reviewed)

    def jumps_of(call_id: str) -> str:
        match = re.search(rf'data-call-id="{call_id}"\s+data-status="\w+"\s+(?:data-jump="([^"]*)")?', html)
        assert match is not None, call_id
        return match.group(1) or ""

    assert jumps_of(CALLS["good"]) == ""
    assert jumps_of(CALLS["invalid"]) == "error invalid"  # answered with an error result stating the problem
    assert jumps_of(CALLS["failed"]) == "error"
    assert jumps_of(CALLS["open"]) == "unanswered"
    assert 'id="review-rt-1"\n         data-testid="round-trip" data-jump="error"' in html
    counts = dict(re.findall(r'data-testid="jump-(\w+)"\s*>[^<]*<span class="badge">(\d+)</span>', html))
    assert counts == {"error": "3", "invalid": "1", "unanswered": "1"}


def test_the_page_keeps_to_the_content_security_policy(
    reviewed: Conversation, carol: User, client_for: Callable[[User | None], Client]
) -> None:
    html = page(client_for(carol), reviewed)
    assert "/static/js/review.js" in html
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "no inline script"
    assert " style=" not in html and "<style" not in html, "no inline style"
    assert re.search(r"\son[a-z]+=", html) is None, "no inline event handlers"
    assert 'id="review-keys"' in html  # the keys "?" lists


def test_only_the_conversation_form_is_there_from_the_start(
    reviewed: Conversation, carol: User, client_for: Callable[[User | None], Client]
) -> None:
    html = page(client_for(carol), reviewed)
    assert html.count('data-testid="comment-input"') == 1
    assert html.count('data-testid="comment-submit"') == 1
    assert html.count('data-testid="verdict-select"') == len(CALLS)


def test_outsiders_get_a_404_and_anonymous_visitors_the_sign_in(
    reviewed: Conversation, mallory: User, client_for: Callable[[User | None], Client]
) -> None:
    assert client_for(mallory).get(f"/c/{reviewed.pk}/review/").status_code == 404
    assert client_for(mallory).get("/c/999999/review/").status_code == 404
    response = client_for(None).get(f"/c/{reviewed.pk}/review/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_the_playground_links_to_the_review(
    reviewed: Conversation, alice: User, client_for: Callable[[User | None], Client]
) -> None:
    html = client_for(alice).get(f"/c/{reviewed.pk}/").content.decode()
    assert f'href="/c/{reviewed.pk}/review/" data-testid="review-link"' in html


def test_the_composer_comes_on_demand_for_a_message_a_call_or_a_reply(
    reviewed: Conversation, carol: User, client_for: Callable[[User | None], Client]
) -> None:
    client = client_for(carol)
    url = f"/c/{reviewed.pk}/review/comments/new/"
    on_call = client.get(url, {"anchor": f"call:{CALLS['open']}"}, HTTP_HX_REQUEST="true")
    assert on_call.status_code == 200
    assert f'name="anchor" value="call:{CALLS["open"]}"' in on_call.content.decode()
    assert client.get(url, {"anchor": "message:1"}).status_code == 200
    assert client.get(url, {"anchor": "message:77"}).status_code == 404
    assert client.get(url, {"anchor": "call:nope"}).status_code == 404
    assert client.get(url, {"parent": "123456"}).status_code == 404
    assert client.get(url, {"parent": "²"}).status_code == 200  # not a number of ours: a first comment


def test_a_call_whose_message_broke_off_says_it_never_ran(
    reviewed: Conversation, carol: User, client_for: Callable[[User | None], Client]
) -> None:
    from playground.conversations.models import Message

    cut = {"id": "call_cut", "type": "function", "function": {"name": "get_weather", "arguments": '{"ci'}}
    Message.objects.create(
        conversation=reviewed,
        position=5,
        role="assistant",
        complete=False,
        data={"role": "assistant", "content": None, "tool_calls": [cut]},
    )
    html = page(client_for(carol), reviewed)
    card = html[html.index('data-call-id="call_cut"') :]
    assert '<span class="badge badge-incomplete">incomplete</span>' in card[:600]
    assert "Its message broke off before it ended: never run." in card
    opened = html[html.index(f'data-call-id="{CALLS["open"]}"') :]
    assert "No result was given." in opened[: opened.index('data-call-id="call_cut"')], "a whole call: as before"
    # Its arguments never arrived whole: it is not one of the invalid calls the jump keys go to.
    assert 'data-jump="unanswered"' in card[:600] and "invalid" not in card[: card.index(">")]


def test_a_call_of_a_run_still_going_waits_for_its_result(
    reviewed: Conversation, carol: User, client_for: Callable[[User | None], Client]
) -> None:
    """A teammate reviewing a run that waits for an answer is not told the call was never answered."""
    reviewed.status = "waiting"
    reviewed.save(update_fields=["status"])
    html = page(client_for(carol), reviewed)
    opened = html[html.index(f'data-call-id="{CALLS["open"]}"') :]
    assert "No result yet: the run is still going." in opened[:2000]
    assert "No result was given." not in opened[:2000]
