"""Compare under load: the columns of one comparison streaming at once, against one column streaming alone.

    ./scripts/bench compare_stream [--columns 4] [--rate 50] [--seconds 10]

Target (issue "Compare", bench): a 4-column compare at 50 deltas/s per column, per-column p99 added latency within
1.5x of the same column run alone, measured in the same run. Both runs go through the real entry point, the
Compare form (POST /compare/run/), in one daphne process with DEBUG off, SQLite and the in-memory layer, as
bench/ws_stream.py runs the app. Each column is an OpenAI-compatible endpoint on the bench upstream
(bench/ws_upstream.py), whose text deltas carry their send time; columns differ by model name (``col-N``) so the
upstream counts each one's deltas. The upstream waits before answering so the page's sockets are open first, as a
browser's are: the bench measures streaming, not how fast a client connects.

Added latency per delta = when its frame reaches the column's socket - when the upstream wrote it, on the same
monotonic clock. The pairs (alone, then together) run in turn, five by default. Each column's p99 over its deltas of
every pair is divided by the lone column's p99 over its deltas of every pair; the worst column decides. Each pair's
own ratio is printed too, with their median: a pair's p99 is the fifth-worst of 500 deltas, which one scheduling
hiccup moves by milliseconds, so a single pair can land on either side.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.cookiejar
import re
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from ws_clients import ChatResult, Target, _connect, _receive
from ws_measure import percentile, started, warm_up
from ws_servers import App, Server, start_app, start_upstream

TARGET_COLUMNS, TARGET_RATE, TARGET_RATIO = 4, 50.0, 1.5
FIRST_BYTE_DELAY_S = 2.0


def start_comparison(app: App, columns: int, text: str) -> list[int]:
    """Submit the Compare form as a browser does; the conversation ids of the columns, in order."""
    return submit_comparison(app, columns, text)[1]


def submit_comparison(app: App, columns: int, text: str) -> tuple[str, list[int]]:
    """Submit the Compare form as a browser does; the comparison's page and its columns' conversation ids."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.addheaders = [("Cookie", f"sessionid={app.session}")]
    with opener.open(f"{app.server.url}/compare/") as response:
        page = response.read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    csrf = next(cookie.value for cookie in jar if cookie.name == "csrftoken")
    assert token is not None, "the Compare form has no CSRF token"
    demo_team = re.search(r'<option value="(\d+)"[^>]*>Demo team</option>', page)
    assert demo_team is not None, "the bench endpoint's team is not offered"
    switch = {"csrfmiddlewaretoken": token.group(1), "team": demo_team.group(1), "next": "/compare/"}
    _post(app, "/team/switch/", list(switch.items()), csrf)
    form: list[tuple[str, str]] = [("csrfmiddlewaretoken", token.group(1)), ("text", text), ("repeat", "1")]
    form += [("max_round_trips", "1")]
    for i in range(columns):
        form += [(f"col-{i}-endpoint_id", str(app.endpoint_id)), (f"col-{i}-model", f"col-{i}")]
        form += [(f"col-{i}-max_tokens", "100000")]
    try:
        url, html = _post(app, "/compare/run/", form, csrf)
    except urllib.error.HTTPError as refused:
        errors = re.findall(r'role="alert">(.*?)</div>\s*</div>', refused.read().decode(), re.S)
        raise SystemExit(f"the Compare form refused the comparison: {' '.join(errors).split()}") from None
    ids = [int(i) for i in re.findall(r'data-testid="compare-column"[^>]*?data-conversation="(\d+)"', html, re.S)]
    assert len(ids) == columns, f"expected {columns} columns on the comparison page, found {len(ids)}"
    return url, ids


def _post(app: App, path: str, form: list[tuple[str, str]], csrf: str) -> tuple[str, str]:
    """A form POST as the page sends it (session and CSRF cookies); the page it ends on: its URL and HTML."""
    request = urllib.request.Request(f"{app.server.url}{path}", data=urllib.parse.urlencode(form).encode())
    request.add_header("Cookie", f"sessionid={app.session}; csrftoken={csrf}")
    request.add_header("Referer", f"{app.server.url}/compare/")
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.geturl(), str(response.read().decode())


async def follow(target: Target, conversation_ids: list[int]) -> list[ChatResult]:
    """One socket per column, opened (snapshot read) before the upstream's first byte; each read to run.end."""
    sockets = [await _connect(target, cid) for cid in conversation_ids]
    for socket in sockets:
        await socket.recv()  # the snapshot

    async def read(socket: object, key: str) -> ChatResult:
        result = ChatResult(key)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(_receive(socket, result), timeout=target.deadline_s)  # type: ignore[arg-type]
        await socket.close()  # type: ignore[attr-defined]
        return result

    return list(await asyncio.gather(*(read(s, f"col-{i}") for i, s in enumerate(sockets))))


def measure(app: App, upstream: Server, columns: int, name: str, args: argparse.Namespace) -> list[ChatResult]:
    target = Target(f"{app.server.ws_url}/ws/conversations/", app.server.url, app.session, {}, args.seconds + 60)
    ids = start_comparison(app, columns, name)
    results = asyncio.run(follow(target, ids))
    sent = upstream.get_json("/stats")["sent"]
    for index, result in enumerate(results):
        result.key = f"col-{index}/{name}"
        missing = int(sent.get(result.key, 0)) - len(result.seqs)  # type: ignore[union-attr]
        if missing or result.ended != "done":
            print(f"  {name} column {index}: {missing} deltas missing, ended {result.ended!r}", file=sys.stderr)
    return results


def p99(result: ChatResult) -> float:
    return percentile(sorted(result.latencies_ms), 0.99)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, default=TARGET_COLUMNS)
    parser.add_argument("--rate", type=float, default=TARGET_RATE, help="deltas per second per column")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--chars", type=int, default=32)
    parser.add_argument("--pairs", type=int, default=5, help="alone/together pairs; the median ratio decides")
    parser.add_argument(
        "--frame-interval-ms", type=int, default=None, help="CROSSWIRE_FRAME_INTERVAL_MS for the app (default: its own)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="compare-") as tmp, contextlib.ExitStack() as stack:
        work = Path(tmp)
        upstream = started(stack, start_upstream(work, args.rate, args.seconds, args.chars, FIRST_BYTE_DELAY_S))
        settings = (
            {} if args.frame_interval_ms is None else {"CROSSWIRE_FRAME_INTERVAL_MS": str(args.frame_interval_ms)}
        )
        app = start_app(work, upstream, 1, **settings)
        started(stack, app.server)
        warm = Target(
            f"{app.server.ws_url}/ws/conversations/",
            app.server.url,
            app.session,
            {"endpoint_id": app.endpoint_id, "model": "bench-1", "tools": [], "stream": True},
            60,
        )
        warm_up(warm, app.conversation_ids[0])
        ratios = []
        alone_all: list[ChatResult] = []
        together_all: list[list[ChatResult]] = []
        for pair in range(args.pairs):
            alone = measure(app, upstream, 1, f"alone-{pair}", args)
            together = measure(app, upstream, args.columns, f"together-{pair}", args)
            ratios.append(report(args, alone[0], together))
            alone_all.append(alone[0])
            together_all.append(together)
    verdict(ratios, pooled(alone_all, together_all))


def pooled(alone: list[ChatResult], together: list[list[ChatResult]]) -> tuple[float, list[float]]:
    """p99 of the lone column over every pair's deltas, and of each column together over every pair's: the p99 of
    2,500 deltas (five pairs) rather than the fifth-worst of 500, which one scheduling hiccup moves."""
    lone = percentile(sorted(v for r in alone for v in r.latencies_ms), 0.99)
    columns = [
        percentile(sorted(v for pair in together for v in pair[i].latencies_ms), 0.99) for i in range(len(together[0]))
    ]
    return lone, columns


def verdict(ratios: list[tuple[float, bool]], pooled_p99: tuple[float, list[float]]) -> None:
    """Each column's p99 over all its deltas (every pair) against the lone column's, worst column: the verdict. The
    pairs' own ratios are printed beside it, and their median: each pair's p99 is the fifth-worst of 500 deltas and
    moves by milliseconds from run to run (one scheduling hiccup of the 2-core machine), so it says less."""
    values = sorted(ratio for ratio, _ in ratios)
    median = values[len(values) // 2]
    whole = all(ok for _, ok in ratios)
    listed = ", ".join(f"{ratio:.2f}x" for ratio, _ in ratios)
    print(f"\nper pair (alone, then together): median {median:.2f}x ({listed})")
    lone, columns = pooled_p99
    worst = max(columns) / lone
    met = worst <= TARGET_RATIO and whole
    each = ", ".join(f"{p:.1f}" for p in columns)
    print(
        f"over all {len(ratios)} pairs: p99 alone {lone:.1f} ms, each column together {each} ms;"
        f" worst column {worst:.2f}x; target <= {TARGET_RATIO:g}x: {'MET' if met else 'MISSED'}"
        f"{'' if whole else ' (deltas missing or out of order)'}"
    )


def report(args: argparse.Namespace, alone: ChatResult, together: list[ChatResult]) -> tuple[float, bool]:
    expected = round(args.rate * args.seconds)
    print(f"\n{args.columns} columns x {args.rate:g} deltas/s x {args.seconds:g} s, one daphne process (ms)")
    print(f"  {'run':18s} {'p50':>7s} {'p99':>7s} {'max':>8s} {'deltas':>8s}")
    rows = [("1 column alone", alone)] + [(f"column {i + 1} of {args.columns}", r) for i, r in enumerate(together)]
    for label, r in rows:
        values = sorted(r.latencies_ms)
        print(
            f"  {label:18s} {percentile(values, 0.5):7.1f} {p99(r):7.1f} {values[-1] if values else float('nan'):8.1f}"
            f" {len(r.seqs):>4d}/{expected}"
        )
    worst = max(p99(r) for r in together) / p99(alone)
    whole = all(len(r.seqs) == expected and r.in_order for r in [alone, *together])
    print(f"worst column p99 together / alone: {worst:.2f}x{'' if whole else ', with deltas missing or out of order'}")
    return worst, whole


if __name__ == "__main__":
    main()
