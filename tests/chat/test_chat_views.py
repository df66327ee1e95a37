"""The playground pages: drafts, the saved transcript and panes as HTML, access, and the conversations list."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from playground.chat.options import ChatOptions
from playground.conversations.models import Conversation, Message, RoundTrip
from playground.teams.access import ensure_personal_team

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db

CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
WIRE = {
    "method": "POST",
    "url": "http://127.0.0.1:8000/sim/openai/v1/chat/completions",
    "headers": {"authorization": "[redacted]", "content-type": "application/json"},
    "body": {"model": "sim-1", "messages": [{"role": "user", "content": "weather in Oslo?"}], "stream": True},
}


def saved_chat(team: Team, user: User) -> Conversation:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    conversation = Conversation.objects.create(
        team=team,
        created_by=user,
        title="weather in Oslo?",
        format="openai-chat",
        model="sim-1",
        endpoint_name="Simulated OpenAI",
        status="done",
        tools=[{"name": "get_weather", "parameters": schema}],
    )
    rt = RoundTrip.objects.create(
        conversation=conversation,
        position=0,
        format="openai-chat",
        model="sim-1",
        request={
            "model": "sim-1",
            "messages": [{"role": "user", "content": "weather in Oslo?"}],
            "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": schema}}],
        },
        notes=["reasoning dropped: target format has no equivalent"],
        wire_request=WIRE,
        wire_events=[{"t_ms": 12.4, "event": None, "data": '{"choices":[]}'}],
        status_code=200,
        finish_reason="tool_calls",
        raw_finish_reason="tool_calls",
        complete=True,
        ttfb_ms=12.4,
        total_ms=40.0,
        usage={"prompt_tokens": 10, "completion_tokens": 5},
    )
    rows = [
        ("user", {"role": "user", "content": "weather in Oslo?"}, None, {}),
        ("assistant", {"role": "assistant", "content": None, "tool_calls": [CALL]}, rt, {}),
        ("tool", {"role": "tool", "tool_call_id": "call_1", "content": "-3 and snow"}, None, {"source": "manual"}),
    ]
    for position, (role, data, round_trip, meta) in enumerate(rows):
        Message.objects.create(
            conversation=conversation, position=position, role=role, data=data, round_trip=round_trip, meta=meta
        )
    return conversation


def test_the_playground_opens_a_draft_and_reuses_it(client: Client, alice: User) -> None:
    client.force_login(alice)
    first = client.get("/")
    assert first.status_code == 302 and first["Location"].startswith("/c/")
    assert client.get("/")["Location"] == first["Location"]
    page = client.get(first["Location"])
    assert page.status_code == 200
    assert b'data-testid="composer"' in page.content and b'data-testid="transcript-empty"' in page.content


def test_a_saved_chat_renders_its_cards_and_panes(client: Client, team: Team, alice: User) -> None:
    conversation = saved_chat(team, alice)
    client.force_login(alice)
    html = client.get(f"/c/{conversation.pk}/").content.decode()
    assert 'data-testid="tool-call"' in html and "get_weather" in html and "-3 and snow" in html
    assert "✓ arguments match the schema" in html
    assert 'data-testid="translation-note"' in html and "reasoning dropped" in html
    assert 'data-testid="wire-event"' in html and "+12ms" in html
    assert "stop tool_calls → tool_calls" in html and "TTFB 12 ms" in html
    copy_url = f"/c/{conversation.pk}/round-trips/0/copy/curl/"
    assert f'data-copy-url="{copy_url}"' in html, "the snippet is fetched when asked for, not sent with every pane"
    curl = client.get(copy_url)
    assert curl["Content-Type"].startswith("text/plain")
    assert "${OPENAI_API_KEY}" in curl.content.decode(), "copy as curl names the key's variable, never a value"


def test_invalid_saved_arguments_point_at_the_field(client: Client, team: Team, alice: User) -> None:
    conversation = saved_chat(team, alice)
    message = conversation.messages.get(role="assistant")
    message.data["tool_calls"][0]["function"]["arguments"] = '{"city": 7}'
    message.save()
    client.force_login(alice)
    assert "/city: 7 is not of type" in client.get(f"/c/{conversation.pk}/").content.decode()


def test_calls_are_judged_by_the_tools_their_round_trip_sent(client: Client, team: Team, alice: User) -> None:
    conversation = saved_chat(team, alice)
    stricter = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city", "country"]}
    conversation.tools = [{"name": "get_weather", "parameters": stricter}]  # a later turn changed the tool
    conversation.save()
    client.force_login(alice)
    html = client.get(f"/c/{conversation.pk}/").content.decode()
    assert "✓ arguments match the schema" in html and "'country' is a required property" not in html


def test_partials_render_for_htmx(client: Client, team: Team, alice: User) -> None:
    conversation = saved_chat(team, alice)
    client.force_login(alice)
    transcript = client.get(f"/c/{conversation.pk}/transcript/").content.decode()
    panes = client.get(f"/c/{conversation.pk}/panes/").content.decode()
    assert transcript.lstrip().startswith('<div id="transcript"') and 'data-message-count="3"' in transcript
    assert panes.lstrip().startswith('<div id="panes"') and 'id="rt-0"' in panes


def test_viewers_read_without_a_composer(client: Client, team: Team, alice: User, carol: User) -> None:
    conversation = saved_chat(team, alice)
    client.force_login(carol)
    html = client.get(f"/c/{conversation.pk}/").content.decode()
    assert "-3 and snow" in html and 'data-testid="composer"' not in html


def test_other_teams_get_a_404(client: Client, team: Team, alice: User, django_user_model: type[User]) -> None:
    conversation = saved_chat(team, alice)
    client.force_login(django_user_model.objects.create_user("mallory", password="pw-123456"))
    assert client.get(f"/c/{conversation.pk}/").status_code == 404
    assert client.get(f"/c/{conversation.pk}/panes/").status_code == 404


def test_conversation_list_shows_saved_chats_and_searches(client: Client, team: Team, alice: User) -> None:
    saved_chat(team, alice)
    Conversation.objects.create(team=team, created_by=alice)  # an empty draft: not listed
    client.force_login(alice)
    session = client.session
    session["team_id"] = team.pk
    session.save()
    client.post("/team/switch/", {"team": team.pk})
    html = client.get("/conversations/").content.decode()
    assert html.count('data-testid="conversation-row"') == 1 and "weather in Oslo?" in html
    assert "No conversation matches" in client.get("/conversations/?q=tokyo").content.decode()


def test_a_run_waiting_for_an_answer_does_not_say_who_to_a_teammate(
    client: Client, team: Team, alice: User, carol: User
) -> None:
    # Any editor of the team may answer, and a viewer none: "Waiting for you" read as meant for whoever looked.
    conversation = saved_chat(team, alice)
    Conversation.objects.filter(pk=conversation.pk).update(status=Conversation.Status.WAITING)
    client.force_login(carol)
    client.post("/team/switch/", {"team": team.pk})
    html = client.get("/conversations/").content.decode()
    assert 'data-status="waiting">Waiting for an answer<' in html
    assert "Waiting for you" not in html


def test_new_chat_copies_the_last_settings(client: Client, alice: User) -> None:
    team = ensure_personal_team(alice)
    Conversation.objects.create(team=team, created_by=alice, settings={"endpoint_id": 5, "model": "sim-deepseek"})
    client.force_login(alice)
    response = client.post("/c/new/")
    created = Conversation.objects.get(pk=int(response["Location"].strip("/").split("/")[-1]))
    assert created.settings["model"] == "sim-deepseek"


def test_a_comparisons_conversations_are_neither_drafts_nor_settings_to_copy(client: Client, alice: User) -> None:
    """Compare makes one conversation per column and repeat, and a replay a copy: none of them is a chat of the
    person's own, so the playground neither opens an unrun repeat as its draft nor copies a column's settings."""
    from playground.compare.models import Comparison, ComparisonRun

    team = ensure_personal_team(alice)
    own = Conversation.objects.create(team=team, created_by=alice, settings={"endpoint_id": 5, "model": "mine"})
    Message.objects.create(conversation=own, position=0, role="user", data={"role": "user", "content": "hi"})
    compared = Comparison.objects.create(team=team, created_by=alice, title="Weather")
    replayed = Comparison.objects.create(team=team, created_by=alice, title="Replay", kind="replay")
    made = [
        (compared, 0, Conversation.objects.create(team=team, created_by=alice, settings={"model": "column"})),
        (replayed, 0, own),
        (replayed, 1, Conversation.objects.create(team=team, created_by=alice, settings={"model": "replay"})),
    ]
    for comparison, position, conversation in made:
        ComparisonRun.objects.create(comparison=comparison, position=position, conversation=conversation)
    client.force_login(alice)
    draft = Conversation.objects.get(pk=int(client.get("/")["Location"].strip("/").split("/")[-1]))
    assert draft.pk not in {conversation.pk for _, _, conversation in made}, "an unrun column is not a draft"
    assert draft.settings["model"] == "mine", "a replayed chat is still the person's own"
    created = client.post("/c/new/")
    assert Conversation.objects.get(pk=int(created["Location"].strip("/").split("/")[-1])).settings["model"] == "mine"


def test_keyless_endpoints_get_a_placeholder_the_sdks_accept(team: Team) -> None:
    from playground.endpoints.models import Endpoint

    ollama = Endpoint.objects.create(
        team=team, name="Ollama", kind="openai-compatible", format="openai-chat", base_url="http://localhost:11434/v1"
    )
    assert ollama.client_endpoint().api_key == "no-key"
    ollama.set_api_key("sk-real")
    assert ollama.client_endpoint().api_key == "sk-real"


def test_a_viewer_starts_no_conversation(client: Client, team: Team, carol: User) -> None:
    client.force_login(carol)
    client.post("/team/switch/", {"team": team.pk})
    before = Conversation.objects.count()
    response = client.post("/c/new/")
    assert response.status_code == 403 and b"viewer in Evals" in response.content
    assert b'data-testid="forbidden"' in response.content, "the app's own page, not a bare text"
    opened = client.get("/", follow=True)
    assert opened.redirect_chain[-1][0] == "/conversations/"
    assert b"You are a viewer in Evals" in opened.content  # the flash message, rendered by base.html
    assert Conversation.objects.count() == before


def _transcript(html: str) -> str:
    return html[html.index('id="transcript"') : html.index('id="live"')]


def test_a_round_trip_that_failed_keeps_its_error_card_in_the_transcript(
    client: Client, team: Team, alice: User
) -> None:
    """As the chat drew it live: on the message the round trip saved, or on an assistant message of its own when it
    failed before any text; in the order things happened, the next turn's message after it."""
    conversation = saved_chat(team, alice)
    rate_limited = {"type": "rate_limit", "message": "Too many requests", "retry_after": 2}
    RoundTrip.objects.create(
        conversation=conversation, position=1, format="openai-chat", model="sim-1", complete=False, error=rate_limited
    )
    Message.objects.create(
        conversation=conversation, position=3, role="user", data={"role": "user", "content": "and in Bergen?"}
    )
    cut = RoundTrip.objects.create(
        conversation=conversation,
        position=2,
        format="openai-chat",
        model="sim-1",
        complete=False,
        error={"type": "connection", "message": "The stream ended before the provider finished its answer."},
    )
    Message.objects.create(
        conversation=conversation,
        position=4,
        role="assistant",
        complete=False,
        round_trip=cut,
        data={"role": "assistant", "content": "Bergen is"},
    )
    client.force_login(alice)
    transcript = _transcript(client.get(f"/c/{conversation.pk}/").content.decode())
    cards = re.findall(r'data-testid="error"><strong>(\w+)</strong> ([^<]*)<', transcript)
    assert cards == [
        ("rate_limit", "Too many requests · retry after 2 s"),
        ("connection", "The stream ended before the provider finished its answer."),
    ]
    order = [transcript.index(mark) for mark in ("-3 and snow", "Too many requests", "and in Bergen?", "Bergen is")]
    assert order == sorted(order), "the failure sits between the turn it ended and the next one"
    assert transcript.count('data-show-rt="1"') == 1, "the failed round trip links to its panes, as the live one did"


def test_a_transcript_without_failures_shows_no_error_card(client: Client, team: Team, alice: User) -> None:
    conversation = saved_chat(team, alice)
    client.force_login(alice)
    assert 'data-testid="error"' not in _transcript(client.get(f"/c/{conversation.pk}/").content.decode())


def test_a_viewer_is_offered_no_new_chat_and_no_import(client: Client, team: Team, alice: User, carol: User) -> None:
    conversation = saved_chat(team, alice)
    client.force_login(carol)
    client.post("/team/switch/", {"team": team.pk})
    for page in (f"/c/{conversation.pk}/", "/conversations/"):
        html = client.get(page).content.decode()
        assert 'data-testid="new-chat"' not in html and 'data-testid="import-link"' not in html, page
    client.force_login(alice)
    client.post("/team/switch/", {"team": team.pk})
    assert 'data-testid="new-chat"' in client.get(f"/c/{conversation.pk}/").content.decode()
    listed = client.get("/conversations/").content.decode()
    assert 'data-testid="new-chat"' in listed and 'data-testid="import-link"' in listed


def _unanswered_chat(team: Team, user: User, status: str) -> Conversation:
    """A chat whose last answer made a call that got no result."""
    conversation = saved_chat(team, user)
    conversation.messages.filter(role="tool").delete()
    conversation.status = status
    conversation.save()
    return conversation


@pytest.mark.parametrize(
    ("status", "badge"),
    [("waiting", "pending"), ("interrupted", "pending"), ("stopped", "unanswered"), ("done", "unanswered")],
)
def test_a_call_without_a_result_is_pending_only_while_its_run_may_answer_it(
    client: Client, team: Team, alice: User, status: str, badge: str
) -> None:
    conversation = _unanswered_chat(team, alice, status)
    client.force_login(alice)
    client.post("/team/switch/", {"team": team.pk})
    html = _transcript(client.get(f"/c/{conversation.pk}/").content.decode())
    assert f'data-status="{badge}"' in html and f'<span class="badge badge-{badge}">{badge}</span>' in html


def test_an_older_answers_call_left_without_a_result_is_unanswered_while_a_new_run_waits(
    team: Team, alice: User
) -> None:
    from playground.conversations.present import transcript

    conversation = _unanswered_chat(team, alice, "waiting")
    later = {"role": "assistant", "content": None, "tool_calls": [{**CALL, "id": "call_2"}]}
    Message.objects.create(conversation=conversation, position=5, role="user", data={"role": "user", "content": "hi"})
    Message.objects.create(conversation=conversation, position=6, role="assistant", data=later)
    views = transcript(conversation, list(conversation.messages.order_by("position")), {})
    assert [(c.id, c.status) for v in views for c in v.calls] == [("call_1", "unanswered"), ("call_2", "pending")]


def test_a_stopped_answers_call_stays_unanswered_while_the_next_turn_starts(team: Team, alice: User) -> None:
    """The person's next message is saved before the new turn's answer: the old call is still left out for good."""
    from playground.conversations.present import transcript

    conversation = _unanswered_chat(team, alice, "running")
    Message.objects.create(conversation=conversation, position=5, role="user", data={"role": "user", "content": "hi"})
    views = transcript(conversation, list(conversation.messages.order_by("position")), {})
    assert [(c.id, c.status) for v in views for c in v.calls] == [("call_1", "unanswered")]


def test_a_call_run_with_edited_arguments_shows_them_beside_the_models(client: Client, team: Team, alice: User) -> None:
    conversation = saved_chat(team, alice)
    conversation.messages.filter(role="tool").update(meta={"source": "manual", "edited_arguments": '{"city":"Bergen"}'})
    client.force_login(alice)
    client.post("/team/switch/", {"team": team.pk})
    html = _transcript(client.get(f"/c/{conversation.pk}/").content.decode())
    edited = html[html.index('data-testid="tool-call-edited"') :]
    assert "Ran with your edit" in edited and "&quot;city&quot;: &quot;Bergen&quot;" in edited
    assert "&quot;city&quot;: &quot;Oslo&quot;" in html[: html.index('data-testid="tool-call-edited"')]


def test_the_folded_drawer_says_which_settings_differ_from_a_first_chats(client: Client, alice: User) -> None:
    team = ensure_personal_team(alice)
    plain = Conversation.objects.create(team=team, created_by=alice, settings={"endpoint_id": 1, "model": "sim-1"})
    changed = Conversation.objects.create(
        team=team, created_by=alice, settings={"endpoint_id": 1, "model": "sim-1", "approve": True, "max_tokens": 8}
    )
    client.force_login(alice)
    assert 'data-testid="options-changed"' not in client.get(f"/c/{plain.pk}/").content.decode()
    html = client.get(f"/c/{changed.pk}/").content.decode()
    said = html[html.index('data-testid="options-changed"') :]
    assert said[: said.index("</span>")].endswith("· max tokens 8 · approve before running")


def test_reset_brings_a_first_chats_settings_back_for_this_chat_and_the_next(client: Client, alice: User) -> None:
    """A new chat copies the last one's settings; Reset is the way back, and the next new chat starts from it."""
    team = ensure_personal_team(alice)
    client.force_login(alice)
    first = Conversation.objects.get(pk=int(client.get("/").url.rstrip("/").rsplit("/", 1)[1]))
    defaults = dict(first.settings)
    carried = {**defaults, "approve": True, "max_tokens": 8, "strategy": "prompted", "tools": []}
    changed = Conversation.objects.create(team=team, created_by=alice, settings=carried)
    assert 'data-testid="options-reset"' in client.get(f"/c/{changed.pk}/").content.decode()
    response = client.post(f"/c/{changed.pk}/settings/reset/")
    assert response.status_code == 302 and response.url == f"/c/{changed.pk}/"
    changed.refresh_from_db()
    assert changed.settings == defaults
    html = client.get(f"/c/{changed.pk}/").content.decode()
    assert 'data-testid="options-changed"' not in html
    assert "Settings reset to a first chat&#x27;s" in html
    newer = client.post("/c/new/")
    assert Conversation.objects.get(pk=int(newer.url.rstrip("/").rsplit("/", 1)[1])).settings == defaults


def test_settings_are_saved_as_they_change_and_a_half_typed_form_is_refused(client: Client, alice: User) -> None:
    """A box unticked and never sent with a message is what the next new chat starts from."""
    team = ensure_personal_team(alice)
    client.force_login(alice)
    chat = Conversation.objects.get(pk=int(client.get("/").url.rstrip("/").rsplit("/", 1)[1]))
    url = f"/c/{chat.pk}/settings/"
    changed = {**ChatOptions(endpoint_id=1, model="sim-1").to_dict(), "approve": True, "max_tokens": 8}
    saved = client.post(url, changed, content_type="application/json")
    assert saved.json() == {"saved": True, "changed": ["max tokens 8", "approve before running"]}
    half_typed = client.post(url, {**changed, "model": "", "approve": False}, content_type="application/json")
    assert half_typed.json()["saved"] is False and "model" in half_typed.json()["errors"]
    assert client.post(url, "not json", content_type="application/json").json()["saved"] is False
    chat.refresh_from_db()
    assert chat.settings["approve"] is True and chat.settings["max_tokens"] == 8, "the last valid settings stay"
    unticked = client.post(url, {**changed, "approve": False}, content_type="application/json")
    assert unticked.json() == {"saved": True, "changed": ["max tokens 8"]}
    newer = client.post("/c/new/")
    assert Conversation.objects.get(pk=int(newer.url.rstrip("/").rsplit("/", 1)[1])).settings["approve"] is False
    assert team.pk == chat.team_id


def test_a_viewer_reads_the_settings_but_cannot_change_them(
    client: Client, team: Team, alice: User, carol: User
) -> None:
    conversation = saved_chat(team, alice)
    for user, disabled in ((carol, True), (alice, False)):
        client.force_login(user)
        client.post("/team/switch/", {"team": team.pk})
        html = client.get(f"/c/{conversation.pk}/").content.decode()
        fieldset = html[html.index('class="options-fieldset"') :]
        assert (" disabled " in fieldset[: fieldset.index(">")]) is disabled, user
        assert ('data-testid="options-reset"' in html) is not disabled, user


def test_a_result_of_unknown_source_is_not_followed_by_an_empty_dot(client: Client, team: Team, alice: User) -> None:
    """An imported conversation's results say nothing of how they were answered: the label says Result alone."""
    conversation = Conversation.objects.create(team=team, created_by=alice, title="Imported", settings={"model": "m"})
    call = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
    rows = [
        ("user", {"role": "user", "content": "Weather?"}),
        ("assistant", {"role": "assistant", "content": None, "tool_calls": [call]}),
        ("tool", {"role": "tool", "tool_call_id": "c1", "content": "Sunny"}),
    ]
    for position, (role, data) in enumerate(rows):
        Message.objects.create(conversation=conversation, position=position, role=role, data=data)
    client.force_login(alice)
    html = client.get(f"/c/{conversation.pk}/").content.decode()
    label = html[html.index('class="tool-result-label"') :]
    assert label[: label.index("</span>")].endswith(">Result"), label[:120]


def test_a_call_its_answer_broke_off_in_is_not_held_to_the_schema(client: Client, team: Team, alice: User) -> None:
    """A cut stream left the call with no arguments: "'city' is a required property" would blame the model for what
    the cut took away."""
    conversation = _unanswered_chat(team, alice, "error")
    cut = {**CALL, "function": {"name": "get_weather", "arguments": "{}"}}
    Message.objects.filter(conversation=conversation, role="assistant").update(
        complete=False, data={"role": "assistant", "content": None, "tool_calls": [cut]}
    )
    client.force_login(alice)
    client.post("/team/switch/", {"team": team.pk})
    html = _transcript(client.get(f"/c/{conversation.pk}/").content.decode())
    assert 'data-testid="tool-call-cut"' in html and "broke off before these arguments were complete" in html
    assert "required property" not in html and "arguments match the schema" not in html
    assert 'data-status="incomplete"' in html


def test_a_whole_answers_invalid_call_still_lists_its_problems(client: Client, team: Team, alice: User) -> None:
    conversation = _unanswered_chat(team, alice, "done")
    bad = {**CALL, "function": {"name": "get_weather", "arguments": "{}"}}
    Message.objects.filter(conversation=conversation, role="assistant").update(
        data={"role": "assistant", "content": None, "tool_calls": [bad]}
    )
    client.force_login(alice)
    client.post("/team/switch/", {"team": team.pk})
    html = _transcript(client.get(f"/c/{conversation.pk}/").content.decode())
    assert "&#x27;city&#x27; is a required property" in html and "tool-call-cut" not in html


def test_an_empty_chats_hint_names_only_tools_its_team_has(client: Client, team: Team, alice: User) -> None:
    from playground.tools.models import Tool

    client.force_login(alice)
    client.post("/team/switch/", {"team": team.pk})

    def hint() -> str:
        conversation = Conversation.objects.create(team=team, created_by=alice)
        html = client.get(f"/c/{conversation.pk}/").content.decode()
        return html[html.index('data-testid="transcript-empty"') : html.index('id="live"')]

    none = hint()  # a new person's own team has no tools: /call get_weather would only be refused
    assert "This team has no tools yet" in none and 'href="/tools/"' in none and "get_weather" not in none
    Tool.objects.create(team=team, name="lookup_invoice", description="", parameters={"type": "object"})
    own = hint()
    assert "/call lookup_invoice" in own and "get_weather" not in own
    Tool.objects.create(team=team, name="get_weather", description="", parameters={"type": "object"})
    assert '/call get_weather {"city": "Oslo"}' in hint()
