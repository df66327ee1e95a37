"""Fault drills with real processes: kill -9 one of two daphne processes while both run chats."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from tests.conftest import Services
from tests.helpers import DaphneServer, login, manage, prepare_database, server_env, start_daphne

pytestmark = pytest.mark.services

TWO_CONVERSATIONS = """
from playground.conversations.models import Conversation
from playground.endpoints.models import Endpoint
from playground.teams.models import Team
team = Team.objects.get(name="Demo team")
print(Conversation.objects.create(team=team).pk, Conversation.objects.create(team=team).pk,
      Endpoint.objects.get(name="Simulated OpenAI").pk)
"""
SAVED = """
import json
from playground.conversations.models import Conversation
c = Conversation.objects.get(pk={pk})
print(json.dumps({{"status": c.status, "messages": [[m.role, m.data.get("content"), m.complete] for m in
    c.messages.order_by("position")], "events": sum(len(rt.wire_events) for rt in c.round_trips.all())}}))
"""
WORDS = " ".join(f"word{n}" for n in range(120))
# The watchdog's beat and the silence after which a process is gone, plus room for a loaded machine.
INTERRUPTED_WITHIN_S = 25


def connect(server: DaphneServer, session: str, conversation_id: int) -> Any:
    return websockets.connect(
        f"{server.ws_url}/ws/conversations/{conversation_id}/",
        origin=server.url,
        additional_headers={"Cookie": f"sessionid={session}"},
        open_timeout=10,
    )


async def frames(socket: Any, until: str, timeout: float = 30) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while not seen or seen[-1].get("type") != until:
        message = json.loads(await asyncio.wait_for(socket.recv(), timeout=max(0.1, deadline - time.monotonic())))
        seen.extend(message if isinstance(message, list) else [message])
    return seen


@pytest.fixture
def pair(services: Services, tmp_path: Path, simulator_url: str) -> Iterator[tuple[DaphneServer, DaphneServer, str]]:
    # A simulator of its own: the survivor's runs must not depend on the process that is killed.
    env = server_env(
        tmp_path, REDIS_URL=services.redis_url, CROSSWIRE_SIMULATOR_URL=simulator_url, CROSSWIRE_SIMULATOR_PACE_MS="60"
    )
    password = prepare_database(env)
    doomed = start_daphne(env, tmp_path / "doomed.log")
    survivor = start_daphne(env, tmp_path / "survivor.log")
    try:
        yield doomed, survivor, login(survivor.url, "demo", password)
    finally:
        doomed.stop()
        survivor.stop()


async def test_kill_9_one_process_the_other_finishes_and_shows_the_dead_ones_runs_interrupted(
    pair: tuple[DaphneServer, DaphneServer, str],
) -> None:
    doomed, survivor, session = pair
    made = await asyncio.to_thread(manage, survivor.env, "shell", "-v", "0", "-c", TWO_CONVERSATIONS)
    on_doomed_id, on_survivor_id, endpoint_id = map(int, made.stdout.split())
    options = {"endpoint_id": endpoint_id, "model": "sim-1", "tools": [], "stream": True, "max_tokens": 4096}
    send = {"type": "send", "text": f"/text {WORDS}", "options": options}

    async with (
        connect(doomed, session, on_doomed_id) as runner,
        connect(survivor, session, on_doomed_id) as watcher,
        connect(survivor, session, on_survivor_id) as local,
    ):
        for socket in (runner, watcher, local):
            assert json.loads(await socket.recv())["type"] == "snapshot"
        await runner.send(json.dumps(send))
        await local.send(json.dumps(send))
        await asyncio.sleep(2.0)  # both stream; the doomed run's raw events are being saved in batches
        os.kill(doomed.process.pid, signal.SIGKILL)
        killed_at = time.monotonic()

        end = (await frames(watcher, "run.end", timeout=INTERRUPTED_WITHIN_S))[-1]
        assert end["status"] == "interrupted", end
        assert time.monotonic() - killed_at < INTERRUPTED_WITHIN_S
        untouched = (await frames(local, "run.end", timeout=60))[-1]
        assert untouched["status"] == "done"

    saved = json.loads(
        (await asyncio.to_thread(manage, survivor.env, "shell", "-v", "0", "-c", SAVED.format(pk=on_doomed_id))).stdout
    )
    assert saved["status"] == "interrupted"
    [user, partial] = saved["messages"]
    assert user[0] == "user" and partial[0] == "assistant" and partial[2] is False
    assert partial[1] and WORDS.startswith(partial[1]), "the answer up to the last saved batch, and nothing else"
    assert saved["events"] > 3
    whole = json.loads(
        (
            await asyncio.to_thread(manage, survivor.env, "shell", "-v", "0", "-c", SAVED.format(pk=on_survivor_id))
        ).stdout
    )
    assert whole["status"] == "done" and whole["messages"][-1][1] == WORDS
