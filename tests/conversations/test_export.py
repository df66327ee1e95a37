"""Exports: Crosswire JSON, the Markdown transcript, one wire request; who may download them; no key ever leaves."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from playground.conversations.markdown import conversation_markdown, fence
from playground.conversations.models import Message, RoundTrip, WireEventBatch
from playground.conversations.transfer import FORMAT, VERSION, export_document
from playground.endpoints.models import Endpoint
from tests.conversations.builders import as_streamed, saved_conversation, wire

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.conversations.models import Conversation
    from playground.teams.models import Team

pytestmark = pytest.mark.django_db

KEY = "sk-live-7Hq2vX9pLmN4rT8wYz3aBc5dEf"
EXPORTS = ["json", "markdown", "otel"]


def url(conversation: Conversation, kind: str) -> str:
    return f"/conversations/{conversation.pk}/export/{kind}/"


def test_the_json_export_is_a_download_with_every_part_of_the_conversation(
    client: Client, saved: Conversation, bob: User
) -> None:
    client.force_login(bob)
    response = client.get(url(saved, "json"))
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == f'attachment; filename="weather-in-oslo-{saved.pk}.crosswire.json"'
    document = json.loads(response.content)
    assert (document["format"], document["version"]) == (FORMAT, VERSION) == ("crosswire.conversation", 1)
    head = document["conversation"]
    assert head["title"] == "weather in Oslo?" and head["endpoint_name"] == "Simulated OpenAI"
    assert (head["format"], head["model"]) == ("openai-chat", "sim-1")
    assert head["tools"] == saved.tools
    # The endpoint's id means nothing elsewhere; the rest of the settings travel as they are.
    assert head["settings"] == {k: v for k, v in saved.settings.items() if k != "endpoint_id"}
    assert [m["role"] for m in document["messages"]] == ["user", "assistant", "tool", "assistant", "user"]
    call = document["messages"][1]
    assert call["round_trip"] == 0 and call["data"]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert document["messages"][2]["meta"] == {"source": "manual", "attempt": 1}
    assert document["messages"][2]["round_trip"] is None
    first, _, failed = document["round_trips"]
    assert first["request"]["model"] == "sim-1" and first["notes"] == [saved.round_trips.get(position=0).notes[0]]
    assert first["wire_request"]["headers"]["authorization"] == "[redacted]"
    assert first["wire_events"][0] == {"t_ms": 12.5, "event": None, "data": '{"choices":[]}'}
    assert (first["status_code"], first["finish_reason"]) == (200, "tool_calls")
    assert first["raw_finish_reason"] == "tool_calls"
    assert first["usage"]["prompt_tokens"] == 12 and first["complete"] is True
    assert (first["ttfb_ms"], first["total_ms"]) == (12.5, 40.0)
    assert failed["error"]["type"] == "rate_limit" and failed["status_code"] == 429 and failed["complete"] is False


def test_a_round_trip_still_streaming_exports_its_batched_events(saved: Conversation) -> None:
    rt = saved.round_trips.get(position=2)
    rt.event_batches.create(seq=0, events=[[50.0, "data: late", "message"]])
    exported = export_document(saved)["round_trips"][2]["wire_events"]
    assert exported[-1] == {"t_ms": 50.0, "data": "data: late", "event": "message"}


def test_a_streamed_round_trip_exports_the_events_its_batches_keep(saved: Conversation) -> None:
    rt = saved.round_trips.get(position=0)
    rt.wire_events = [
        *rt.wire_events,
        {"t_ms": 30.0, "event": "x", "data": "two"},
        {"t_ms": 31.0, "event": None, "data": "3"},
    ]
    rt.save()
    events = as_streamed(rt)
    assert rt.wire_events == [] and WireEventBatch.objects.filter(round_trip=rt).count() == 2
    assert export_document(saved)["round_trips"][0]["wire_events"] == events


def test_no_export_holds_the_endpoint_key(client: Client, team: Team, alice: User) -> None:
    endpoint = Endpoint(
        team=team, name="Real OpenAI", kind="openai", format="openai-chat", base_url="https://api.openai.com/v1"
    )
    endpoint.set_api_key(KEY)
    endpoint.save()
    conversation = saved_conversation(team, alice, endpoint=endpoint)
    # Stored redacted as every run stores it; and a key a provider quoted back, planted where a bug could leave it.
    RoundTrip.objects.filter(conversation=conversation, position=2).update(
        error={"type": "auth", "message": f"Incorrect API key provided: {KEY}"}
    )
    client.force_login(alice)
    bodies = [client.get(url(conversation, kind)).content.decode() for kind in EXPORTS]
    bodies.append(client.get(f"/conversations/{conversation.pk}/export/round-trips/0/wire/").content.decode())
    for body in bodies:
        assert KEY not in body and KEY[-8:] not in body
    assert "Incorrect API key provided: [redacted]" in bodies[0]


def test_a_key_in_an_unredacted_header_is_redacted_on_the_way_out(saved: Conversation) -> None:
    RoundTrip.objects.filter(conversation=saved, position=0).update(
        wire_request={**wire(), "headers": {"x-api-key": "sk-ant-secret-value-123456"}}
    )
    assert "sk-ant-secret" not in json.dumps(export_document(saved))


def test_the_wire_export_is_the_body_the_provider_got(client: Client, saved: Conversation, carol: User) -> None:
    client.force_login(carol)  # a viewer may export: it only reads
    response = client.get(f"/conversations/{saved.pk}/export/round-trips/0/wire/")
    assert response.status_code == 200
    assert response["Content-Disposition"].endswith(f'-{saved.pk}-round-trip-1-openai-chat.json"')
    assert json.loads(response.content) == wire()["body"]
    assert client.get(f"/conversations/{saved.pk}/export/round-trips/9/wire/").status_code == 404
    RoundTrip.objects.filter(conversation=saved, position=1).update(wire_request=None)
    assert client.get(f"/conversations/{saved.pk}/export/round-trips/1/wire/").status_code == 404


@pytest.mark.parametrize("kind", EXPORTS)
def test_exports_are_for_team_members_only(
    client: Client, saved: Conversation, carol: User, dave: User, kind: str
) -> None:
    client.force_login(dave)
    assert client.get(url(saved, kind)).status_code == 404
    assert client.get(f"/conversations/{saved.pk}/export/round-trips/0/wire/").status_code == 404
    assert client.get(f"/conversations/{saved.pk}/export/menu/").status_code == 404
    client.force_login(carol)
    assert client.get(url(saved, kind)).status_code == 200
    client.logout()
    assert client.get(url(saved, kind)).status_code == 302  # to the sign-in page


def test_the_markdown_transcript(client: Client, saved: Conversation, alice: User) -> None:
    client.force_login(alice)
    response = client.get(url(saved, "markdown"))
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="weather-in-oslo-{saved.pk}.md"'
    text = response.content.decode()
    assert text.startswith("# weather in Oslo?\n")
    assert "- **Endpoint:** Simulated OpenAI (openai-chat) · **model:** `sim-1`" in text
    assert "- **Tools:** `get_weather`, `lookup_order`" in text and "Answer in one line." in text
    assert text.count("## User") == 2 and text.count("## Assistant") == 2
    assert "### Tool call `get_weather` · `call_1`" in text
    assert '```json\n{\n  "city": "Oslo"\n}\n```' in text  # arguments pretty-printed
    assert '**Result** (manual):\n\n```\n{\n  "temp": -3,\n  "sky": "snow"\n}\n```' in text
    assert "It is -3 °C and snowing in Oslo." in text
    error = "> **Error** in round trip 3 (rate_limit · HTTP 429 · retry after 2 s): Rate limited."
    assert error in text
    # In order: the failed round trip came after the second question.
    assert text.index("## User", text.index("snowing")) < text.index(error)
    assert text.rstrip().endswith("*Error: Rate limited. Retry after 2 s.*")


def test_markdown_marks_errors_incomplete_messages_and_unrun_calls(saved: Conversation) -> None:
    Message.objects.filter(conversation=saved, position=2).update(
        data={"role": "tool", "tool_call_id": "call_1", "content": "no such city", "is_error": True}
    )
    Message.objects.filter(conversation=saved, position=3).update(complete=False)
    text = conversation_markdown(saved)
    assert "**Error result** (manual):" in text and "no such city" in text
    assert "## Assistant *(incomplete: the stream broke off)*" in text


def test_a_fence_is_longer_than_any_backticks_inside() -> None:
    assert fence("plain") == "```\nplain\n```"
    assert fence("a ```` b", "json") == "`````json\na ```` b\n`````"


def test_the_conversation_page_offers_export_and_fork(
    client: Client, saved: Conversation, carol: User, bob: User
) -> None:
    client.force_login(bob)
    page = client.get(f"/c/{saved.pk}/").content.decode()
    for testid in ("export-json", "export-markdown", "export-otel", "export-wire", "fork-button", "fork-at"):
        assert f'data-testid="{testid}"' in page
    assert f'href="/conversations/{saved.pk}/export/json/"' in page
    client.force_login(carol)
    page = client.get(f"/c/{saved.pk}/").content.decode()
    assert 'data-testid="export-json"' in page and 'data-testid="fork-button"' not in page


def test_the_export_menu_lists_the_round_trips_that_sent_something(
    client: Client, saved: Conversation, bob: User
) -> None:
    RoundTrip.objects.filter(conversation=saved, position=1).update(wire_request=None)
    client.force_login(bob)
    menu = client.get(f"/conversations/{saved.pk}/export/menu/").content.decode()
    assert f"/conversations/{saved.pk}/export/round-trips/0/wire/" in menu
    assert "/round-trips/1/wire/" not in menu and "/round-trips/2/wire/" in menu
