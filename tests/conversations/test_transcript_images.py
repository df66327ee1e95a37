"""Images in a saved conversation are shown, never spelled out: the transcript's views carry them apart from the
text, the pages draw them as thumbnails (the base64 only in an img's src), and the Markdown export names them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from django.urls import reverse

from playground.conversations.markdown import conversation_markdown
from playground.conversations.models import Conversation, Message
from playground.conversations.present import transcript
from playground.tools.images import ImageView
from tests.chat.image_fixtures import PNG, PNG_URL

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.teams.models import Team

pytestmark = pytest.mark.django_db
PHOTO = "https://example.com/photos/cat.jpg"
CALL = {"id": "call_chart", "type": "function", "function": {"name": "bar_chart", "arguments": "{}"}}
DOT = ImageView(PNG_URL, "image/png", "image/png · 70 B", inline=True)


@pytest.fixture
def pictured(team: Team, alice: User) -> Conversation:
    """A user message with text, an image and a linked photo; a call whose result is a summary and an image."""
    conversation = Conversation.objects.create(team=team, created_by=alice, title="Chart this")
    image = {"type": "image_url", "image_url": {"url": PNG_URL}}
    rows = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Chart this"},
                image,
                {"type": "image_url", "image_url": {"url": PHOTO}},
            ],
        },
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "call_chart", "content": [{"type": "text", "text": "Sales chart"}, image]},
        {"role": "assistant", "content": "Here it is."},
    ]
    for position, data in enumerate(rows):
        meta = {"source": "builtin:bar_chart"} if data["role"] == "tool" else {}
        Message.objects.create(conversation=conversation, position=position, role=data["role"], data=data, meta=meta)
    return conversation


def text_outside_images(html: str) -> str:
    """The page without the src of its img elements, the one place a data URL belongs."""
    return re.sub(r'(<img\b[^>]*?\bsrc=")[^"]*(")', r"\1\2", html)


def test_the_views_carry_images_apart_from_the_text(pictured: Conversation) -> None:
    user, calling, answer = transcript(pictured, list(pictured.messages.order_by("position")), {})
    assert user.text == "Chart this", "the text parts only"
    assert user.images == [DOT, ImageView(PHOTO, "image", f"linked image · {PHOTO}", inline=False)]
    [call] = calling.calls
    assert (call.result, call.images, call.status) == ("Sales chart", [DOT], "done")
    assert answer.images == [] and answer.text == "Here it is."


def test_a_data_url_of_no_image_is_named_but_not_drawn(team: Team, alice: User) -> None:
    conversation = Conversation.objects.create(team=team, created_by=alice)
    content = [{"type": "image_url", "image_url": {"url": "data:text/html;base64,PGI+aGk8L2I+"}}]
    Message.objects.create(
        conversation=conversation, position=0, role="user", data={"role": "user", "content": content}
    )
    [view] = transcript(conversation, list(conversation.messages.all()), {})
    assert view.images == [ImageView("", "text/html", "text/html · 9 B", inline=False)]


@pytest.mark.parametrize("page", ["chat-transcript", "review"])
def test_the_pages_draw_thumbnails_and_never_the_base64(
    client: Client, alice: User, pictured: Conversation, page: str
) -> None:
    client.force_login(alice)
    html = client.get(reverse(page, args=[pictured.pk])).content.decode()
    thumbnails = re.findall(r'<img src="([^"]+)" alt="([^"]+)" data-testid="message-image">', html)
    assert thumbnails == [(PNG_URL, "image/png · 70 B")] * 2, "the user's image and the result's"
    assert f'href="{PHOTO}"' in html, "a linked image is a link, never loaded"
    outside = text_outside_images(html)
    assert PNG not in outside and "base64," not in outside


def test_the_markdown_export_names_the_images(pictured: Conversation) -> None:
    markdown = conversation_markdown(pictured)
    assert "*[image: image/png · 70 B]*" in markdown and f"*[image: linked image · {PHOTO}]*" in markdown
    assert PNG not in markdown


def test_only_a_web_address_becomes_a_link(team: Team, alice: User, client: Client) -> None:
    conversation = Conversation.objects.create(team=team, created_by=alice)
    content = [{"type": "image_url", "image_url": {"url": "javascript:alert(1)"}}]
    Message.objects.create(
        conversation=conversation, position=0, role="user", data={"role": "user", "content": content}
    )
    [view] = transcript(conversation, list(conversation.messages.all()), {})
    assert view.images == [ImageView("", "image", "linked image · javascript:alert(1)", inline=False)]
    client.force_login(alice)
    html = client.get(reverse("chat-transcript", args=[conversation.pk])).content.decode()
    assert 'href="javascript:' not in html and "linked image · javascript:alert(1)" in html
