"""The translate bench's paths for OpenAI Responses and Google Gemini (imported by bench/translate.py, not run alone).

Each path takes the bytes of one stream, made by the codec's own ``encode_stream``, and ends where a client could use
the result: our final internal message, the SDK's typed objects, LiteLLM's OpenAI-shaped chunks.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
import httpx2
import openai
from google import genai
from google.genai import types as genai_types

from providers.client.gemini_http import KEY_HEADER, generate_url
from providers.formats import get_format
from providers.sse import SSEParser
from providers.streaming import MessageAccumulator, StreamResult

# LiteLLM fetches its model price list from the internet on import; a bench must not, and this machine cannot.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

SSE_HEADERS = {"content-type": "text/event-stream"}
RESPONSES_ARGS: dict[str, Any] = {"model": "bench-1", "input": "go", "stream": True}
GEMINI_MODEL = "bench-1"
GEMINI_REQUEST: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": "go"}]}]}
# LiteLLM's logging object, reduced to the one thing its Gemini iterator reads: the request's optional params (none
# here, so no JSON-mode rewriting of tool calls). Its logging and callbacks are not part of the conversion.
LITELLM_LOGGING = SimpleNamespace(optional_params={})


# --- the workloads ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    """One stream as bytes, and what a correct conversion of it must give."""

    body: bytes
    events: int
    calls: list[dict[str, Any]]  # the expected arguments, parsed, per call (empty for a text reply)
    text: str


def encode(fmt: str, result: StreamResult, fragment: int) -> tuple[bytes, int]:
    events = get_format(fmt).encode_stream(result, model="bench-1", response_id="bench", fragment_size=fragment)
    return b"".join(e.encode() for e in events), len(events)


def calls_workload(fmt: str, message: dict[str, Any], fragment: int) -> Workload:
    result = StreamResult(message, "tool_calls", None, {"prompt_tokens": 10, "completion_tokens": 20}, None, True)
    body, events = encode(fmt, result, fragment)
    calls = [json.loads(call["function"]["arguments"]) for call in message["tool_calls"]]
    return Workload(body, events, calls, "")


def text_workload(fmt: str, fragments: int, fragment: int) -> Workload:
    """A text reply in ``fragments`` pieces: the only thing Gemini streams in fragments (a call comes whole)."""
    text = "x" * (fragments * fragment)
    message = {"role": "assistant", "content": text}
    result = StreamResult(message, "stop", None, {"prompt_tokens": 10, "completion_tokens": 20}, None, True)
    body, events = encode(fmt, result, fragment)
    return Workload(body, events, [], text)


# --- in-memory clients, built once per path outside the timed part --------------------------------------------


def openai_client(body: bytes) -> openai.OpenAI:
    transport = httpx2.MockTransport(lambda request: httpx2.Response(200, content=body, headers=SSE_HEADERS))
    http = httpx2.Client(transport=transport)
    return openai.OpenAI(api_key="bench", base_url="http://bench/v1", http_client=http, max_retries=0)


def gemini_http(body: bytes) -> httpx2.Client:
    """What our Gemini client posts on: plain httpx2, as ``providers.client.gemini_http`` does."""
    transport = httpx2.MockTransport(lambda request: httpx2.Response(200, content=body, headers=SSE_HEADERS))
    return httpx2.Client(transport=transport)


def genai_client(body: bytes) -> genai.Client:
    # google-genai is built on httpx, not httpx2: the same kind of in-memory transport, from that library.
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=body, headers=SSE_HEADERS))
    options = genai_types.HttpOptions(base_url="http://bench", httpx_client=httpx.Client(transport=transport))
    return genai.Client(api_key="bench", http_options=options)


# --- ours ------------------------------------------------------------------------------------------------------


def translate(fmt: str, chunks: Iterable[bytes]) -> tuple[int, MessageAccumulator]:
    """Raw bytes -> SSE -> internal events -> accumulator: the app's translation, whatever did the HTTP."""
    parser, decoder, acc = SSEParser(), get_format(fmt).new_stream_decoder(), MessageAccumulator(format=fmt)
    count = 0
    for chunk in chunks:
        for sse in parser.feed(chunk):
            count += 1
            acc.extend(decoder.feed(sse))
    acc.extend(decoder.close())
    return count, acc


def memory_reads(body: bytes) -> Iterator[bytes]:
    for start in range(0, len(body), 16_384):  # network-sized reads
        yield body[start : start + 16_384]


def ours_responses(client: openai.OpenAI) -> int:
    """The SDK does the HTTP (``with_streaming_response``), we translate its raw bytes to the final message."""
    with client.responses.with_streaming_response.create(**RESPONSES_ARGS) as response:
        count, acc = translate("openai-responses", response.iter_bytes())
    acc.result()
    return count


def gemini_stream(http: httpx2.Client) -> AbstractContextManager[httpx2.Response]:
    """The POST ``gemini_http.open_response`` makes (the model in the URL, the key in its header), synchronously."""
    content = json.dumps(GEMINI_REQUEST, ensure_ascii=False, separators=(",", ":")).encode()
    headers = {KEY_HEADER: "bench", "content-type": "application/json"}
    url = generate_url("http://bench", GEMINI_MODEL, stream=True)
    return http.stream("POST", url, content=content, headers=headers)


def ours_gemini(http: httpx2.Client) -> int:
    with gemini_stream(http) as response:
        count, acc = translate("gemini", response.iter_bytes())
    acc.result()
    return count


def ours_from_bytes(fmt: str, body: bytes) -> int:
    """Translation alone, from the same in-memory bytes LiteLLM is given, to the final message."""
    count, acc = translate(fmt, memory_reads(body))
    acc.result()
    return count


# --- the SDKs' typed parsing -----------------------------------------------------------------------------------


def responses_sdk(client: openai.OpenAI) -> int:
    return sum(1 for _ in client.responses.create(**RESPONSES_ARGS))


def gemini_sdk_chunks(client: genai.Client) -> Iterator[genai_types.GenerateContentResponse]:
    return client.models.generate_content_stream(model=GEMINI_MODEL, contents="go")


def gemini_sdk(client: genai.Client) -> int:
    return sum(1 for _ in gemini_sdk_chunks(client))


# --- LiteLLM's conversions of the same bytes to OpenAI chat chunks --------------------------------------------


def lines(body: bytes) -> list[str]:
    """What ``httpx.Response.iter_lines()`` hands LiteLLM's iterators."""
    return body.decode().split("\n")


def litellm_responses_chunks(body: bytes) -> Iterator[Any]:
    """LiteLLM's Responses -> chat bridge fed the raw lines: its cheapest way from these bytes."""
    from litellm.completion_extras.litellm_responses_transformation.transformation import (
        OpenAiResponsesToChatCompletionStreamIterator as Bridge,
    )

    return Bridge(iter(lines(body)), sync_stream=True)


def litellm_responses(body: bytes) -> int:
    # The bridge answers "event:" lines with an empty chunk: count only the events, as every other path does.
    return sum(1 for chunk in litellm_responses_chunks(body) if not isinstance(chunk, dict))


def litellm_responses_typed(body: bytes) -> int:
    """What ``litellm.completion`` does with a Responses stream: each event typed (LiteLLM's pydantic models, as its
    streaming iterator makes them), then the bridge, which dumps it back to a dict and converts it. Hooks left out."""
    from litellm.completion_extras.litellm_responses_transformation.transformation import (
        OpenAiResponsesToChatCompletionStreamIterator as Bridge,
    )
    from litellm.llms.openai.responses.transformation import OpenAIResponsesAPIConfig

    config, bridge, count = OpenAIResponsesAPIConfig(), Bridge(iter(()), sync_stream=True), 0
    for line in lines(body):
        if line.startswith("data:"):
            typed = config.transform_streaming_response("bench-1", json.loads(line[5:]), LITELLM_LOGGING)  # type: ignore[arg-type]
            bridge._handle_string_chunk(typed)
            count += 1
    return count


def litellm_gemini_chunks(body: bytes) -> Iterator[Any]:
    """LiteLLM's Gemini/Vertex ``ModelResponseIterator``, as ``make_sync_call`` builds it on the response's lines."""
    from litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini import ModelResponseIterator

    iterator = ModelResponseIterator(iter(lines(body)), sync_stream=True, logging_obj=LITELLM_LOGGING)  # type: ignore[arg-type]
    return (chunk for chunk in iterator if chunk is not None)  # blank lines between events give None


def litellm_gemini(body: bytes) -> int:
    return sum(1 for _ in litellm_gemini_chunks(body))


# --- one check per path, outside the timed part: every path must really convert the stream -------------------


def check_ours(fmt: str, work: Workload) -> None:
    message = translate(fmt, memory_reads(work.body))[1].result().message
    if work.calls:
        got = [json.loads(call["function"]["arguments"]) for call in message["tool_calls"]]
        assert got == work.calls, f"crosswire {fmt}: wrong tool calls"
    else:
        assert message["content"] == work.text, f"crosswire {fmt}: wrong text"


def check_litellm(name: str, chunks: Iterable[Any], work: Workload) -> None:
    """LiteLLM's chunks, folded as an OpenAI client would: the same calls (or text) must come out."""
    arguments: dict[int, list[str]] = {}
    text: list[str] = []
    for chunk in chunks:
        for choice in getattr(chunk, "choices", None) or []:
            text.append(choice.delta.content or "")
            for call in choice.delta.tool_calls or []:
                arguments.setdefault(call.index, []).append(call.function.arguments or "")
    if work.calls:
        got = [json.loads("".join(parts)) for _, parts in sorted(arguments.items())]
        assert got == work.calls, f"{name}: wrong tool calls"
    else:
        assert "".join(text) == work.text, f"{name}: wrong text"


def check_gemini_sdk(client: genai.Client, work: Workload) -> None:
    chunks = list(gemini_sdk_chunks(client))
    calls = [call.args for chunk in chunks for call in chunk.function_calls or []]
    assert len(chunks) == work.events, "google-genai: wrong number of chunks"
    assert calls == work.calls, "google-genai: wrong tool calls"
    if work.text:  # ``.text`` warns about the call parts of a call stream
        assert "".join(chunk.text or "" for chunk in chunks) == work.text, "google-genai: wrong text"


# --- the groups the bench measures ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """One format's paths as the targets name them."""

    title: str
    sdk: str
    ours: str  # our path with the HTTP done by the SDK's client (ours for Gemini), as the app runs it
    ours_bytes: str | None = None  # our translation from the bytes in memory, like for like with LiteLLM
    litellm: str | None = None
    sdk_strict: bool = True  # "faster than" the SDK (Anthropic's older target is "at least as fast")
    by_bytes: bool = False  # linearity in MB/s: the stream's event count does not grow with N


@dataclass(frozen=True)
class Group:
    """One format's stream at one N and its paths, each a closure over clients built once, outside the timing."""

    spec: Spec
    note: str  # what the stream is, for the printed header
    work: Workload
    paths: dict[str, Callable[[], int]]


def responses_group(work: Workload, note: str) -> Group:
    client = openai_client(work.body)
    check_ours("openai-responses", work)
    check_litellm("litellm openai-responses", litellm_responses_chunks(work.body), work)
    assert responses_sdk(client) == work.events, "openai SDK: wrong number of Responses events"
    ours_bytes, litellm = "crosswire openai-responses, bytes only", "litellm openai-responses, bytes only"
    spec = Spec(
        "openai-responses",
        sdk="openai SDK (typed Responses events)",
        ours="crosswire openai-responses",
        ours_bytes=ours_bytes,
        litellm=litellm,
    )
    paths: dict[str, Callable[[], int]] = {
        spec.sdk: lambda: responses_sdk(client),
        spec.ours: lambda: ours_responses(client),
        ours_bytes: lambda: ours_from_bytes("openai-responses", work.body),
        litellm: lambda: litellm_responses(work.body),
        # What litellm.completion really runs on these bytes; the target is judged on the cheaper line above.
        "litellm openai-responses typed, bytes only": lambda: litellm_responses_typed(work.body),
    }
    return Group(spec, note, work, paths)


def gemini_group(title: str, note: str, work: Workload) -> Group:
    client, http = genai_client(work.body), gemini_http(work.body)
    check_ours("gemini", work)
    check_litellm("litellm gemini", litellm_gemini_chunks(work.body), work)
    check_gemini_sdk(client, work)
    suffix = "" if work.calls else ", text"
    ours_bytes, litellm = f"crosswire gemini{suffix}, bytes only", f"litellm gemini{suffix}, bytes only"
    spec = Spec(
        title,
        sdk=f"google-genai SDK (typed chunks){suffix}",
        ours=f"crosswire gemini{suffix}",
        ours_bytes=ours_bytes,
        litellm=litellm,
        by_bytes=bool(work.calls),  # calls come whole: 2 events at every N, each bigger
    )
    paths: dict[str, Callable[[], int]] = {
        spec.sdk: lambda: gemini_sdk(client),
        spec.ours: lambda: ours_gemini(http),
        ours_bytes: lambda: ours_from_bytes("gemini", work.body),
        litellm: lambda: litellm_gemini(work.body),
    }
    return Group(spec, note, work, paths)


if __name__ == "__main__":
    sys.exit("These are the translate bench's paths; run it with:  ./scripts/bench translate")
