"""Conversation history at scale, on PostgreSQL: the Conversations list, its search, and one very long conversation.

Run with the bench dependencies:  ./scripts/bench history [--conversations 10000] [--repeat 50]
Again on the seeded database:     ./scripts/bench history --reuse

What it does, in order:

1. Drops and recreates the database ``crosswire_bench_history`` on the local PostgreSQL (127.0.0.1:5432, user
   postgres), migrates it and sets up the demo account, as ``./scripts/run`` does.
2. Seeds the demo team (bench/history_seed.py): 10,000 conversations of 20 messages and 8 round trips, each round
   trip with the internal request, the wire request and 25-62 raw SSE events (about 42 on average, 90-220 bytes
   of data each by format) from its format's ``encode_stream``; varied endpoints, formats, models, tools, argument
   values, statuses, errors and dates over a year; search fields as ``index_conversation`` writes them (checked on
   a sample). Plus one conversation of 100 round trips and 50,000 raw events. Loaded by COPY, then VACUUM ANALYZE,
   as a database in use would be.
3. Starts the real app under daphne (DEBUG off, that database), signs in as demo, switches to the demo team, and
   times each page N times after a warm-up: the list, its next page (keyset), a search for a word in ~1% of the
   conversations, the same search filtered by tool and status, a broad search (a word in ~30%, for reference), the
   long conversation's page, and one of its round trips' raw events loaded on demand.
4. Prints p50/p95/max per page, MET or MISSED against the targets, and for every page the server's own share
   measured in process (Django's test client on the same database: view time, SQL count and time), with EXPLAIN
   ANALYZE of the slowest query of any page that misses its target.

"Server time" is the client's wall time from sending the request to reading the last byte, over a kept-alive
connection on 127.0.0.1: the app sends no Server-Timing header and this bench adds nothing to it, so the figure
includes daphne and the loopback (well under 1 ms for these sizes), which is what a user on the same host would see.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import html
import http.client
import importlib
import io
import multiprocessing
import os
import pstats
import re
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from ws_servers import Server, daphne_args, spawn

from tests.helpers import login, prepare_database, server_env

DB_NAME = "crosswire_bench_history"
PG = "postgresql://postgres@127.0.0.1:5432"
LIST_TARGET_MS, PAGE_TARGET_MS = 150.0, 300.0
BATCH = 250  # conversations per generated batch: big enough to amortise a COPY, small enough to stream
SEED = 1
SEEDED_TABLES = ("playground_conversation", "playground_roundtrip", "playground_message")
ON_DEMAND_POSITION = 50  # the round trip whose raw events are loaded on demand


@dataclass(frozen=True)
class Page:
    name: str
    path: str
    target_ms: float | None  # None: measured for reference, no target
    expect: Callable[[str], str]  # what the body shows, checked once: a wrong page must not look fast


@dataclass
class Timing:
    page: Page
    ms: list[float] = field(default_factory=list)
    size: int = 0
    shown: str = ""  # what the body was checked to show

    def quantile(self, q: float) -> float:
        values = sorted(self.ms)
        return values[min(len(values) - 1, int(q * len(values)))]

    @property
    def verdict(self) -> str:
        if self.page.target_ms is None:
            return "(reference)"
        return "MET" if self.quantile(0.95) <= self.page.target_ms else "MISSED"


@dataclass
class InProcess:
    """One page served in process: its view time, and the SQL it ran (with the slowest statement)."""

    view_ms: float
    queries: int
    sql_ms: float
    slowest_ms: float
    slowest_sql: str
    statements: list[tuple[float, int, str]] = field(default_factory=list)  # (ms in all, times run, SQL), costliest


# --- the database -------------------------------------------------------------------------------------------------


def recreate_database() -> None:
    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")


def setup_django(env: dict[str, str]) -> None:
    """The ORM in this process, on the bench database: to read the demo rows, check the index, profile pages."""
    os.environ.update(env)
    import django

    django.setup()


def catalog() -> Any:
    from history_seed import Catalog, endpoint_profiles, tool_snapshots

    from playground.endpoints.models import Endpoint
    from playground.teams.models import Team
    from playground.tools.models import Tool

    team = Team.objects.get(name="Demo team", personal_for=None)
    # Viewers (grace) cannot start chats: conversations are by the owner and the editor.
    users = tuple(
        team.memberships.filter(role__in=["owner", "editor"]).order_by("-role").values_list("user", flat=True)
    )
    simulated = dict(Endpoint.objects.filter(team=None).values_list("name", "pk"))
    tools = [t.config() for t in Tool.objects.filter(team=team).order_by("name")]
    return Catalog(team.pk, users, endpoint_profiles(simulated), tool_snapshots(tools))


# --- seeding ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeedJob:
    catalog: Any
    count: int
    base_ids: tuple[int, int, int]
    now: datetime


def _build(job: SeedJob, first: int) -> Any:
    from history_seed import batch

    return batch(job.catalog, first, min(BATCH, job.count - first), job.base_ids, job.now, SEED)


def _copy(cur: psycopg.Cursor[Any], table: str, columns: list[str], rows: list[tuple[Any, ...]]) -> None:
    with cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _load(cur: psycopg.Cursor[Any], rows: Any) -> None:
    from history_seed import CONVERSATION_COLUMNS, MESSAGE_COLUMNS, ROUND_TRIP_COLUMNS

    _copy(cur, "playground_conversation", CONVERSATION_COLUMNS, rows.conversations)
    _copy(cur, "playground_roundtrip", ROUND_TRIP_COLUMNS, rows.round_trips)
    _copy(cur, "playground_message", MESSAGE_COLUMNS, rows.messages)


def _next_ids(cur: psycopg.Cursor[Any]) -> tuple[int, int, int]:
    values = [cur.execute(f"SELECT COALESCE(MAX(id), 0) + 1 FROM {t}").fetchone()[0] for t in SEEDED_TABLES]  # type: ignore[index]
    return values[0], values[1], values[2]


def seed(count: int) -> tuple[int, int]:
    """Seed ``count`` conversations and the big one; returns (the big conversation's id, raw events loaded)."""
    from django.db import connections
    from history_seed import big_conversation

    job_catalog, now = catalog(), datetime.now(UTC)
    connections.close_all()  # the workers are forked: they must not share this process's database socket
    events = 0
    with psycopg.connect(f"{PG}/{DB_NAME}") as conn, conn.cursor() as cur:
        # Ids are generated consistently, so the foreign-key triggers (one deferred check per row) are skipped;
        # a lost commit on a crash only means seeding again.
        cur.execute("SET session_replication_role = replica")
        cur.execute("SET synchronous_commit = off")
        job = SeedJob(job_catalog, count, _next_ids(cur), now)
        # Two workers build batches while this process feeds COPY: generation and PostgreSQL share the 2 cores.
        with multiprocessing.get_context("fork").Pool(2) as pool:
            for done, rows in enumerate(pool.imap(_Builder(job), range(0, count, BATCH)), 1):
                _load(cur, rows)
                events += rows.events
                _progress(min(done * BATCH, count), count)
        big_ids = tuple(base + n for base, n in zip(job.base_ids, (count, count * 8, count * 20), strict=True))
        big = big_conversation(job_catalog, big_ids, now)  # type: ignore[arg-type]
        _load(cur, big)
        # What RoundTrip.save() measures, measured as the migration does for rows saved before it.
        cur.execute(importlib.import_module("playground.migrations.0011_round_trip_measures").MEASURE["postgresql"])
        for table in SEEDED_TABLES:
            cur.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))")
        conn.commit()
    print()
    return big.conversations[0][0], events + big.events


@dataclass(frozen=True)
class _Builder:
    """A picklable callable for the pool (a lambda is not)."""

    job: SeedJob

    def __call__(self, first: int) -> Any:
        return _build(self.job, first)


def _progress(done: int, total: int) -> None:
    print(f"\r  seeded {done:,}/{total:,} conversations", end="", flush=True)


def vacuum() -> None:
    """What autovacuum would have done on a database in use: visibility map, hint bits and statistics."""
    with psycopg.connect(f"{PG}/{DB_NAME}", autocommit=True) as conn:
        for table in SEEDED_TABLES:
            conn.execute(f"VACUUM (ANALYZE) {table}")


def check_index(team_id: int, sample: int = 25) -> str:
    """The seeded search fields against index_conversation itself (rolled back), and nothing left to index."""
    from django.db import transaction

    from playground.conversations.models import Conversation
    from playground.conversations.search_index import index_conversation

    names = ["search_text", "called_tools", "has_error", "invalid_calls"]
    rows = Conversation.objects.filter(team_id=team_id).order_by("?")[:sample]
    for conversation in rows:
        before = Conversation.objects.filter(pk=conversation.pk).values(*names).get()
        with transaction.atomic():
            index_conversation(conversation)
            after = Conversation.objects.filter(pk=conversation.pk).values(*names).get()
            transaction.set_rollback(True)
        if before != after:
            raise AssertionError(f"conversation {conversation.pk}: seeded search fields differ from the index")
    stale = Conversation.objects.filter(team_id=team_id, indexed_at__isnull=True).count()
    return f"search fields equal index_conversation's on {sample}/{sample} sampled conversations; {stale} unindexed"


def table_sizes() -> list[tuple[str, int, str]]:
    with psycopg.connect(f"{PG}/{DB_NAME}") as conn:
        return [
            (t, *conn.execute(f"SELECT COUNT(*), pg_size_pretty(pg_total_relation_size('{t}')) FROM {t}").fetchone())  # type: ignore[misc]
            for t in SEEDED_TABLES
        ]


# --- the pages ----------------------------------------------------------------------------------------------------


def _rows(body: str) -> int:
    return body.count('data-testid="conversation-row"')


def pages(big_id: int, filter_tool: str, counts: dict[str, int], q_common: str) -> list[Page]:
    """The pages measured; each checks its body shows what the database holds (counts: expected row totals)."""
    from history_seed import RARE_WORD

    def rows_of(expected: int) -> Callable[[str], str]:
        return lambda body: _check(_rows(body) == min(expected, 50), f"{_rows(body)} rows (expected {expected})")

    search = f"/conversations/?q={RARE_WORD}"
    return [
        # The floor of any page here: daphne, the middleware, a new database connection (CONN_MAX_AGE=0), SELECT 1.
        Page("floor: /healthz", "/healthz", None, lambda body: _check('"ok"' in body, "status ok")),
        Page("list", "/conversations/", LIST_TARGET_MS, rows_of(counts["all"])),
        Page("list, next page (keyset)", "", None, rows_of(counts["all"] - 50)),  # its path comes from page 1
        Page(f"search ?q={RARE_WORD}", search, LIST_TARGET_MS, rows_of(counts["rare"])),
        Page(
            f"search + tool={filter_tool} + status=done",
            f"{search}&tool={filter_tool}&status=done",
            LIST_TARGET_MS,
            rows_of(counts["filtered"]),
        ),
        Page(f"broad search ?q={q_common}", f"/conversations/?q={q_common}", None, rows_of(counts["common"])),
        Page("long conversation page", f"/c/{big_id}/", PAGE_TARGET_MS, _big_page_check),
        Page(
            f"its round trip {ON_DEMAND_POSITION + 1} raw events",
            f"/c/{big_id}/round-trips/{ON_DEMAND_POSITION}/events/",
            None,
            lambda body: _check(body.count('data-testid="wire-event"') == 500, "500 raw events"),
        ),
        Page(
            f"its round trip {ON_DEMAND_POSITION + 1} unfolded",
            f"/c/{big_id}/round-trips/{ON_DEMAND_POSITION}/panes/",
            None,
            lambda body: _check('data-testid="pane-wire"' in body, "its whole panes"),
        ),
        Page("long conversation review", f"/c/{big_id}/review/", None, _big_page_check),
    ]


def _check(ok: bool, what: str) -> str:
    if not ok:
        raise AssertionError(f"unexpected page: {what}")
    return what


def _big_page_check(body: str) -> str:
    inline = body.count('data-testid="wire-event"')
    events = body.count('data-testid="load-wire-events"')
    folded = body.count('data-testid="load-round-trip"')
    ok = inline == 0 and events + folded == 100
    return _check(ok, f"{inline} raw events inline, {events} whole round trips, {folded} folded")


def expected_counts(team_id: int, tool: str, q_common: str) -> dict[str, int]:
    """How many rows each list should find, counted in plain SQL beside the app's query (not through it)."""
    from django.db import connection
    from history_seed import RARE_WORD

    matches = "to_tsvector('simple', COALESCE(search_text, '')) @@ websearch_to_tsquery('simple', %s)"
    base = "SELECT COUNT(*) FROM playground_conversation WHERE team_id = %s AND indexed_at IS NOT NULL"
    queries = {
        "all": (base, [team_id]),
        "rare": (f"{base} AND {matches}", [team_id, RARE_WORD]),
        "filtered": (
            f"{base} AND {matches} AND called_tools LIKE %s AND status = 'done'",
            [team_id, RARE_WORD, f"% {tool} %"],
        ),
        "common": (f"{base} AND {matches}", [team_id, q_common]),
    }
    with connection.cursor() as cur:
        return {name: cur.execute(sql, params).fetchone()[0] for name, (sql, params) in queries.items()}


def filter_tool(team_id: int) -> str:
    """The tool most often called in conversations with the rare word: the filter keeps a real share of them."""
    from history_seed import RARE_WORD

    from playground.conversations.models import Conversation

    called = Conversation.objects.filter(team_id=team_id, search_text__contains=RARE_WORD).values_list(
        "called_tools", flat=True
    )
    names = [name for text in called for name in text.split()]
    return max(set(names), key=names.count)


# --- the client ---------------------------------------------------------------------------------------------------


class Client:
    """One kept-alive HTTP/1.1 connection to the app, signed in: what a browser tab does."""

    def __init__(self, server: Server, session: str) -> None:
        host, port = urllib.parse.urlsplit(server.url).netloc.split(":")
        self.host, self.port, self.cookie = host, int(port), f"sessionid={session}"
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=300)

    def get(self, path: str) -> tuple[float, int, str, http.client.HTTPMessage]:
        """(ms to the last byte, status, body, headers); once more on a new connection if the server closed it."""
        for attempt in range(2):
            started = time.perf_counter()
            try:
                self.conn.request("GET", path, headers={"Cookie": self.cookie})
                response = self.conn.getresponse()
                body = response.read()
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=300)
                if attempt:
                    raise
                continue
            return (time.perf_counter() - started) * 1000, response.status, body.decode(), response.msg
        raise AssertionError("unreachable")

    def post(self, path: str, fields: dict[str, str], csrf: str) -> int:
        body = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": csrf})
        headers = {"Cookie": f"{self.cookie}; csrftoken={csrf}", "Content-Type": "application/x-www-form-urlencoded"}
        self.conn.request("POST", path, body=body, headers=headers)
        response = self.conn.getresponse()
        response.read()
        return response.status


def switch_team(client: Client, team_id: int) -> None:
    """Through the real team switcher, as a person does; the CSRF cookie comes from a page that has a form."""
    cookies = client.get("/conversations/")[3].get_all("Set-Cookie") or []
    match = next((m for c in cookies if (m := re.match(r"csrftoken=([^;]+)", c))), None)
    if match is None:
        raise RuntimeError("no CSRF cookie from /conversations/")
    status = client.post("/team/switch/", {"team": str(team_id), "next": "/conversations/"}, match.group(1))
    if status != 302:
        raise RuntimeError(f"switching to the demo team answered {status}")


def measure(client: Client, page: Page, repeat: int, warmup: int, budget_s: float) -> Timing:
    """``warmup`` unmeasured requests (the first one checked), then up to ``repeat`` (at least 5) within
    ``budget_s`` seconds."""
    timing = Timing(page)
    warm_until = time.monotonic() + budget_s / 4  # a page of several seconds gets fewer warm-ups, at least one
    for _ in range(max(1, warmup)):
        if timing.shown and time.monotonic() > warm_until:
            break
        _, status, body, _ = client.get(page.path)
        if status != 200:
            raise RuntimeError(f"{page.path} answered {status}")
        if not timing.shown:
            timing.size, timing.shown = len(body.encode()), page.expect(body)
    deadline = time.monotonic() + budget_s
    while len(timing.ms) < repeat and (len(timing.ms) < 5 or time.monotonic() < deadline):
        timing.ms.append(client.get(page.path)[0])
    return timing


def next_page_path(client: Client) -> str:
    _, _, body, _ = client.get("/conversations/")
    match = re.search(r'href="([^"]+)" data-testid="next-page"', body)
    if match is None:
        raise RuntimeError("the list has no next page")
    return "/conversations/" + html.unescape(match.group(1))


# --- the server's own share, in process ---------------------------------------------------------------------------


@contextlib.contextmanager
def in_process_client(team_id: int) -> Iterator[Any]:
    from django.contrib.auth import get_user_model
    from django.test import Client as DjangoClient

    from playground.teams.access import CURRENT_TEAM_SESSION_KEY

    client = DjangoClient(HTTP_HOST="127.0.0.1")
    client.force_login(get_user_model().objects.get(username="demo"))
    session = client.session
    session[CURRENT_TEAM_SESSION_KEY] = team_id
    session.save()
    yield client


def in_process(client: Any, path: str, runs: int = 3) -> InProcess:
    """The view alone (no daphne, no socket): best of ``runs``; then once more counting its SQL."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        status = client.get(path).status_code
        best = min(best, (time.perf_counter() - started) * 1000)
        if status != 200:
            raise RuntimeError(f"{path} answered {status} in process")
    with CaptureQueriesContext(connection) as captured:
        client.get(path)
    times = [(float(q["time"]) * 1000, q["sql"]) for q in captured.captured_queries]
    slowest = max(times, default=(0.0, ""))
    own = InProcess(best, len(times), sum(t for t, _ in times), slowest[0], slowest[1])
    # The same statement run several times by one view (a query in a loop) shows as one line with its count.
    by_sql: dict[str, list[float]] = {}
    for ms, sql in times:
        by_sql.setdefault(sql, []).append(ms)
    own.statements = sorted(((sum(v), len(v), sql) for sql, v in by_sql.items()), reverse=True)
    return own


def explain(sql: str) -> list[str]:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}")
        return [row[0] for row in cur.fetchall()]


def profile(client: Any, path: str, top: int = 12) -> str:
    """Where the view's Python time goes: the functions with the most time of their own."""
    profiler = cProfile.Profile()
    profiler.runcall(client.get, path)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return "\n".join(line for line in out.getvalue().splitlines() if line.strip())


def list_parts(team_id: int) -> str:
    """The list view's three steps on their own (best of 5): which one the time goes to."""
    from playground.conversations.search import ListQuery, facets, search_conversations
    from playground.conversations.search_index import index_stale

    steps: dict[str, Callable[[], object]] = {
        "index_stale": lambda: index_stale(team_id),
        "search_conversations": lambda: search_conversations(team_id, ListQuery()),
        "facets": lambda: facets(team_id),
    }
    return ", ".join(f"{name} {_best_ms(step):.0f} ms" for name, step in steps.items())


def _best_ms(step: Callable[[], object], runs: int = 5) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        step()
        best = min(best, (time.perf_counter() - started) * 1000)
    return best


def big_page_stored(big_id: int) -> str:
    """What the page's round-trip queries read (EXPLAIN does not count it: it never detoasts the columns it
    returns), and how often the page reads it."""
    from django.db import connection

    sql = (
        "SELECT SUM(octet_length(request::text) + octet_length(wire_request::text)),"
        " SUM(pg_column_size(request) + pg_column_size(wire_request)) FROM playground_roundtrip"
        " WHERE conversation_id = %s"
    )
    with connection.cursor() as cur:
        text, stored = cur.execute(sql, [big_id]).fetchone()
    return f"request + wire_request of its round trips: {text / 1e6:.1f} MB of JSON ({stored / 1e6:.1f} MB stored)"


def big_page_parts(big_id: int) -> str:
    """What the long conversation's page is made of, by the pieces page_round_trips renders per round trip."""
    import json

    from playground.conversations.models import Conversation
    from playground.conversations.panes import PaneLinks, page_round_trips

    views = page_round_trips(Conversation.objects.get(pk=big_id), PaneLinks(big_id))
    whole = [v for v in views if not v.get("folded")]
    parts = {
        "internal request JSON": sum(len(v["request_json"]) for v in whole),
        "wire request body (pretty)": sum(len(json.dumps(v["row"].wire_request["body"], indent=2)) for v in whole),
        "assistant message JSON": sum(len(v["result_json"]) for v in whole),
    }
    sizes = ", ".join(f"{name} {chars / 1e6:.2f} MB" for name, chars in parts.items())
    return f"{len(whole)} round trips whole and {len(views) - len(whole)} folded; {sizes}"


# --- the report ---------------------------------------------------------------------------------------------------


def report(timings: list[Timing], own: dict[str, InProcess]) -> None:
    print(
        f"\n  {'page':44s} {'n':>3s} {'p50 ms':>8s} {'p95 ms':>8s} {'max ms':>8s} {'KB':>8s}"
        f" {'in-proc':>8s} {'SQL':>4s} {'SQL ms':>7s} {'worst q':>8s}  target"
        "\n  (in-proc: the view in this process, best of 3 ms; SQL: its statements, their ms, the slowest one's ms)"
    )
    for t in timings:
        mine = own[t.page.name]
        target = f"p95 <= {t.page.target_ms:.0f} ms: {t.verdict}" if t.page.target_ms else t.verdict
        print(
            f"  {t.page.name:44s} {len(t.ms):3d} {t.quantile(0.5):8.1f} {t.quantile(0.95):8.1f} {max(t.ms):8.1f}"
            f" {t.size / 1024:8.0f} {mine.view_ms:8.1f} {mine.queries:4d} {mine.sql_ms:7.1f} {mine.slowest_ms:8.1f}"
            f"  {target}"
        )
    print()
    for t in timings:
        if t.page.target_ms is not None:
            print(f"  {t.page.name}: p95 {t.quantile(0.95):.0f} ms (target <= {t.page.target_ms:.0f} ms) {t.verdict}")


def diagnose(timings: list[Timing], own: dict[str, InProcess], client: Any) -> None:
    """For each missed target: the slowest query with its plan, and where the Python time went."""
    for t in timings:
        if t.verdict != "MISSED":
            continue
        mine = own[t.page.name]
        print(f"\n== {t.page.name}: MISSED (p95 {t.quantile(0.95):.0f} ms)")
        print(f"  in process {mine.view_ms:.0f} ms, of which SQL {mine.sql_ms:.0f} ms in {mine.queries} queries")
        print("  statements by time (ms in all, times run, SQL):")
        for ms, runs, sql in mine.statements[:8]:
            print(f"    {ms:7.1f} {runs:3d}x  {sql[:150]}")
        print(f"  slowest query ({mine.slowest_ms:.0f} ms), EXPLAIN (ANALYZE, BUFFERS): {mine.slowest_sql[:300]}")
        print("  " + "\n  ".join(explain(mine.slowest_sql)))
        print("  Python time by function (cProfile, tottime):")
        print("  " + "\n  ".join(profile(client, t.page.path).splitlines()[:24]))


# --- main ---------------------------------------------------------------------------------------------------------


def prepare(args: argparse.Namespace, work: Path) -> tuple[dict[str, str], str]:
    env = server_env(work, DEBUG="0", LOG_LEVEL="WARNING", DATABASE_URL=f"{PG}/{DB_NAME}")
    if args.conn_max_age is not None:
        env["CONN_MAX_AGE"] = str(args.conn_max_age)
    if not args.reuse:
        recreate_database()
    setup_env = {**env, "DEBUG": "1"}  # setup_demo refuses to make its account with DEBUG off
    password = prepare_database(setup_env)
    setup_django(env)
    return env, password


def seed_all(args: argparse.Namespace) -> int:
    from playground.conversations.models import Conversation

    if args.reuse:
        print("reusing the seeded database")
        return Conversation.objects.filter(round_trips__position=99).values_list("pk", flat=True).get()
    started = time.monotonic()
    big_id, events = seed(args.conversations)
    seeded = time.monotonic() - started
    vacuum()
    print(
        f"seeded in {seeded:.0f} s ({events:,} raw events), VACUUM ANALYZE {time.monotonic() - started - seeded:.0f} s"
    )
    return big_id


def run(args: argparse.Namespace, work: Path) -> None:
    env, password = prepare(args, work)
    big_id = seed_all(args)
    for table, rows, size in table_sizes():
        print(f"  {table:26s} {rows:>9,} rows {size:>10s}")
    from history_seed import COMMON_WORD

    team_id = catalog().team_id
    print(check_index(team_id))
    tool = filter_tool(team_id)
    counts = expected_counts(team_id, tool, COMMON_WORD)
    print(f"expected rows: {counts}")
    print(f"list view steps in process: {list_parts(team_id)}")
    print(f"long conversation {big_id}: {big_page_stored(big_id)}; rendered per round trip: {big_page_parts(big_id)}")
    # The machine may be shared: its load says how much of the spread is someone else's work.
    print("load average before measuring: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    server = spawn("app-daphne", daphne_args("playground.asgi:application"), env, work, "/healthz")
    try:
        client = Client(server, login(server.url, "demo", password))
        switch_team(client, team_id)
        measured = pages(big_id, tool, counts, COMMON_WORD)
        keyset = next(i for i, p in enumerate(measured) if p.path == "")
        measured[keyset] = Page(measured[keyset].name, next_page_path(client), None, measured[keyset].expect)
        timings = []
        for page in [p for p in measured if args.only in p.name]:
            timings.append(measure(client, page, args.repeat, args.warmup, args.budget))
            print(f"  measured {page.name}: {timings[-1].shown}")
    finally:
        server.stop()
    with in_process_client(team_id) as own_client:
        own = {t.page.name: in_process(own_client, t.page.path) for t in timings}
        report(timings, own)
        diagnose(timings, own, own_client)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--conversations", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=50, help="measured requests per page")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--budget", type=float, default=90, help="seconds per page at most (at least 5 requests)")
    parser.add_argument("--reuse", action="store_true", help="measure the database a previous run seeded")
    parser.add_argument("--only", default="", help="measure only the pages whose name contains this")
    parser.add_argument(
        "--conn-max-age", type=int, help="CONN_MAX_AGE for the app (default: the app's 0, a connection per request)"
    )
    args = parser.parse_args()
    print(f"PostgreSQL {PG}/{DB_NAME}; {os.cpu_count()} cores; Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix="bench-history-") as work:
        run(args, Path(work))


if __name__ == "__main__":
    main()
