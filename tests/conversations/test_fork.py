"""Fork: a new conversation with the history up to a message, the same tools, settings and endpoint, linked back."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from playground.conversations.fork import fork_points
from playground.conversations.models import Conversation, WireEventBatch
from tests.conversations.builders import as_streamed

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client
    from django.test.client import _MonkeyPatchedWSGIResponse as Response

pytestmark = pytest.mark.django_db


def fork(client: Client, conversation: Conversation, position: int | str) -> Response:
    return client.post(f"/conversations/{conversation.pk}/fork/", {"position": position})


def forked(response: Response) -> Conversation:
    assert response.status_code == 302
    return Conversation.objects.get(pk=int(response["Location"].strip("/").split("/")[-1]))


def test_a_fork_at_the_first_message(client: Client, saved: Conversation, bob: User) -> None:
    client.force_login(bob)
    response = fork(client, saved, 0)
    copy = forked(response)
    assert response["Location"] == f"/c/{copy.pk}/"  # opened in the playground
    assert (copy.forked_from, copy.forked_at) == (saved, 0)
    assert copy.team == saved.team and copy.created_by == bob and copy.title == "Fork: weather in Oslo?"
    for name in ("endpoint", "endpoint_name", "format", "model", "settings", "tools", "recorded_results"):
        assert getattr(copy, name) == getattr(saved, name), name
    assert copy.status == Conversation.Status.IDLE and copy.status_message == ""
    assert [m.data for m in copy.messages.all()] == [{"role": "user", "content": "weather in Oslo?"}]
    assert not copy.round_trips.exists()
    assert list(saved.messages.values_list("position", flat=True)) == [0, 1, 2, 3, 4]  # the original is untouched


def test_a_fork_at_a_call_keeps_its_result_and_the_round_trip_behind_it(
    client: Client, saved: Conversation, bob: User
) -> None:
    client.force_login(bob)
    copy = forked(fork(client, saved, 1))
    assert [m.role for m in copy.messages.all()] == ["user", "assistant", "tool"]
    assert copy.forked_at == 2  # the last message copied
    [rt] = copy.round_trips.all()
    original = saved.round_trips.get(position=0)
    assert (rt.position, rt.request, rt.wire_events, rt.usage, rt.started_at) == (
        0, original.request, original.wire_events, original.usage, original.started_at,
    )  # fmt: skip
    assert copy.messages.get(position=1).round_trip == rt
    originals = list(saved.messages.order_by("position")[:3])
    assert [m.created_at for m in copy.messages.order_by("position")] == [m.created_at for m in originals]


def test_a_fork_at_the_last_message_copies_everything(client: Client, saved: Conversation, alice: User) -> None:
    client.force_login(alice)
    copy = forked(fork(client, saved, 4))
    assert copy.messages.count() == 5 and copy.round_trips.count() == 2  # the failed one came after message 4
    assert [m.data for m in copy.messages.all()] == [m.data for m in saved.messages.all()]


def test_the_fork_page_links_back(client: Client, saved: Conversation, bob: User) -> None:
    client.force_login(bob)
    copy = forked(fork(client, saved, 3))
    page = client.get(f"/c/{copy.pk}/")
    html = page.content.decode()
    assert 'data-testid="forked-from"' in html and f'href="/c/{saved.pk}/#msg-3"' in html  # at the fork's message
    assert "Forked from weather in Oslo?" in html
    assert any("Forked from" in str(m) for m in page.context["messages"])
    assert 'data-testid="forked-from"' not in client.get(f"/c/{saved.pk}/").content.decode()


def test_viewers_cannot_fork_and_outsiders_see_nothing(
    client: Client, saved: Conversation, carol: User, dave: User
) -> None:
    before = Conversation.objects.count()
    client.force_login(carol)
    assert fork(client, saved, 0).status_code == 403
    assert client.get(f"/conversations/{saved.pk}/fork/menu/").status_code == 403
    client.force_login(dave)
    assert fork(client, saved, 0).status_code == 404
    assert client.get(f"/conversations/{saved.pk}/fork/menu/").status_code == 404
    assert Conversation.objects.count() == before


@pytest.mark.parametrize("position", [99, "", "-1", "one"])
def test_a_position_that_is_no_message_is_refused(
    client: Client, saved: Conversation, bob: User, position: object
) -> None:
    client.force_login(bob)
    before = Conversation.objects.count()
    response = fork(client, saved, position)  # type: ignore[arg-type]
    assert response.status_code == 302 and response["Location"] == f"/c/{saved.pk}/"
    assert Conversation.objects.count() == before
    assert [str(m) for m in client.get(response["Location"]).context["messages"]] == [
        "Pick one of this conversation's messages to fork at."
    ]


def test_fork_is_a_post(client: Client, saved: Conversation, bob: User) -> None:
    client.force_login(bob)
    assert client.get(f"/conversations/{saved.pk}/fork/").status_code == 405


def test_the_fork_menu_lists_every_message_but_tool_results(client: Client, saved: Conversation, bob: User) -> None:
    assert fork_points(saved) == [
        (0, "1. user: weather in Oslo?"),
        (1, "2. assistant: calls get_weather"),
        (3, "3. assistant: It is -3 °C and snowing in Oslo."),
        (4, "4. user: And tomorrow?"),
    ]
    client.force_login(bob)
    menu = client.get(f"/conversations/{saved.pk}/fork/menu/").content.decode()
    assert menu.count("<option") == 4 and '<option value="3">3. assistant: It is -3 °C' in menu


def test_a_message_has_one_number_on_every_page(client: Client, saved: Conversation, bob: User) -> None:
    # Positions count the tool result (2), which no page lists apart: the review said #0, #1, #3, #4, the Fork menu
    # 1 to 4, and a fork at the menu's "3." said "at message 4".
    client.force_login(bob)
    review = client.get(f"/c/{saved.pk}/review/").content.decode()
    assert re.findall(r'data-testid="message-number">#(\d+)<', review) == ["1", "2", "3", "4"]
    copy = forked(fork(client, saved, 3))
    assert "at message 3" in client.get(f"/c/{copy.pk}/").content.decode()


def test_a_fork_copies_the_events_a_streamed_round_trip_keeps_in_batches(
    client: Client, saved: Conversation, bob: User
) -> None:
    original = saved.round_trips.get(position=0)
    original.wire_events = [*original.wire_events, {"t_ms": 30.0, "event": None, "data": "later"}]
    original.save()
    events = as_streamed(original, per_batch=1)
    client.force_login(bob)
    [rt] = forked(fork(client, saved, 1)).round_trips.all()
    assert rt.wire_events == events and rt.event_count == len(events) == 3, "the copy keeps them in its own column"
    assert WireEventBatch.objects.filter(round_trip=original).count() == 3, "the original's are untouched"
