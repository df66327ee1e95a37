"""Fault drills with real processes: kill -9 one of two daphne processes while both run chats."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from tests.conftest import Services
from tests.helpers import DaphneServer, free_port, login, manage, prepare_database, server_env, start_daphne

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


def page_html(server: DaphneServer, session: str, path: str) -> str:
    request = urllib.request.Request(server.url + path, headers={"Cookie": f"sessionid={session}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read().decode()


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


@contextlib.contextmanager
def two_processes(tmp_path: Path, simulator_url: str, **env: str) -> Iterator[tuple[DaphneServer, DaphneServer, str]]:
    """Two daphne processes on one database and channel layer, paced so runs stream for a few seconds, and a session.
    The simulator is a process of its own: runs must not depend on a web process that a drill kills."""
    environment = server_env(tmp_path, CROSSWIRE_SIMULATOR_URL=simulator_url, CROSSWIRE_SIMULATOR_PACE_MS="60", **env)
    password = prepare_database(environment)
    first = start_daphne(environment, tmp_path / "first.log")
    second = start_daphne(environment, tmp_path / "second.log")
    try:
        yield first, second, login(second.url, "demo", password)
    finally:
        first.stop()
        second.stop()


@pytest.fixture
def pair(services: Services, tmp_path: Path, simulator_url: str) -> Iterator[tuple[DaphneServer, DaphneServer, str]]:
    with two_processes(tmp_path, simulator_url, REDIS_URL=services.redis_url) as servers:
        yield servers


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
    page = await asyncio.to_thread(page_html, survivor, session, f"/c/{on_doomed_id}/")
    assert 'data-status="interrupted"' in page and "Retry from here" in page, "a reload on the survivor shows it"
    assert partial[1][-20:] in page
    whole = json.loads(
        (
            await asyncio.to_thread(manage, survivor.env, "shell", "-v", "0", "-c", SAVED.format(pk=on_survivor_id))
        ).stdout
    )
    assert whole["status"] == "done" and whole["messages"][-1][1] == WORDS


class ThrowawayRedis:
    """A redis-server of the test's own on a free port, so it can be stopped and started again mid-run."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.directory = directory
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(command, cwd=self.directory, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                return
            time.sleep(0.05)
        raise RuntimeError("the throwaway redis-server did not start")

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def redis_pair(services: Services, tmp_path: Path, simulator_url: str) -> Iterator[tuple[Any, ...]]:
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is needed for the Redis restart drill (Debian package redis-server)")
    redis = ThrowawayRedis(tmp_path)
    redis.start()
    try:
        with two_processes(tmp_path, simulator_url, REDIS_URL=redis.url) as (first, second, session):
            yield first, second, session, redis
    finally:
        redis.kill()


def text_of(frames_: list[dict[str, Any]]) -> str:
    return "".join(f["text"] for f in frames_ if f.get("type") == "rt.delta" and f.get("kind") == "text")


def after_last_snapshot(frames_: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the page draws: the last snapshot's replay, then the frames after it."""
    last = max(i for i, f in enumerate(frames_) if f.get("type") == "snapshot")
    return [*frames_[last].get("frames", []), *frames_[last + 1 :]]


async def test_redis_restarted_mid_stream_the_run_goes_on_and_watchers_miss_nothing(
    redis_pair: tuple[Any, ...],
) -> None:
    first, second, session, redis = redis_pair
    made = await asyncio.to_thread(manage, first.env, "shell", "-v", "0", "-c", TWO_CONVERSATIONS)
    conversation_id, _, endpoint_id = map(int, made.stdout.split())
    options = {"endpoint_id": endpoint_id, "model": "sim-1", "tools": [], "stream": True, "max_tokens": 4096}

    async with connect(first, session, conversation_id) as runner, connect(second, session, conversation_id) as watcher:
        for socket_ in (runner, watcher):
            assert json.loads(await socket_.recv())["type"] == "snapshot"
        await runner.send(json.dumps({"type": "send", "text": f"/text {WORDS}", "options": options}))
        await asyncio.sleep(1.5)
        redis.kill()  # the watcher on the other process loses its feed; its socket stays open
        await asyncio.sleep(2.0)
        redis.start()
        watched = await frames(watcher, "run.end", timeout=60)
        direct = await frames(runner, "run.end", timeout=60)

    assert {"type": "connection", "state": "reconnecting"} in watched, "the page is told while the link is down"
    assert direct[-1]["status"] == watched[-1]["status"] == "done", "the run never stopped because Redis went away"
    assert text_of(after_last_snapshot(watched)) == text_of(direct) == WORDS, "a fresh snapshot, then every frame"
    saved = json.loads(
        (await asyncio.to_thread(manage, first.env, "shell", "-v", "0", "-c", SAVED.format(pk=conversation_id))).stdout
    )
    assert saved["status"] == "done" and saved["messages"] == [
        ["user", f"/text {WORDS}", True],
        ["assistant", WORDS, True],
    ]


class ThrowawayPostgres:
    """A PostgreSQL cluster of the test's own (initdb in a temporary folder, run as the postgres user), so it can
    be restarted mid-run without touching the machine's own server."""

    def __init__(self) -> None:
        self.port = free_port()
        # Not under pytest's temporary folders: those are private to root, and the server runs as postgres.
        self.directory = Path(tempfile.mkdtemp(prefix="crosswire-pg-"))
        bin_dirs = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
        if not bin_dirs or shutil.which("runuser") is None:
            pytest.fail("the PostgreSQL restart drill needs PostgreSQL's server binaries and runuser (Debian)")
        self.bin = bin_dirs[-1]

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _as_postgres(self, *command: str) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", *command], check=True, capture_output=True, timeout=60)

    def init(self) -> None:
        shutil.chown(self.directory, "postgres", "postgres")
        self._as_postgres(str(self.bin / "initdb"), "-D", str(self.directory), "-A", "trust", "-U", "postgres")
        self.start()

    def start(self) -> None:
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1"
        log = str(self.directory / "server.log")
        self._as_postgres(str(self.bin / "pg_ctl"), "-D", str(self.directory), "-o", options, "-l", log, "-w", "start")

    def stop(self) -> None:
        self._as_postgres(str(self.bin / "pg_ctl"), "-D", str(self.directory), "-m", "fast", "-w", "stop")


@pytest.fixture
def postgres_server(services: Services, tmp_path: Path, simulator_url: str) -> Iterator[tuple[Any, ...]]:
    postgres = ThrowawayPostgres()
    postgres.init()
    env = server_env(
        tmp_path, DATABASE_URL=postgres.url, CROSSWIRE_SIMULATOR_URL=simulator_url, CROSSWIRE_SIMULATOR_PACE_MS="60"
    )
    password = prepare_database(env)
    server = start_daphne(env, tmp_path / "daphne.log")
    try:
        yield server, login(server.url, "demo", password), postgres
    finally:
        server.stop()
        with contextlib.suppress(Exception):
            postgres.stop()
        shutil.rmtree(postgres.directory, ignore_errors=True)


async def test_postgresql_restarted_mid_run_ends_readably_and_loses_nothing(postgres_server: tuple[Any, ...]) -> None:
    server, session, postgres = postgres_server
    made = await asyncio.to_thread(manage, server.env, "shell", "-v", "0", "-c", TWO_CONVERSATIONS)
    conversation_id, _, endpoint_id = map(int, made.stdout.split())
    options = {"endpoint_id": endpoint_id, "model": "sim-1", "tools": [], "stream": True, "max_tokens": 4096}

    async with connect(server, session, conversation_id) as chat:
        assert json.loads(await chat.recv())["type"] == "snapshot"
        await chat.send(json.dumps({"type": "send", "text": f"/text {WORDS}", "options": options}))
        await asyncio.sleep(1.5)
        await asyncio.to_thread(postgres.stop)
        await asyncio.sleep(1.0)
        await asyncio.to_thread(postgres.start)
        # Either the run carries on, or it ends and the watchdog recovers it: a readable status, never "running".
        ended = (await frames(chat, "run.end", timeout=60))[-1]
        assert ended["status"] in {"done", "interrupted", "error"} and ended["message"], ended

    saved = json.loads(
        (await asyncio.to_thread(manage, server.env, "shell", "-v", "0", "-c", SAVED.format(pk=conversation_id))).stdout
    )
    roles = [m[0] for m in saved["messages"]]
    assert roles.count("user") == 1 and roles[0] == "user", "the user's message, saved before, is there once"
    assert saved["status"] in {"done", "interrupted", "error"}
    answers = [m[1] for m in saved["messages"] if m[0] == "assistant"]
    assert len(answers) <= 1 and all(WORDS.startswith(a or "") for a in answers), "no answer twice, none garbled"
