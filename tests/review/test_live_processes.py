"""Two daphne processes behind one Redis: a comment posted through one reaches a review page open on the other."""

from __future__ import annotations

import asyncio
import json
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from http.cookies import SimpleCookie
from pathlib import Path

import pytest
import websockets

from tests.conftest import Services
from tests.helpers import DaphneServer, login, manage, prepare_database, server_env, start_daphne

pytestmark = pytest.mark.services

CONVERSATION = """
from django.contrib.auth.models import User
from playground.teams.models import Team
from tests.review.conftest import build_conversation
print(build_conversation(Team.objects.get(name="Demo team"), User.objects.get(username="demo")).pk)
"""


@dataclass(frozen=True)
class Pair:
    first: DaphneServer
    second: DaphneServer
    session: str
    conversation_id: int


@pytest.fixture(scope="module")
def pair(services: Services, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    data_dir: Path = tmp_path_factory.mktemp("review-pair")
    env = server_env(data_dir, REDIS_URL=services.redis_url)
    password = prepare_database(env)
    conversation_id = int(manage(env, "shell", "-v", "0", "-c", CONVERSATION).stdout.split()[-1])
    first = start_daphne(env, data_dir / "first.log")
    try:
        second = start_daphne(env, data_dir / "second.log")
    except Exception:
        first.stop()
        raise
    try:
        yield Pair(first, second, login(first.url, "demo", password), conversation_id)
    finally:
        first.stop()
        second.stop()


def post_comment(server: DaphneServer, session: str, conversation_id: int, body: str) -> int:
    """As the page does: load it (for the CSRF cookie), then post the form as htmx would."""
    review = f"{server.url}/c/{conversation_id}/review/"
    with urllib.request.urlopen(urllib.request.Request(review, headers={"Cookie": f"sessionid={session}"})) as page:
        cookies = SimpleCookie(page.headers.get("Set-Cookie", ""))
    csrf = cookies["csrftoken"].value
    data = urllib.parse.urlencode({"body": body, "anchor": "conversation"}).encode()
    request = urllib.request.Request(
        f"{review}comments/post/",
        data=data,
        headers={
            "Cookie": f"sessionid={session}; csrftoken={csrf}",
            "X-CSRFToken": csrf,
            "HX-Request": "true",
            "Origin": server.url,
        },
    )
    with urllib.request.urlopen(request) as response:
        return response.status


async def test_a_comment_posted_on_one_process_reaches_a_page_on_the_other(pair: Pair) -> None:
    async with websockets.connect(
        f"{pair.second.ws_url}/ws/review/{pair.conversation_id}/",
        origin=pair.second.url,
        additional_headers={"Cookie": f"sessionid={pair.session}"},
        open_timeout=10,
    ) as on_second:
        status = await asyncio.to_thread(post_comment, pair.first, pair.session, pair.conversation_id, "from afar")
        assert status == 200
        frame = json.loads(await asyncio.wait_for(on_second.recv(), timeout=10))
    assert frame["type"] == "review.comments" and frame["anchor"] == "conversation" and frame["comment"]
