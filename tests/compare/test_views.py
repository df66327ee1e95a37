"""The Compare pages: who may see and run what, a refused form keeps what was typed, results are partials."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.urls import reverse
from django.utils.html import escape

from playground.compare.models import Comparison
from playground.compare.service import NOT_RUN_AFTER_STOP, create_comparison
from playground.conversations.models import Conversation
from playground.teams import access
from tests.compare.conftest import plan

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db


def signed_in(client: Client, user: User, team: Team) -> Client:
    client.force_login(user)
    client.post(reverse("team-switch"), {"team": team.pk})
    return client


def _comparison(team: Team, alice: User, simulated: dict[str, int]) -> Comparison:
    columns = [(simulated["Simulated OpenAI"], "sim-1"), (simulated["Simulated Anthropic"], "sim-1")]
    return create_comparison(team, alice, plan(columns))


def test_the_form_starts_with_three_simulator_dialects(
    client: Client, alice: User, team: Team, simulated: dict[str, int]
) -> None:
    html = signed_in(client, alice, team).get(reverse("compare")).content.decode()
    assert html.count('data-testid="compare-column-setup"') == 3 + 1  # three, and the template for new ones
    assert 'value="sim-openrouter"' in html and 'data-testid="compare-run"' in html


def test_a_refused_form_says_why_and_keeps_the_text(
    client: Client, alice: User, team: Team, simulated: dict[str, int]
) -> None:
    data = {
        "text": "Keep me",
        "tools": ["get_weather"],
        "repeat": "11",
        "col-0-endpoint_id": simulated["Simulated OpenAI"],
        "col-0-model": "sim-1",
        "col-0-max_tokens": "512",
    }
    response = signed_in(client, alice, team).post(reverse("compare-run"), data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "Repeat each column 1 to 10 times." in html and "Keep me" in html
    assert not Comparison.objects.exists()


def test_viewers_see_comparisons_but_cannot_run_them(
    client: Client, alice: User, carol: User, team: Team, simulated: dict[str, int]
) -> None:
    comparison = _comparison(team, alice, simulated)
    viewer = signed_in(client, carol, team)
    page = viewer.get(reverse("comparison", args=[comparison.pk]))
    assert page.status_code == 200 and 'data-testid="compare-column"' in page.content.decode()
    assert 'data-testid="compare-stop-all"' not in page.content.decode()
    assert "Run again" not in page.content.decode(), "it leads to a form a viewer cannot send"
    data = {"text": "hi", "col-0-endpoint_id": simulated["Simulated OpenAI"], "col-0-model": "sim-1"}
    assert viewer.post(reverse("compare-run"), data).status_code == 403
    assert viewer.post(reverse("comparison-stop", args=[comparison.pk])).status_code == 403
    assert Comparison.objects.count() == 1


def test_another_teams_comparison_is_not_found(
    client: Client, alice: User, team: Team, simulated: dict[str, int], django_user_model: type[User]
) -> None:
    comparison = _comparison(team, alice, simulated)
    outsider = django_user_model.objects.create_user("mallory", password="x")
    own = access.create_team(name="Elsewhere", owner=outsider)
    other = signed_in(client, outsider, own)
    for name in ("comparison", "comparison-results", "comparison-diff"):
        assert other.get(reverse(name, args=[comparison.pk])).status_code == 404
    assert other.get(reverse("comparison-column", args=[comparison.pk, 0])).status_code == 404
    assert other.post(reverse("replay", args=[comparison.runs.first().conversation_id])).status_code == 404


def test_results_and_column_partials_render_for_a_fresh_comparison(
    client: Client, alice: User, team: Team, simulated: dict[str, int]
) -> None:
    comparison = _comparison(team, alice, simulated)
    member = signed_in(client, alice, team)
    results = member.get(reverse("comparison-results", args=[comparison.pk])).content.decode()
    assert 'data-testid="compare-summary"' in results and "Run at least two columns" in results
    column = member.get(reverse("comparison-column", args=[comparison.pk, 1])).content.decode()
    assert 'data-testid="run-status"' in column
    assert member.get(reverse("comparison-column", args=[comparison.pk, 7])).status_code == 404
    diff = member.get(reverse("comparison-diff", args=[comparison.pk])).content.decode()
    assert "appears once two columns have sent" in diff


def test_run_again_starts_from_the_comparisons_columns_even_for_a_replay(
    client: Client, alice: User, team: Team, simulated: dict[str, int]
) -> None:
    comparison = _comparison(team, alice, simulated)
    page = signed_in(client, alice, team).get(reverse("comparison", args=[comparison.pk])).content.decode()
    assert f'href="{reverse("compare")}?from={comparison.pk}" data-testid="compare-run-again"' in page
    html = client.get(reverse("compare"), {"from": comparison.pk}).content.decode()
    assert html.count('data-testid="compare-column-setup"') == 2 + 1
    comparison.settings = {"text": "replayed", "tools": []}  # what a replay saves: no form columns
    comparison.save()
    html = client.get(reverse("compare"), {"from": comparison.pk}).content.decode()
    assert html.count('data-testid="compare-column-setup"') == 2 + 1 and "replayed" in html


def test_stop_all_is_offered_only_while_a_column_has_something_left_to_run(
    client: Client, alice: User, team: Team, simulated: dict[str, int]
) -> None:
    comparison = _comparison(team, alice, simulated)
    editor = signed_in(client, alice, team)

    def stop_all() -> str:
        html = editor.get(reverse("comparison", args=[comparison.pk])).content.decode()
        button = html[html.index('data-testid="compare-stop-all"') :]
        return button[: button.index(">")]

    assert "hidden" not in stop_all(), "its columns have not run yet"
    Conversation.objects.filter(comparison_runs__comparison=comparison).update(status="done")
    assert "hidden" in stop_all(), "every column is done: nothing to stop"


def _tag(html: str, testid: str) -> str:
    """The opening tag of the first element with this test id, and its text up to the next tag."""
    start = html[html.index(f'data-testid="{testid}"') :]
    return start[: start.index("<")]


def test_a_column_keeps_its_stop_and_says_which_run_while_its_later_repeats_run(
    client: Client, alice: User, team: Team, simulated: dict[str, int]
) -> None:
    """The column's cards are its first run's: once that is done, the column still offers Stop and says which run."""
    columns = [(simulated["Simulated OpenAI"], "sim-1"), (simulated["Simulated Anthropic"], "sim-1")]
    comparison = create_comparison(team, alice, plan(columns, repeat=3))
    for repeat, status in enumerate(("done", "running")):
        Conversation.objects.filter(pk=comparison.runs.get(position=0, repeat=repeat).conversation_id).update(
            status=status
        )
    Conversation.objects.filter(comparison_runs__comparison=comparison, comparison_runs__position=1).update(
        status="done"
    )
    html = signed_in(client, alice, team).get(reverse("comparison", args=[comparison.pk])).content.decode()
    first, second = html.split('data-testid="compare-column"')[1:3]
    assert "hidden" not in _tag(first, "compare-stop") and "run 2 of 3" in _tag(first, "compare-column-run")
    assert "hidden" in _tag(second, "compare-stop"), "every repeat of the second column is done"
    assert "hidden" in _tag(second, "compare-column-run")
    results = client.get(reverse("comparison-results", args=[comparison.pk])).content.decode()
    assert '<span data-position="0" data-active="1" data-run="2">' in results
    assert '<span data-position="1" data-active="0" data-run="3">' in results


def test_a_columns_stop_marks_its_repeats_not_started_and_leaves_the_other_columns(
    client: Client, alice: User, carol: User, team: Team, simulated: dict[str, int]
) -> None:
    columns = [(simulated["Simulated OpenAI"], "sim-1"), (simulated["Simulated Anthropic"], "sim-1")]
    comparison = create_comparison(team, alice, plan(columns, repeat=2))
    stop = reverse("comparison-column-stop", args=[comparison.pk, 0])
    assert signed_in(client, carol, team).post(stop).status_code == 403
    assert not Conversation.objects.exclude(status="idle").exists()
    assert signed_in(client, alice, team).post(stop).status_code == 204
    statuses = [(r.position, r.conversation.status, r.conversation.status_message) for r in comparison.runs.all()]
    not_run = ("stopped", NOT_RUN_AFTER_STOP)
    assert statuses == [(0, *not_run), (0, *not_run), (1, "idle", ""), (1, "idle", "")]


def test_a_column_that_never_ran_opens_in_the_playground_with_its_message_ready(
    client: Client, alice: User, team: Team, simulated: dict[str, int]
) -> None:
    """A column refused at its start has no message: Continue in playground puts the comparison's in the composer."""
    comparison = _comparison(team, alice, simulated)
    column = comparison.runs.get(position=1).conversation
    Conversation.objects.filter(pk=column.pk).update(status="error", status_message="Refused.")
    html = signed_in(client, alice, team).get(reverse("chat", args=[column.pk])).content.decode()
    composer = html[html.index('data-testid="composer"') :]
    text = escape(str(comparison.settings["text"]))
    assert composer[composer.index(">") + 1 : composer.index("</textarea>")] == text
    other = Conversation.objects.create(team=team, created_by=alice, settings={"model": "sim-1"})
    plain = client.get(reverse("chat", args=[other.pk])).content.decode()
    assert '"></textarea>' in plain[plain.index('data-testid="composer"') :], "a chat of its own opens empty"


def test_a_later_run_waiting_for_an_answer_is_pointed_to_from_the_results(
    client: Client, alice: User, team: Team, simulated: dict[str, int]
) -> None:
    """The columns show each column's first run: a later run that waits for a person must be found from the page."""
    columns = [(simulated["Simulated OpenAI"], "sim-1"), (simulated["Simulated Anthropic"], "sim-1")]
    comparison = create_comparison(team, alice, plan(columns, repeat=2))
    results = reverse("comparison-results", args=[comparison.pk])
    signed_in(client, alice, team)
    assert 'data-testid="compare-repeats-waiting"' not in client.get(results).content.decode()
    waiting = comparison.runs.get(position=1, repeat=1).conversation
    Conversation.objects.filter(pk=waiting.pk).update(status="waiting")
    html = client.get(results).content.decode()
    notice = html[html.index('data-testid="compare-repeats-waiting"') :]
    notice = notice[: notice.index("</div>")]
    assert "run 2 of Simulated Anthropic" in notice
    assert f'href="{reverse("chat", args=[waiting.pk])}"' in notice
    assert 'data-testid="repeat-chart"' not in html, "no run has ended yet: no chart of their times"
