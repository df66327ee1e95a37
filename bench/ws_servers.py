"""The processes of the ws_stream bench: the app's throwaway database, the servers, and their CPU as /proc counts it.

Every server listens on 127.0.0.1 on a free port, logs to a file in the bench's temporary directory and is stopped
by its own PID (terminate, then kill after 10 s).
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
sys.path.insert(0, str(ROOT))

from tests.helpers import free_port, login, manage, prepare_database, server_env, stop_process  # noqa: E402

STARTUP_TIMEOUT_S = 60
PR_SET_PDEATHSIG = 1  # prctl(2)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

# The bench's upstream as a team endpoint, and one empty conversation per chat; prints the ids.
SETUP = """
from playground.conversations.models import Conversation
from playground.endpoints.models import Endpoint
from playground.teams.models import Team
team = Team.objects.get(name="Demo team")
endpoint = Endpoint(team=team, name="Bench upstream", kind="openai-compatible", format="openai-chat",
                    base_url="{base_url}", model_names=["bench-1"], default_model="bench-1")
endpoint.set_api_key("bench")
endpoint.save()
print(endpoint.pk, *(Conversation.objects.create(team=team).pk for _ in range({chats})))
"""


@dataclass
class Server:
    name: str
    url: str
    process: subprocess.Popen[bytes] = field(repr=False)
    log_path: Path

    @property
    def ws_url(self) -> str:
        return "ws" + self.url.removeprefix("http")

    def get_json(self, path: str) -> dict[str, object]:
        with urllib.request.urlopen(f"{self.url}{path}", timeout=10) as response:
            return json.loads(response.read())

    def stop(self) -> None:
        stop_process(self.process)


def _die_with_parent() -> None:
    """In the child before exec: get SIGTERM if the bench dies, even by SIGKILL, so no server outlives it (Linux)."""
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def spawn(
    name: str, args: list[str], env: dict[str, str], log_dir: Path, ready_path: str, port: int | None = None
) -> Server:
    """Start ``args`` (with ``port``, or a free one, as ``{port}``) and wait until ``ready_path`` answers 200.
    A server configured by a file (nginx) is given the port that file names."""
    port = port or free_port()
    log_path = log_dir / f"{name}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [a.format(port=port) for a in args],
            env=env,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent,
        )
    server = Server(name, f"http://127.0.0.1:{port}", process, log_path)
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}:\n{log_path.read_text(errors='replace')}")
        try:
            server.get_json(ready_path)
            return server
        except OSError:
            time.sleep(0.1)
    server.stop()
    raise RuntimeError(f"{name} did not answer {ready_path} within {STARTUP_TIMEOUT_S} s")


def daphne_args(application: str) -> list[str]:
    return [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", "{port}", application]


def start_upstream(log_dir: Path, rate: float, seconds: float, chars: int, first_byte_delay: float = 0.0) -> Server:
    args = [sys.executable, str(BENCH / "ws_upstream.py"), "--port", "{port}"]
    args += ["--rate", str(rate), "--seconds", str(seconds), "--chars", str(chars)]
    args += ["--first-byte-delay", str(first_byte_delay)]
    return spawn("upstream", args, dict(os.environ), log_dir, "/stats")


def start_bare(log_dir: Path, rate: float, seconds: float, chars: int) -> Server:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(BENCH), str(ROOT)])}
    env.update(WS_BARE_RATE=str(rate), WS_BARE_SECONDS=str(seconds), WS_BARE_CHARS=str(chars))
    return spawn("bare-daphne", daphne_args("ws_bare:application"), env, log_dir, "/stats")


def start_relay(log_dir: Path, upstream: Server) -> Server:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(BENCH), str(ROOT)])}
    env["WS_RELAY_UPSTREAM"] = f"{upstream.url}/v1"
    return spawn("relay-daphne", daphne_args("ws_relay:application"), env, log_dir, "/healthz")


@dataclass(frozen=True)
class App:
    server: Server
    session: str
    endpoint_id: int
    conversation_ids: list[int]


@dataclass(frozen=True)
class AppSetup:
    """A prepared database and the environment that serves it: every process started with ``env`` shares it."""

    env: dict[str, str]
    data_dir: Path
    password: str
    endpoint_id: int
    conversation_ids: list[int]


def prepare_app(data_dir: Path, upstream: Server, chats: int, redis_url: str = "", **settings: str) -> AppSetup:
    """The real app's database in ``data_dir`` and its environment as deployed, minus the proxy: DEBUG off, SQLite,
    the in-memory channel layer (or Redis at ``redis_url``, as the Compose deployment runs it); ``settings``: more
    environment variables. Migrated once here, so several processes can then serve it without racing to migrate."""
    # One account runs every chat of the bench: the per-person limit on runs in flight must not refuse them.
    env = server_env(
        data_dir, DEBUG="0", REDIS_URL=redis_url, LOG_LEVEL="WARNING", CROSSWIRE_MAX_RUNS_PER_USER="100000", **settings
    )
    setup_env = {**env, "DEBUG": "1"}  # setup_demo refuses to make its account with DEBUG off
    password = prepare_database(setup_env)
    setup = SETUP.format(base_url=f"{upstream.url}/v1", chats=chats)
    endpoint_id, *conversation_ids = map(int, manage(setup_env, "shell", "-v", "0", "-c", setup).stdout.split())
    return AppSetup(env, data_dir, password, endpoint_id, conversation_ids)


def spawn_app(setup: AppSetup, name: str = "app-daphne") -> Server:
    """One daphne process of the app on ``setup``'s database (same secret key, so it accepts the others' sessions)."""
    return spawn(name, daphne_args("playground.asgi:application"), setup.env, setup.data_dir, "/healthz")


def start_app(data_dir: Path, upstream: Server, chats: int, redis_url: str = "", **settings: str) -> App:
    """The real app in one daphne process (see ``prepare_app``), signed in as the demo account."""
    setup = prepare_app(data_dir, upstream, chats, redis_url, **settings)
    server = spawn_app(setup)
    try:
        session = login(server.url, "demo", setup.password)
    except Exception:
        server.stop()
        raise
    return App(server, session, setup.endpoint_id, setup.conversation_ids)


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and all its threads so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime and stime: fields 14 and 15 of stat(5)


def machine_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of all cores since boot: everyone's work, not only the bench's."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values)


@dataclass
class CpuSampler:
    """Samples the CPU of named processes and of the machine every ``every`` seconds, in a thread."""

    pids: dict[str, int]
    every: float = 0.2
    samples: list[tuple[float, dict[str, float], tuple[int, int]]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            cpu = {}
            for name, pid in self.pids.items():
                try:
                    cpu[name] = cpu_seconds(pid)
                except OSError:
                    pass  # gone already: its last sample stands
            self.samples.append((time.monotonic(), cpu, machine_ticks()))
            self._stop.wait(self.every)

    def percent(self, start: float, end: float) -> dict[str, float]:
        """CPU between two moments, in % of one core per process, and the machine's busy share (% of all cores)."""
        inside = [s for s in self.samples if start <= s[0] <= end] or self.samples[-2:]
        (t0, cpu0, m0), (t1, cpu1, m1) = inside[0], inside[-1]
        wall = max(t1 - t0, 1e-9)
        result = {name: (cpu1[name] - cpu0[name]) / wall * 100 for name in cpu1 if name in cpu0}
        result["machine"] = (m1[0] - m0[0]) / max(m1[1] - m0[1], 1) * 100
        return result
