"""Two app processes behind the Compose proxy: the ws_stream bench's scaled-out measurement (target 4).

As docker-compose.yml runs it, minus the containers: two daphne processes of the app on one database (here the
same SQLite file, in WAL mode) and one Redis channel layer (``--redis-url``, default ``redis://127.0.0.1:6379/7``),
behind an nginx whose configuration is deploy/nginx.conf itself, wrapped in the few main-level directives a user
without root needs (pid, logs and temporary files in the bench's temporary directory, ``daemon off``, one process),
with its upstream servers pointed at the two daphne ports and its ``listen`` at a free port on 127.0.0.1.

nginx hands each new connection to the next process in turn, so the chats' sockets split about evenly; the split
is read back from nginx's access log (WebSocket upgrades per upstream address), and each process's CPU is sampled.
Each process is warmed up with a chat of its own, sent to it directly. Sessions live in the shared database and
both processes share the secret key, so the sign-in, made through nginx, holds on either.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import re
import shutil
import textwrap
from dataclasses import dataclass
from pathlib import Path

import redis
from ws_measure import Measurement, Summary, app_target, measured_upstream, server_us_per_delta, started, warm_up
from ws_report import print_tables
from ws_servers import ROOT, Server, prepare_app, spawn, spawn_app, start_upstream

from tests.helpers import free_port, login

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/7"
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
# Debian installs nginx in /usr/sbin, which is not on an ordinary user's PATH.
NGINX_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
UPSTREAM_SERVER = re.compile(r"^(\s*server\s+)web\d+:\d+", re.MULTILINE)
LISTEN = re.compile(r"^(\s*listen\s+)80;", re.MULTILINE)
PROCESSES = 2
NAME = "app, 2 processes"


class CannotRun(Exception):
    """Something the two-process run needs is missing from this machine (said instead of a traceback)."""


@dataclass(frozen=True)
class TwoProcesses:
    measurement: Measurement
    split: dict[str, int]  # WebSocket chats nginx handed to each process, by process name
    redis_url: str


def redis_url(args: argparse.Namespace) -> str:
    return args.redis_url or DEFAULT_REDIS_URL


def check_redis(url: str) -> int | None:
    """Fail early and plainly: without Redis the second process would never see the first one's frames. Returns
    the Redis server's PID when it runs on this machine, so its CPU (part of what two processes cost) is sampled."""
    try:
        pid = int(redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3).info("server")["process_id"])
    except (redis.RedisError, OSError, ValueError, KeyError) as exc:
        raise CannotRun(f"Redis at {url} is unreachable ({exc})") from exc
    try:  # the same PID in another PID namespace (a container) would be some other process here
        return pid if "redis" in Path(f"/proc/{pid}/comm").read_text() else None
    except OSError:
        return None


def nginx_binary() -> str:
    binary = shutil.which("nginx", path=NGINX_PATH)
    if binary is None:
        raise CannotRun("nginx is not installed on this machine (Debian: apt-get install nginx-light)")
    return binary


def nginx_config(site: str, port: int, upstreams: list[str], work: Path) -> str:
    """deploy/nginx.conf (a conf.d file) as a whole configuration for an unprivileged nginx serving ``upstreams``."""
    if len(UPSTREAM_SERVER.findall(site)) != len(upstreams):
        raise CannotRun(f"{NGINX_CONF} does not list {len(upstreams)} upstream servers named webN:PORT")
    addresses = iter(upstreams)
    site = UPSTREAM_SERVER.sub(lambda match: match.group(1) + next(addresses), site)
    site, listens = LISTEN.subn(rf"\g<1>127.0.0.1:{port};", site)
    if listens != 1:
        raise CannotRun(f"{NGINX_CONF} has no single 'listen 80;' to move to a free port")
    temp = work / "temp"
    # master_process off: one process does the work, so its PID is the one to sample and to stop.
    return f"""daemon off;
master_process off;
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{
    worker_connections 4096;
}}
http {{
    # Which process served each request, to count the chats each one got.
    log_format bench '$upstream_addr $status "$request"';
    access_log {work}/access.log bench;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;

{textwrap.indent(site, "    ")}
}}
"""


def start_nginx(binary: str, work: Path, apps: list[Server]) -> Server:
    """nginx in front of ``apps`` on a free port, ready once it proxies /healthz to them."""
    work.mkdir()
    (work / "temp").mkdir()
    port = free_port()
    upstreams = [app.url.removeprefix("http://") for app in apps]
    conf = work / "nginx.conf"
    conf.write_text(nginx_config(NGINX_CONF.read_text(), port, upstreams, work))
    args = [binary, "-p", str(work), "-c", str(conf), "-e", str(work / "error.log")]
    return spawn("nginx", args, dict(os.environ), work, "/healthz", port=port)


def chats_per_process(access_log: Path, apps: list[Server]) -> dict[str, int]:
    """WebSocket upgrades (status 101) nginx passed to each app process ("daphne N"), from its access log."""
    names = {app.url.removeprefix("http://"): f"daphne {n}" for n, app in enumerate(apps, 1)}
    counts = dict.fromkeys(names.values(), 0)
    for line in access_log.read_text().splitlines():
        address, status, request = line.split(" ", 2)
        if status == "101" and request.startswith('"GET /ws/conversations/') and address in names:
            counts[names[address]] += 1
    return counts


def measure_two(args: argparse.Namespace, work: Path) -> TwoProcesses:
    """``args.chats`` chats through nginx, split over two app processes sharing SQLite and Redis."""
    url = redis_url(args)
    redis_pid = check_redis(url)
    binary = nginx_binary()
    data_dir = work / "two-processes"
    data_dir.mkdir()
    with contextlib.ExitStack() as stack:
        upstream = started(stack, start_upstream(data_dir, args.rate, args.seconds, args.chars))
        # Local mode already allows 127.0.0.1, and nginx passes the Host with its port ($http_host), so the CSRF and
        # WebSocket origin checks match the proxy's origin; the forwarded scheme is trusted as in docker-compose.yml.
        setup = prepare_app(data_dir, upstream, args.chats + 1, url, TRUST_X_FORWARDED_PROTO="1")
        apps = [started(stack, spawn_app(setup, f"app-daphne-{n}")) for n in range(1, PROCESSES + 1)]
        proxy = started(stack, start_nginx(binary, data_dir / "nginx", apps))
        session = login(proxy.url, "demo", setup.password)
        warm_up_id, *conversation_ids = setup.conversation_ids
        for app in apps:
            warm_up(app_target(app, session, setup.endpoint_id, args), warm_up_id)
        pids = {f"daphne {n}": app.process.pid for n, app in enumerate(apps, 1)}
        pids["nginx"] = proxy.process.pid
        if redis_pid is not None:
            pids["redis"] = redis_pid
        target = app_target(proxy, session, setup.endpoint_id, args)
        measurement = measured_upstream(NAME, args, target, conversation_ids, pids, upstream)
    # Read once nginx has stopped: every connection is logged by then.
    return TwoProcesses(measurement, chats_per_process(data_dir / "nginx" / "access.log", apps), url)


def report_two(two: TwoProcesses, one: Measurement | None, seconds: float, load: str) -> None:
    """The two-process run beside the one-process app at the same size (when this run measured it)."""
    m = two.measurement
    print(f"\nTwo daphne processes behind nginx (deploy/nginx.conf), channel layer on Redis at {two.redis_url};")
    print(f"{len(m.results)} chats split between them by nginx; load average {load}")
    runs = [m] if one is None else [m, dataclasses.replace(one, name="app, 1 process")]
    print_tables(runs, seconds)
    print("chats per process (nginx's access log): " + ", ".join(f"{k} {v}" for k, v in two.split.items()))
    if one is None:
        print("(the one-process app at this size is measured by the full run: ./scripts/bench ws_stream)")
        return
    p99_ratio = Summary.of(m, seconds).p99 / Summary.of(one, seconds).p99
    cpu_ratio = server_us_per_delta(m) / max(server_us_per_delta(one), 1e-9)
    print(f"two processes/one process: p99 {p99_ratio:.2f}x, daphne CPU per delta (the two summed) {cpu_ratio:.2f}x")
