"""A canned answer may hold an image: text that is a JSON array of content parts is sent as those parts. The editor
checks them (part types, the data URL, its bytes and size) and refuses a wrong one with a reason; any other text is
sent as it was typed."""

from __future__ import annotations

import base64
import json
from html import unescape
from typing import TYPE_CHECKING, Any

import pytest

from playground.tools.canned import CannedRule, answer
from playground.tools.content import content_of
from playground.tools.results import recorded_results
from tests.chat.image_fixtures import PNG, PNG_URL, encoded
from tests.tools.test_editor import create, save_errors, signed_in

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team

PARTS = [{"type": "text", "text": "Sales chart"}, {"type": "image_url", "image_url": {"url": PNG_URL}}]


def parts_text(*parts: dict[str, Any]) -> str:
    return json.dumps(list(parts or PARTS))


def image(url: str) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": url}}


def test_a_rule_of_content_parts_answers_with_those_parts() -> None:
    rules = [CannedRule({"year": 2025}, parts_text())]
    assert answer(rules, "none", {"year": 2025}).content == PARTS
    assert answer(rules, parts_text(), {"year": 1999}).content == PARTS, "the default too"


@pytest.mark.parametrize(
    "text", ['{"status": "shipped"}', "[1, 2, 3]", '[{"id": 1}]', "[]", "plain words", '[{"type": "audio"}]']
)
def test_any_other_text_is_sent_as_typed(text: str) -> None:
    assert content_of(text) == text


def test_a_replays_original_parts_come_back_as_parts() -> None:
    rows = [{"name": "chart", "arguments": "{}", "content": parts_text(), "is_error": False}]
    assert recorded_results(rows)[("chart", "{}")].content == PARTS


@pytest.mark.django_db
def test_the_editor_saves_an_answer_with_an_image(client: Client, bob: User, team: Team) -> None:
    rules = {"rule-0-when": '{"year": "*"}', "rule-0-response": parts_text()}
    response = create(signed_in(client, bob, team), mode="canned", canned_default="no chart", **rules)
    assert response.status_code == 302
    tool = team.tools.get()
    assert answer(list(tool.config().canned_rules), "", {"year": 2025}).content == PARTS


NOT_AN_IMAGE = base64.b64encode(b"%PDF-1.7 not an image").decode()


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (
            parts_text(PARTS[0], image("data:image/png;base64,***")),
            "The response, content part 2: the image could not be read: its data is not valid base64.",
        ),
        (
            parts_text(image(f"data:image/png;base64,{NOT_AN_IMAGE}")),
            "The response, content part 1: the image is not a PNG, JPEG, WebP or GIF image "
            "(its bytes say so, whatever its name).",
        ),
        (
            parts_text(image(f"data:image/png;base64,{encoded('JPEG')}")),
            "The response, content part 1: the data URL says image/png but the bytes are image/jpeg.",
        ),
        (
            parts_text({"type": "image_url", "image_url": "https://example.com/x.png"}),
            'The response, content part 1: an image part needs "image_url": {"url": "data:image/png;base64,…"}.',
        ),
        (
            parts_text(PARTS[0], {"type": "audio", "data": "…"}),
            "The response, content part 2: the type 'audio' is not one of text, image_url.",
        ),
        (parts_text({"type": "text", "text": 5}), 'The response, content part 1: a text part needs "text": a string.'),
    ],
)
@pytest.mark.django_db
def test_a_wrong_content_part_is_refused_with_a_reason(
    client: Client, bob: User, team: Team, response: str, message: str
) -> None:
    rules = {"rule-0-when": "{}", "rule-0-response": response}
    page = create(signed_in(client, bob, team), mode="canned", **rules)
    assert page.status_code == 422
    assert save_errors(page.content.decode()) == [f"Rule 1: {message}"]
    assert not team.tools.exists()


@pytest.mark.django_db
def test_an_image_over_the_size_limit_is_refused(
    client: Client, bob: User, team: Team, settings: SettingsWrapper
) -> None:
    settings.CROSSWIRE_MAX_IMAGE_BYTES = 64
    page = create(signed_in(client, bob, team), mode="canned", canned_default=parts_text())
    assert page.status_code == 422
    html = unescape(page.content.decode())
    assert "The default response, content part 2: the image is 70 B; the limit is 64 B per image." in html
    assert PNG not in html.replace(parts_text(), ""), "the base64 is only in the textarea it was typed in"
