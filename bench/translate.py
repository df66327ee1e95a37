"""Translation speed: a 2-tool parallel call whose arguments arrive in N fragments, in four wire formats.

Run with the bench dependencies (LiteLLM and the SDKs are only baselines here):  ./scripts/bench translate

Each path starts from the same raw SSE bytes, held in memory, and ends with the events (or the message) a client
would use. The SDK paths and ours go through the same in-memory HTTP transport, so transport cost is equal.
The LiteLLM baseline converts bytes already in memory, so it is compared with our translation from the same bytes
("bytes only"); our full path, SDK HTTP included, is printed beside it too.
OpenAI Chat and Anthropic first (their output as before), then OpenAI Responses and Gemini (bench/translate_formats.py;
Gemini sends a call whole, so its fragments are measured on a text reply too).
Printed: events/s per path (best of several runs), the ratios the targets are stated in, and MET/MISSED per target.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anthropic
import httpx2
import openai
import translate_formats as formats

from providers.formats import get_format
from providers.sse import SSEParser
from providers.streaming import MessageAccumulator, StreamResult

SIZES = (200, 2_000, 8_000)
FRAGMENT = 6  # characters per argument fragment
LINEAR_FLOOR = 0.9  # our throughput at the largest N over the smallest: "does not fall", beyond timing noise


def _call(index: int, chars: int) -> dict[str, object]:
    # A long string argument: realistic for code or document tools, and easy to size exactly.
    payload = json.dumps({"path": f"/tmp/file{index}.txt", "content": "x" * chars})
    return {"id": f"call_{index}", "type": "function", "function": {"name": f"tool_{index}", "arguments": payload}}


def argument_chars(fragments: int) -> int:
    """The long string in each call's arguments: the two calls' arguments are N fragments together."""
    return max(fragments // 2 * FRAGMENT - 40, 1)


def two_calls(fragments: int) -> dict[str, Any]:
    chars = argument_chars(fragments)
    return {"role": "assistant", "content": None, "tool_calls": [_call(0, chars), _call(1, chars)]}


def stream_bytes(fmt: str, fragments: int) -> tuple[bytes, int]:
    """The wire bytes of the 2-call stream, and how many SSE events it holds."""
    message = two_calls(fragments)
    result = StreamResult(message, "tool_calls", None, {"prompt_tokens": 10, "completion_tokens": 20}, None, True)
    events = get_format(fmt).encode_stream(result, model="bench-1", response_id="bench", fragment_size=FRAGMENT)
    return b"".join(e.encode() for e in events), len(events)


def _transport(body: bytes) -> httpx2.MockTransport:
    headers = {"content-type": "text/event-stream"}
    return httpx2.MockTransport(lambda request: httpx2.Response(200, content=body, headers=headers))


def _anthropic_client(body: bytes) -> anthropic.Anthropic:
    http = httpx2.Client(transport=_transport(body))
    return anthropic.Anthropic(api_key="bench", base_url="http://bench", http_client=http, max_retries=0)


def _openai_client(body: bytes) -> openai.OpenAI:
    http = httpx2.Client(transport=_transport(body))
    return openai.OpenAI(api_key="bench", base_url="http://bench/v1", http_client=http, max_retries=0)


ARGS = {"model": "bench-1", "messages": [{"role": "user", "content": "go"}], "stream": True}


# Clients are built once per path, outside the timed part: building one is not translation.


def raw_anthropic_sdk(client: anthropic.Anthropic) -> int:
    stream = client.messages.create(max_tokens=10, **ARGS)  # type: ignore[call-overload]
    return sum(1 for _ in stream)


def raw_openai_sdk(client: openai.OpenAI) -> int:
    stream = client.chat.completions.create(**ARGS)  # type: ignore[call-overload]
    return sum(1 for _ in stream)


def ours(fmt: str, sdk: anthropic.Anthropic | openai.OpenAI) -> int:
    """Crosswire's path: the SDK does the HTTP, raw bytes -> SSE -> internal events -> final message."""
    client = sdk.messages if isinstance(sdk, anthropic.Anthropic) else sdk.chat.completions
    extra = {"max_tokens": 10} if fmt == "anthropic" else {}
    parser, decoder, acc = SSEParser(), get_format(fmt).new_stream_decoder(), MessageAccumulator(format=fmt)
    count = 0
    with client.with_streaming_response.create(**ARGS, **extra) as response:
        for chunk in response.iter_bytes():
            for sse in parser.feed(chunk):
                count += 1
                acc.extend(decoder.feed(sse))
    acc.extend(decoder.close())
    assert len(acc.result().message["tool_calls"]) == 2
    return count


def ours_from_bytes(fmt: str, body: bytes) -> int:
    """Translation alone, from the same in-memory bytes LiteLLM is given: the like-for-like comparison."""
    parser, decoder, acc = SSEParser(), get_format(fmt).new_stream_decoder(), MessageAccumulator(format=fmt)
    count = 0
    for start in range(0, len(body), 16_384):  # network-sized reads
        for sse in parser.feed(body[start : start + 16_384]):
            count += 1
            acc.extend(decoder.feed(sse))
    acc.extend(decoder.close())
    return count


def litellm_anthropic(body: bytes) -> int:
    from litellm.llms.anthropic.chat.handler import ModelResponseIterator

    iterator = ModelResponseIterator(streaming_response=iter(()), sync_stream=True)
    count = 0
    for block in body.decode().split("\n\n"):
        if block.strip():
            iterator.convert_str_chunk_to_generic_chunk(block)
            count += 1
    return count


def best_rate(run: Callable[[], int], seconds: float) -> float:
    """Events per second, best of repeated runs for at least ``seconds`` (best, not mean: noise only slows)."""
    run()  # untimed: lazy imports (LiteLLM's take seconds) would otherwise eat the time and leave only 3 runs
    best, deadline, runs = 0.0, time.perf_counter() + seconds, 0
    while runs < 3 or time.perf_counter() < deadline:
        started = time.perf_counter()
        events = run()
        best = max(best, events / (time.perf_counter() - started))
        runs += 1
    return best


def measure(fragments: int, seconds: float) -> dict[str, float]:
    a_body, _ = stream_bytes("anthropic", fragments)
    o_body, _ = stream_bytes("openai-chat", fragments)
    a_client, o_client = _anthropic_client(a_body), _openai_client(o_body)
    paths: dict[str, Callable[[], int]] = {
        "anthropic SDK (typed events)": lambda: raw_anthropic_sdk(a_client),
        "crosswire anthropic": lambda: ours("anthropic", a_client),
        "crosswire anthropic, bytes only": lambda: ours_from_bytes("anthropic", a_body),
        "litellm anthropic, bytes only": lambda: litellm_anthropic(a_body),
        "openai SDK (typed chunks)": lambda: raw_openai_sdk(o_client),
        "crosswire openai-chat": lambda: ours("openai-chat", o_client),
    }
    return {name: best_rate(run, seconds) for name, run in paths.items()}


def report(results: dict[int, dict[str, float]]) -> None:
    for n, rates in results.items():
        print(f"\nN = {n:,} argument fragments")
        for name, rate in rates.items():
            print(f"  {name:32s} {rate:>12,.0f} events/s   {1e6 / rate:8.2f} us/event")
        ours_a, ours_o = rates["crosswire anthropic"], rates["crosswire openai-chat"]
        bytes_only = rates["crosswire anthropic, bytes only"] / rates["litellm anthropic, bytes only"]
        print(f"  ratio crosswire/litellm (anthropic, bytes only): {bytes_only:6.2f}x  (target >= 10x)")
        with_http = ours_a / rates["litellm anthropic, bytes only"]
        print(f"  ratio crosswire with SDK HTTP/litellm bytes only: {with_http:6.2f}x")
        sdk_a = rates["anthropic SDK (typed events)"]
        print(f"  ratio crosswire/SDK (anthropic):       {ours_a / sdk_a:6.2f}x  (>= 1x)")
        print(f"  ratio crosswire/SDK (openai-chat):     {ours_o / rates['openai SDK (typed chunks)']:6.2f}x  (> 1x)")
    if 2_000 in results and 8_000 in results:
        for name in ("crosswire anthropic", "crosswire openai-chat"):
            growth = results[2_000][name] / results[8_000][name]
            print(f"per-event cost at N=8,000 vs N=2,000, {name}: {growth:.2f}x  (target <= 1.2x)")


# --- OpenAI Responses and Gemini (their paths: bench/translate_formats.py) ----------------------------------

# The formats above, named as the targets are: Anthropic's SDK target is "at least as fast", OpenAI's "faster".
OLD_SPECS = (
    formats.Spec(
        "anthropic",
        sdk="anthropic SDK (typed events)",
        ours="crosswire anthropic",
        ours_bytes="crosswire anthropic, bytes only",
        litellm="litellm anthropic, bytes only",
        sdk_strict=False,
    ),
    formats.Spec("openai-chat", sdk="openai SDK (typed chunks)", ours="crosswire openai-chat"),
)


def new_groups(fragments: int) -> list[formats.Group]:
    """The new formats' streams at this N; each path is checked once, outside the timed part, when built."""
    calls, chars = two_calls(fragments), f"2 calls of {argument_chars(fragments):,}-character arguments"
    text = f"a text reply of {fragments * FRAGMENT:,} characters in N fragments (what Gemini does send in pieces)"
    return [
        formats.responses_group(formats.calls_workload("openai-responses", calls, FRAGMENT), f"{chars} in fragments"),
        formats.gemini_group("gemini", f"{chars}, each whole", formats.calls_workload("gemini", calls, FRAGMENT)),
        formats.gemini_group("gemini text", text, formats.text_workload("gemini", fragments, FRAGMENT)),
    ]


@dataclass(frozen=True)
class Run:
    """One format's rates at one N (events/s per path) and the size of its events."""

    spec: formats.Spec
    rates: dict[str, float]
    bytes_per_event: float = 0.0

    def mb_per_s(self, name: str) -> float:
        return self.rates[name] * self.bytes_per_event / 1e6

    def throughput(self, name: str) -> float:
        """What must not fall as N grows: events/s, or MB/s where the event count does not grow with N."""
        return self.mb_per_s(name) if self.spec.by_bytes else self.rates[name]


def measure_new(fragments: int, seconds: float) -> list[tuple[formats.Group, Run]]:
    measured = []
    for group in new_groups(fragments):
        rates = {name: best_rate(run, seconds) for name, run in group.paths.items()}
        measured.append((group, Run(group.spec, rates, len(group.work.body) / group.work.events)))
    return measured


def verdict(value: float, floor: float, strict: bool = False) -> str:
    return "MET" if (value > floor if strict else value >= floor) else "MISSED"


def report_new(results: dict[int, list[tuple[formats.Group, Run]]]) -> None:
    for n, measured in results.items():
        print(f"\nN = {n:,} argument fragments: OpenAI Responses and Gemini")
        for group, run in measured:
            report_group(group, run)


def report_group(group: formats.Group, run: Run) -> None:
    spec, rates = group.spec, run.rates
    print(f"  {spec.title}: {group.note}; {group.work.events:,} events, {len(group.work.body):,} bytes")
    for name, rate in rates.items():
        print(f"    {name:44s} {rate:>9,.0f} events/s {1e6 / rate:9.2f} us/event {run.mb_per_s(name):7.1f} MB/s")
    assert spec.litellm is not None and spec.ours_bytes is not None
    litellm, sdk = rates[spec.ours_bytes] / rates[spec.litellm], rates[spec.ours] / rates[spec.sdk]
    print(f"    ratio crosswire/litellm, bytes only:          {litellm:6.2f}x  (target >= 10x) {verdict(litellm, 10)}")
    print(f"    ratio crosswire with HTTP/litellm bytes only: {rates[spec.ours] / rates[spec.litellm]:6.2f}x")
    print(f"    ratio crosswire/SDK typed parsing:            {sdk:6.2f}x  (target > 1x)   {verdict(sdk, 1, True)}")


# --- every format's targets, a ratio judged at every N --------------------------------------------------------


def judged(spec: formats.Spec, runs: list[Run]) -> list[tuple[str, str, float, str]]:
    """(target, floor, value, MET/MISSED): a speed ratio at its worst N; our throughput at the largest N / smallest."""
    rows: list[tuple[str, str, float, str]] = []
    if spec.litellm is not None and spec.ours_bytes is not None:
        worst = min(run.rates[spec.ours_bytes] / run.rates[spec.litellm] for run in runs)
        rows.append(("crosswire/litellm, bytes only", ">= 10x", worst, verdict(worst, 10)))
    worst = min(run.rates[spec.ours] / run.rates[spec.sdk] for run in runs)
    floor = "> 1x" if spec.sdk_strict else ">= 1x"
    rows.append(("crosswire/SDK typed parsing", floor, worst, verdict(worst, 1, spec.sdk_strict)))
    unit = "MB/s" if spec.by_bytes else "events/s"
    for name, label in ((spec.ours, "with HTTP"), (spec.ours_bytes, "bytes only")):
        if name is not None:
            growth = runs[-1].throughput(name) / runs[0].throughput(name)
            rows.append((f"linearity, {label}, {unit}", f">= {LINEAR_FLOOR}x", growth, verdict(growth, LINEAR_FLOOR)))
    return rows


def report_targets(old: dict[int, dict[str, float]], new: dict[int, list[tuple[formats.Group, Run]]]) -> None:
    sizes = sorted(old)
    print(f"\ntargets (a speed ratio at its worst N; linearity: our throughput at N={sizes[-1]:,} / N={sizes[0]:,}):")
    per_format = [(spec, [Run(spec, old[n]) for n in sizes]) for spec in OLD_SPECS]
    for index, (group, _) in enumerate(new[sizes[0]]):
        per_format.append((group.spec, [new[n][index][1] for n in sizes]))
    for spec, runs in per_format:
        for what, floor, value, result in judged(spec, runs):
            print(f"  {spec.title:17s} {what:32s} {floor:8s} {value:7.2f}x  {result}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.5, help="time spent per path and size")
    parser.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    args = parser.parse_args()
    sizes = sorted(args.sizes)
    old = {n: measure(n, args.seconds) for n in sizes}
    report(old)
    new = {n: measure_new(n, args.seconds) for n in sizes}
    report_new(new)
    report_targets(old, new)


if __name__ == "__main__":
    main()
