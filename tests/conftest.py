"""Shared fixtures: named users and a team, a real daphne server, and the real PostgreSQL and Redis services."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest
from channels.db import database_sync_to_async
from django.db import connections

from tests.helpers import DaphneServer, prepare_database, server_env, start_daphne
from tests.simulator_process import standalone_simulator

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client
    from pytest_django.fixtures import SettingsWrapper

    from playground.teams.models import Team

PASSWORD = "a-test-password-9d1f"
ALLOWED_ORIGIN = "http://127.0.0.1"
ALLOWED_HOST = "127.0.0.1"  # the Host header a browser on ALLOWED_ORIGIN sends

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


def services_required() -> bool:
    return os.environ.get("CI", "").lower() == "true" or os.environ.get("CROSSWIRE_REQUIRE_SERVICES") == "1"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: SettingsWrapper) -> None:
    # The production hasher is deliberately slow; tests create many users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def no_run_watchdog(settings: SettingsWrapper) -> None:
    # The watchdog belongs to a serving process; in-process tests call playground.chat.processes.beat() themselves.
    settings.CROSSWIRE_RUN_WATCHDOG = False


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    # The process cache outlives a test's database rows; ids are reused, so one test's cached menus must not leak.
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def unpaced_simulator(settings: SettingsWrapper) -> None:
    # The app paces the simulator so people can watch; tests that want a pace set one themselves.
    settings.CROSSWIRE_SIMULATOR_PACE_MS = 0


@pytest.fixture
def alice(django_user_model: type[User]) -> User:
    return django_user_model.objects.create_user("alice", password=PASSWORD)


@pytest.fixture
def bob(django_user_model: type[User]) -> User:
    return django_user_model.objects.create_user("bob", password=PASSWORD)


@pytest.fixture
def carol(django_user_model: type[User]) -> User:
    return django_user_model.objects.create_user("carol", password=PASSWORD)


@pytest.fixture
def team(alice: User, bob: User, carol: User) -> Team:
    """The team "Evals": alice owns it, bob edits, carol views."""
    from playground.teams import access
    from playground.teams.models import Role

    evals = access.create_team(name="Evals", owner=alice)
    access.add_member(team=evals, actor=alice, username="bob", role=Role.EDITOR)
    access.add_member(team=evals, actor=alice, username="carol", role=Role.VIEWER)
    return evals


@pytest.fixture
def alice_ws_headers(client: Client, alice: User) -> list[tuple[bytes, bytes]]:
    """Headers for a WebSocket handshake as alice's browser would send them: her session cookie and our origin."""
    client.force_login(alice)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    return [(b"origin", ALLOWED_ORIGIN.encode()), (b"host", ALLOWED_HOST.encode()), (b"cookie", cookie)]


@pytest.fixture
async def close_thread_connections() -> AsyncIterator[None]:
    """Close the DB connections consumers opened in asgiref's worker thread.

    Left open, PostgreSQL refuses to drop the test database at the end of the run.
    """
    yield
    await database_sync_to_async(connections.close_all)()


@dataclass(frozen=True)
class DemoServer:
    server: DaphneServer
    username: str
    password: str

    @property
    def url(self) -> str:
        return self.server.url


@pytest.fixture(scope="session")
def simulator_url() -> Iterator[str]:
    """``http://127.0.0.1:<port>/sim`` of a standalone simulator for the run: real sockets, for cut streams,
    timeouts and pacing (in-process transport buffers whole responses), or for the app to reach over HTTP."""
    with standalone_simulator() as url:
        yield url


@pytest.fixture(scope="session")
def daphne_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoServer]:
    """One daphne for the whole run, on a fresh SQLite file with the demo account set up."""
    data_dir = tmp_path_factory.mktemp("daphne")
    # Paced like a real model, so a browser sees tool arguments grow fragment by fragment.
    env = server_env(data_dir, CROSSWIRE_SIMULATOR_PACE_MS="25")
    password = prepare_database(env)
    server = start_daphne(env, data_dir / "daphne.log")
    try:
        yield DemoServer(server=server, username="demo", password=password)
    finally:
        server.stop()


@dataclass(frozen=True)
class Services:
    database_url: str
    redis_url: str


def _unreachable(database_url: str, redis_url: str) -> list[str]:
    import psycopg
    import redis

    problems = []
    try:
        psycopg.connect(database_url, connect_timeout=3).close()
    except psycopg.Error as exc:
        problems.append(f"PostgreSQL at {database_url}: {exc}".strip())
    client = redis.Redis.from_url(redis_url, socket_connect_timeout=3)
    try:
        client.ping()
    except redis.RedisError as exc:
        problems.append(f"Redis at {redis_url}: {exc}")
    finally:
        client.close()
    return problems


@pytest.fixture(scope="session")
def services() -> Services:
    """PostgreSQL and Redis from DATABASE_URL / REDIS_URL (or the usual local addresses), checked for real.

    Unreachable services fail the test under CI=true or CROSSWIRE_REQUIRE_SERVICES=1, so CI can never pass by
    skipping; on a laptop without them the tests skip with the reason.
    """
    database_url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    redis_url = os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL
    problems = _unreachable(database_url, redis_url)
    if problems:
        message = "services unreachable: " + "; ".join(problems)
        if services_required():
            pytest.fail(message + " (required because CI=true or CROSSWIRE_REQUIRE_SERVICES=1)")
        pytest.skip(message + " (set CROSSWIRE_REQUIRE_SERVICES=1 to make this an error)")
    return Services(database_url=database_url, redis_url=redis_url)
