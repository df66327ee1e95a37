"""Import: a Crosswire export comes back equal; OpenAI Chat and Anthropic request bodies become conversations;
everything else is refused with a sentence, nothing saved, the text kept."""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from playground.chat.options import ChatOptions
from playground.conversations.models import Conversation
from playground.conversations.shapes import SETTING_KINDS
from playground.conversations.transfer import detect_format, export_document
from playground.teams.access import CURRENT_TEAM_SESSION_KEY
from tests.conversations.builders import TOOLS, endpoint_named

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client
    from django.test.client import _MonkeyPatchedWSGIResponse as Response
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db

IMPORT = "/conversations/import/"
MESSAGE_FIELDS = ("position", "role", "data", "complete", "meta", "created_at")
ROUND_TRIP_FIELDS = (
    "position", "format", "model", "request", "notes", "wire_request", "wire_events", "status_code", "finish_reason",
    "raw_finish_reason", "usage", "error", "complete", "ttfb_ms", "total_ms", "started_at",
)  # fmt: skip

OPENAI_BODY = {
    "model": "gpt-4.1-mini",
    "messages": [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_9",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_9", "content": "18 °C, clear"},
    ],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather for a city.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            },
        }
    ],
    "tool_choice": "auto",
    "temperature": 0.5,
    "max_tokens": 300,
    "seed": 7,
}
ANTHROPIC_BODY = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "system": "Use the tools.",
    "tools": [
        {"name": "lookup_order", "description": "Order status.", "input_schema": {"type": "object", "properties": {}}}
    ],
    "messages": [
        {"role": "user", "content": "Where is A-1?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "lookup_order", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "shipped"}]},
    ],
}


def in_team(client: Client, user: User, team: Team) -> None:
    client.force_login(user)
    session = client.session
    session[CURRENT_TEAM_SESSION_KEY] = team.pk
    session.save()


def post(client: Client, text: str = "", fmt: str = "auto", **extra: Any) -> Response:
    return client.post(IMPORT, {"text": text, "format": fmt, **extra})


def imported(response: Response) -> Conversation:
    assert response.status_code == 302, response.content.decode()[:2000]
    pk = int(response["Location"].strip("/").split("/")[-1])
    assert response["Location"] == f"/c/{pk}/"
    return Conversation.objects.get(pk=pk)


def flashes(client: Client, response: Response) -> list[str]:
    return [str(m) for m in client.get(response["Location"]).context["messages"]]


# --- a Crosswire export ------------------------------------------------------------------------------------------


def test_export_then_import_gives_an_equal_conversation(
    client: Client, saved: Conversation, team: Team, bob: User
) -> None:
    in_team(client, bob, team)
    text = client.get(f"/conversations/{saved.pk}/export/json/").content.decode()
    copy = imported(post(client, text))
    assert copy.pk != saved.pk and copy.team == team and copy.created_by == bob
    for name in ("title", "endpoint", "endpoint_name", "format", "model", "settings", "tools", "recorded_results"):
        assert getattr(copy, name) == getattr(saved, name), name
    assert (copy.status, copy.status_message) == (saved.status, saved.status_message)
    originals, copies = list(saved.messages.order_by("position")), list(copy.messages.order_by("position"))
    assert len(copies) == len(originals) == 5
    for original, new in zip(originals, copies, strict=True):
        for name in MESSAGE_FIELDS:
            assert getattr(new, name) == getattr(original, name), (original.position, name)
        assert (new.round_trip.position if new.round_trip else None) == (
            original.round_trip.position if original.round_trip else None
        )
        assert new.round_trip is None or new.round_trip.conversation_id == copy.pk
    originals, copies = list(saved.round_trips.order_by("position")), list(copy.round_trips.order_by("position"))
    assert len(copies) == len(originals) == 3
    for original, new in zip(originals, copies, strict=True):
        for name in ROUND_TRIP_FIELDS:
            assert getattr(new, name) == getattr(original, name), (original.position, name)
    # And the copy exports to the same document.
    assert export_document(copy) == {**export_document(saved), "conversation": export_document(copy)["conversation"]}
    assert client.get(f"/c/{copy.pk}/").status_code == 200


def test_an_export_can_be_uploaded_as_a_file(client: Client, saved: Conversation, team: Team, alice: User) -> None:
    in_team(client, alice, team)
    document = json.dumps(export_document(saved)).encode()
    upload = SimpleUploadedFile("chat.crosswire.json", document, content_type="application/json")
    copy = imported(client.post(IMPORT, {"file": upload, "format": "auto", "text": ""}))
    assert copy.messages.count() == 5 and copy.round_trips.count() == 3


def test_an_unknown_endpoint_is_left_empty_with_its_name_kept(
    client: Client, saved: Conversation, team: Team, bob: User
) -> None:
    in_team(client, bob, team)
    document = export_document(saved)
    document["conversation"]["endpoint_name"] = "Our vLLM box"
    response = post(client, json.dumps(document))
    copy = imported(response)
    assert copy.endpoint is None and copy.endpoint_name == "Our vLLM box" and copy.settings["endpoint_id"] == 0
    notes = flashes(client, response)
    assert any("No endpoint called 'Our vLLM box'" in note for note in notes)
    assert any("lookup_order" in note and "Tools page" in note for note in notes)
    # Its page preselects no other endpoint (the first one was shown as if it were this chat's), and the wire pane
    # names the format the conversation ran in.
    html = client.get(f"/c/{copy.pk}/").content.decode()
    assert '<option value="" data-format="openai-chat" selected>Pick one (Our vLLM box is not here)</option>' in html
    assert "selected>Simulated" not in html


def test_a_running_conversation_comes_back_interrupted(
    client: Client, saved: Conversation, team: Team, bob: User
) -> None:
    in_team(client, bob, team)
    document = export_document(saved)
    document["conversation"]["status"] = "running"
    assert imported(post(client, json.dumps(document))).status == Conversation.Status.INTERRUPTED


def test_a_key_pasted_into_an_import_is_not_stored(client: Client, saved: Conversation, team: Team, bob: User) -> None:
    in_team(client, bob, team)
    document = export_document(saved)
    document["round_trips"][0]["wire_request"]["headers"]["Authorization"] = "Bearer sk-pasted-by-mistake-123456"
    copy = imported(post(client, json.dumps(document)))
    assert copy.round_trips.get(position=0).wire_request["headers"]["Authorization"] == "[redacted]"


# --- a request body ----------------------------------------------------------------------------------------------


def test_an_openai_chat_body_becomes_a_conversation(client: Client, team: Team, bob: User) -> None:
    endpoint_named()
    in_team(client, bob, team)
    response = post(client, json.dumps(OPENAI_BODY))
    conversation = imported(response)
    assert conversation.format == "openai-chat" and conversation.endpoint.name == "Simulated OpenAI"
    assert conversation.model == "gpt-4.1-mini" and conversation.title == "Weather in Paris?"
    messages = [m.data for m in conversation.messages.order_by("position")]
    assert messages == OPENAI_BODY["messages"][1:]  # the system message became the system prompt
    assert [t["name"] for t in conversation.tools] == ["get_weather"]
    assert conversation.tools[0]["parameters"] == OPENAI_BODY["tools"][0]["function"]["parameters"]
    assert conversation.tools[0]["mode"] == "manual"
    settings = conversation.settings
    assert settings["system"] == "You are terse." and settings["tools"] == ["get_weather"]
    assert (settings["temperature"], settings["max_tokens"], settings["model"]) == (0.5, 300, "gpt-4.1-mini")
    assert settings["endpoint_id"] == conversation.endpoint_id
    ChatOptions(**settings)  # the tool loop can go on from it
    notes = flashes(client, response)
    assert notes[0] == "Imported a request in OpenAI Chat format: 3 messages."
    assert "The leading system message became the chat's system prompt." in notes
    assert any("seed" in note for note in notes)
    page = client.get(f"/c/{conversation.pk}/").content.decode()
    assert "Weather in Paris?" in page and "18 °C, clear" in page


def test_an_anthropic_body_is_detected_and_translated(client: Client, team: Team, bob: User) -> None:
    endpoint_named()
    in_team(client, bob, team)
    response = post(client, json.dumps(ANTHROPIC_BODY))
    conversation = imported(response)
    assert conversation.format == "anthropic" and conversation.endpoint.name == "Simulated Anthropic"
    roles = [m.role for m in conversation.messages.order_by("position")]
    assert roles == ["user", "assistant", "tool"]
    assistant = conversation.messages.get(position=1).data
    assert assistant["tool_calls"][0]["id"] == "toolu_1"
    assert assistant["tool_calls"][0]["function"] == {"name": "lookup_order", "arguments": "{}"}
    assert conversation.messages.get(position=2).data["tool_call_id"] == "toolu_1"
    assert conversation.tools[0]["name"] == "lookup_order" and conversation.settings["system"] == "Use the tools."
    notes = flashes(client, response)
    assert any("top-level `system`" in note for note in notes)  # the codec's own translation note
    assert client.get(f"/c/{conversation.pk}/").status_code == 200


@pytest.mark.parametrize(
    ("body", "fmt"),
    [
        (OPENAI_BODY, "openai-chat"),
        (ANTHROPIC_BODY, "anthropic"),
        ({"model": "m", "input": "hi"}, "openai-responses"),
        ({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}, "gemini"),
        ({"model": "m", "messages": [{"role": "user", "content": "hi"}]}, "openai-chat"),
    ],
)
def test_the_format_is_detected_from_the_fields_only_it_has(body: dict[str, Any], fmt: str) -> None:
    assert detect_format(body) == fmt


def test_a_chosen_format_wins_over_detection(client: Client, team: Team, bob: User) -> None:
    endpoint_named()
    in_team(client, bob, team)
    response = post(client, json.dumps(ANTHROPIC_BODY), fmt="openai-chat")
    assert response.status_code == 422
    # Read as OpenAI Chat, the Anthropic tool is no OpenAI tool.
    assert response.context["error"].startswith("Tool lookup_order: Not an OpenAI function tool")


# --- refusals ----------------------------------------------------------------------------------------------------


def refused(client: Client, response: Response, before: int) -> str:
    assert response.status_code == 422
    assert Conversation.objects.count() == before  # nothing saved
    page = response.content.decode()
    assert 'data-testid="import-error"' in page
    return response.context["error"]


def test_too_big_is_refused_with_the_text_kept(
    client: Client, team: Team, bob: User, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_MAX_IMPORT_BYTES = 200
    in_team(client, bob, team)
    before = Conversation.objects.count()
    text = json.dumps(OPENAI_BODY)
    response = post(client, text)
    assert refused(client, response, before) == f"The JSON is {len(text.encode()):,} bytes; the limit is 200."
    assert response.context["text"] == text
    upload = SimpleUploadedFile("big.json", text.encode())
    response = client.post(IMPORT, {"file": upload, "format": "auto"})
    assert refused(client, response, before) == f"big.json is {len(text.encode()):,} bytes; the limit is 200."


def test_too_deep_is_refused(client: Client, team: Team, bob: User, settings: SettingsWrapper) -> None:
    settings.CROSSWIRE_MAX_JSON_DEPTH = 10
    in_team(client, bob, team)
    before = Conversation.objects.count()
    deep: Any = "x"
    for _ in range(20):
        deep = {"a": deep}
    message = refused(client, post(client, json.dumps({"messages": [], "x": deep})), before)
    assert message == "The JSON is nested too deeply: at most 10 levels of objects and arrays are accepted."


@pytest.mark.parametrize(
    ("text", "fmt", "expected"),
    [
        ("", "auto", "Paste a conversation export or a request body, or choose a file."),
        ("{not json", "auto", "Invalid JSON"),
        ("[1, 2]", "auto", "Expected a JSON object"),
        ('{"hello": "world"}', "auto", "it has no `messages`, `input` or `contents`"),
        (
            '{"format": "crosswire.tools", "version": 1, "tools": []}',
            "auto",
            "This is a Crosswire tool list, not a conversation: import it on the Tools page (Import).",
        ),
        ('{"messages": [{"role": "user", "content": "hi"}]}', "crosswire", "`format` must be 'crosswire.conversation'"),
        ('{"format": "crosswire.conversation", "version": 2}', "auto", "Unsupported Crosswire export version 2"),
        ('{"format": "crosswire.conversation", "version": 1}', "anthropic", "not a request body in Anthropic format"),
        ('{"messages": "hi"}', "openai-chat", "Crosswire cannot read this as a request in OpenAI Chat format"),
        ('{"messages": []}', "openai-chat", "The request has no messages to import."),
        ('{"messages": [{"role": "user", "content": "hi"}]}', "yaml", "Choose one of the listed formats."),
    ],
)
def test_wrong_input_is_refused(client: Client, team: Team, bob: User, text: str, fmt: str, expected: str) -> None:
    in_team(client, bob, team)
    before = Conversation.objects.count()
    response = post(client, text, fmt=fmt)
    assert expected in refused(client, response, before)
    assert response.context["text"] == text


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (("messages", 1, "data", "tool_calls", 0), {"id": "x"}, "message 2, tool call 1: `function` is missing."),
        (("messages", 0, "data", "role"), "robot", "message 1: unknown role 'robot'."),
        (("messages", 1, "round_trip"), 7, "message 2: it names round trip 7"),
        (("messages", 2, "meta", "attempt"), "two", "message 3 meta: `attempt` must be an integer."),
        (("round_trips", 0, "wire_request", "url"), None, "round trip 1 wire request: `url` must be text."),
        (("round_trips", 0, "usage"), [1], "round trip 1: `usage` must be an object or null."),
        (("round_trips", 1, "position"), 0, "Two round trips have the same position."),
        (("round_trips", 0, "finish_reason"), "x" * 31, "`finish_reason` is longer than 30 characters."),
        (("conversation", "settings", "max_tokens"), "lots", "settings: `max_tokens` must be an integer."),
        (("conversation", "tools", 0, "parameters"), {"type": 7}, "Tool get_weather: parameters"),
        (("conversation", "format"), "smoke-signals", "unknown wire format 'smoke-signals'"),
        (("round_trips", 0, "request", "tools", 0, "function", "parameters"), "x", "round trip 1 request tool 1"),
    ],
)
def test_a_damaged_export_is_refused_saying_where(
    client: Client, saved: Conversation, team: Team, bob: User, path: tuple[Any, ...], value: Any, expected: str
) -> None:
    document = export_document(saved)
    target: Any = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    in_team(client, bob, team)
    before = Conversation.objects.count()
    assert expected in refused(client, post(client, json.dumps(document)), before)


def test_viewers_cannot_import(client: Client, saved: Conversation, team: Team, carol: User) -> None:
    in_team(client, carol, team)
    assert client.get(IMPORT).status_code == 403
    before = Conversation.objects.count()
    assert post(client, json.dumps(export_document(saved))).status_code == 403
    assert Conversation.objects.count() == before


def test_the_import_page(client: Client, team: Team, bob: User) -> None:
    in_team(client, bob, team)
    page = client.get(IMPORT).content.decode()
    for testid in ("import-input", "import-file", "import-format", "import-submit"):
        assert f'data-testid="{testid}"' in page
    assert 'enctype="multipart/form-data"' in page
    assert 'href="/conversations/import/"' in client.get("/conversations/").content.decode()


def test_an_import_lands_in_the_current_team(client: Client, saved: Conversation, bob: User) -> None:
    client.force_login(bob)  # no team picked: his personal team
    copy = imported(post(client, json.dumps(export_document(saved))))
    assert copy.team.personal_for == bob and copy.endpoint == saved.endpoint  # a built-in endpoint every team sees


def test_the_settings_checked_are_the_chat_options() -> None:
    assert set(SETTING_KINDS) == {f.name for f in dataclasses.fields(ChatOptions)}


def test_the_builders_tools_are_valid_snapshots() -> None:
    from playground.conversations.shapes import tool_snapshots

    assert tool_snapshots(TOOLS, "crosswire") == TOOLS
