"""Properties: conversations survive internal -> Anthropic -> internal, Anthropic bodies survive import -> encode,
and streams survive any fragmentation.

The generated conversations stay inside what the codec round-trips exactly (the package docstring lists what it
does not: developer roles, mid-conversation system messages, empty assistant text, argument formatting...).
"""

from __future__ import annotations

import copy
import itertools
import json
import re
import string
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from providers import events as ev
from providers.anthropic import (
    decode_response,
    encode_request,
    encode_response,
    encode_stream,
    import_request,
    new_stream_decoder,
)
from providers.anthropic.mapping import finish_reason
from providers.anthropic.response import message_events
from providers.sse import SSEParser
from providers.streaming import MessageAccumulator, StreamResult, fold
from providers.types import ChatRequest, Message, ToolCall

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ID_CHARS = string.ascii_letters + string.digits + "_-"

TEXT = st.text(min_size=1, max_size=30).filter(str.strip)
NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True)
SCALARS = st.none() | st.booleans() | st.integers(-(10**9), 10**9) | st.floats(allow_nan=False, allow_infinity=False)
JSON_VALUES = st.recursive(
    SCALARS | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
OBJECT_ARGUMENTS = st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4).map(
    lambda value: json.dumps(value, ensure_ascii=False, separators=(",", ":"))
)


def _not_a_json_object(text: str) -> bool:
    try:
        return not isinstance(json.loads(text), dict)
    except ValueError:
        return True


RAW_ARGUMENTS = st.text(min_size=1, max_size=20).filter(lambda t: t.strip() and _not_a_json_object(t))
ARGUMENTS = OBJECT_ARGUMENTS | RAW_ARGUMENTS
DATA_URLS = st.from_regex(r"[A-Za-z0-9+/]{4,16}", fullmatch=True).map(lambda d: f"data:image/png;base64,{d}")
IMAGE_PARTS = (DATA_URLS | st.just("https://example.com/cat.jpg")).map(
    lambda url: {"type": "image_url", "image_url": {"url": url}}
)
USER_CONTENT = TEXT | st.lists(TEXT.map(lambda t: {"type": "text", "text": t}) | IMAGE_PARTS, min_size=1, max_size=3)
THINKING = st.builds(lambda t, s: {"type": "thinking", "thinking": t, "signature": s}, TEXT, TEXT)
REDACTED = st.builds(lambda d: {"type": "redacted_thinking", "data": d}, TEXT)


def _provider_data(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {"format": "anthropic", "blocks": blocks}
    reasoning = "".join(b["thinking"] for b in blocks if b["type"] == "thinking")
    if reasoning:
        data["reasoning"] = reasoning
    return data


@st.composite
def calls(draw: st.DrawFn, counter: list[int]) -> ToolCall:
    counter[0] += 1
    call_id = f"{draw(st.text(ID_CHARS, min_size=1, max_size=12))}{counter[0]}"
    call: ToolCall = {
        "id": call_id,
        "type": "function",
        "function": {"name": draw(NAMES), "arguments": draw(ARGUMENTS)},
    }
    if draw(st.booleans()):
        call["provider_data"] = {"format": "anthropic", "fields": {"caller": {"type": "direct"}}}
    return call


@st.composite
def assistant(draw: st.DrawFn, counter: list[int], with_calls: bool) -> Message:
    message: Message = {"role": "assistant"}
    if with_calls:
        message["content"] = draw(st.none() | TEXT)
        message["tool_calls"] = draw(st.lists(calls(counter), min_size=1, max_size=3))
    else:
        message["content"] = draw(TEXT)
    blocks = draw(st.lists(THINKING | REDACTED, max_size=2))
    if blocks:
        message["provider_data"] = _provider_data(blocks)  # type: ignore[typeddict-item]
    return message


@st.composite
def tool_message(draw: st.DrawFn, call: ToolCall) -> Message:
    content = draw(
        st.just("") | TEXT | st.lists(TEXT.map(lambda t: {"type": "text", "text": t}), min_size=1, max_size=2)
    )
    message: Message = {"role": "tool", "tool_call_id": call["id"], "content": content}
    flag = draw(st.sampled_from([None, True, False]))
    if flag is not None:
        message["is_error"] = flag
    return message


@st.composite
def conversations(draw: st.DrawFn) -> list[Message]:
    counter = [0]
    messages: list[Message] = [{"role": "system", "content": text} for text in draw(st.lists(TEXT, max_size=2))]
    for _ in range(draw(st.integers(1, 3))):
        messages.append({"role": "user", "content": draw(USER_CONTENT)})
        for _ in range(draw(st.integers(0, 2))):
            turn = draw(assistant(counter, with_calls=True))
            messages.append(turn)
            messages.extend(draw(tool_message(call)) for call in turn["tool_calls"])
            if draw(st.booleans()):
                messages.append({"role": "user", "content": draw(TEXT)})
        messages.append(draw(assistant(counter, with_calls=False)))
    return messages


@st.composite
def requests(draw: st.DrawFn) -> ChatRequest:
    request: ChatRequest = {"model": "claude-sonnet-4-20250514", "messages": draw(conversations())}
    budget = draw(st.none() | st.integers(1024, 8000))
    request["max_tokens"] = draw(st.integers(1, 4000)) + (budget or 0)
    if budget is not None:
        request["reasoning"] = {"enabled": True, "budget_tokens": budget}
    if draw(st.booleans()):
        schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
        request["tools"] = [
            {"type": "function", "function": {"name": n, "parameters": schema}}
            for n in draw(st.lists(NAMES, min_size=1, max_size=3))
        ]
    choice = draw(
        st.none()
        | st.sampled_from(["auto", "none", "required"])
        | NAMES.map(lambda n: {"type": "function", "function": {"name": n}})
    )
    if choice is not None:
        request["tool_choice"] = choice
        if choice != "none" and draw(st.booleans()):
            request["parallel_tool_calls"] = draw(st.booleans())
    if draw(st.booleans()):
        request["temperature"] = draw(st.floats(0, 1))
    return request


@SETTINGS
@given(requests())
def test_conversations_survive_internal_wire_internal(request: ChatRequest) -> None:
    before = copy.deepcopy(request)
    wire = encode_request(request).value
    assert request == before  # encoding never changes the conversation it reads
    assert import_request(json.loads(json.dumps(wire))).value == request


@SETTINGS
@given(
    st.lists(
        st.text(min_size=1, max_size=12).filter(lambda t: not re.fullmatch(r"[a-zA-Z0-9_-]+", t)),
        min_size=1,
        max_size=3,
        unique=True,
    )
)
def test_invalid_ids_are_rewritten_consistently_and_validly(ids: list[str]) -> None:
    tool_calls: list[ToolCall] = [
        {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids
    ]
    messages: list[Message] = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": tool_calls},
        *({"role": "tool", "tool_call_id": i, "content": "ok"} for i in ids),  # type: ignore[misc]
    ]
    body = encode_request({"model": "m", "max_tokens": 10, "messages": messages}).value
    call_ids = [block["id"] for block in body["messages"][1]["content"]]
    result_ids = [block["tool_use_id"] for block in body["messages"][2]["content"]]
    assert call_ids == result_ids
    assert len(set(call_ids)) == len(ids)
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]+", i) for i in call_ids)


# --- streams -----------------------------------------------------------------------------------------------------

RAW_REASONS = st.sampled_from(["end_turn", "stop_sequence", "pause_turn", "tool_use", "max_tokens", "refusal"])


# A stream carries text and argument text verbatim; a whole response parses arguments and drops blank text.
STREAM_TEXT = st.text(min_size=1, max_size=60)
STREAM_ARGUMENTS = ARGUMENTS | st.just("{}") | st.text(min_size=1, max_size=40).filter(str.strip)


@st.composite
def results(draw: st.DrawFn, verbatim: bool = True) -> StreamResult:
    counter = [0]
    message: Message = {"role": "assistant", "content": draw(st.none() | (STREAM_TEXT if verbatim else TEXT))}
    tool_calls = draw(st.lists(calls(counter), max_size=3))
    for call in tool_calls:
        call["function"]["arguments"] = draw(STREAM_ARGUMENTS if verbatim else ARGUMENTS | st.just("{}"))
    if tool_calls:
        message["tool_calls"] = tool_calls
    blocks = draw(st.lists(THINKING | REDACTED, max_size=2))
    if blocks:
        message["provider_data"] = _provider_data(blocks)  # type: ignore[typeddict-item]
    cached, creation, fresh, completion = (draw(st.integers(0, 5000)) for _ in range(4))
    usage = {"input_tokens": fresh, "cache_read_input_tokens": cached, "cache_creation_input_tokens": creation}
    raw = draw(RAW_REASONS)
    events = [
        *message_events(message),
        ev.UsageUpdate(_usage(usage, completion)),
        ev.Finish(finish_reason(raw), raw),
        ev.StreamEnd(),
    ]
    return fold(events, "anthropic")


def _usage(wire: dict[str, int], completion: int) -> Any:
    prompt = wire["input_tokens"] + wire["cache_read_input_tokens"] + wire["cache_creation_input_tokens"]
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "cached_tokens": wire["cache_read_input_tokens"],
        "cache_creation_tokens": wire["cache_creation_input_tokens"],
    }


def _decode_bytes(raw: bytes, cuts: list[int]) -> StreamResult:
    parser, decoder, acc = SSEParser(), new_stream_decoder(), MessageAccumulator(format="anthropic")
    bounds = [0, *sorted(cut % (len(raw) + 1) for cut in cuts), len(raw)]
    for start, end in itertools.pairwise(bounds):
        for sse in parser.feed(raw[start:end]):
            acc.extend(decoder.feed(sse))
    for sse in parser.close():
        acc.extend(decoder.feed(sse))
    acc.extend(decoder.close())
    return acc.result()


@SETTINGS
@given(results(), st.integers(1, 12), st.lists(st.integers(0, 10**6), max_size=30))
def test_any_fragmentation_of_an_encoded_stream_decodes_to_the_same_result(
    result: StreamResult, fragment_size: int, cuts: list[int]
) -> None:
    events = encode_stream(result, model="m", response_id="msg_1", fragment_size=fragment_size)
    raw = b"".join(event.encode() for event in events)
    assert _decode_bytes(raw, cuts) == result


@SETTINGS
@given(results(verbatim=False))
def test_whole_responses_decode_to_the_same_result(result: StreamResult) -> None:
    body = json.loads(json.dumps(encode_response(result, model="m", response_id="msg_1")))
    assert decode_response(body) == result


# --- Anthropic bodies --------------------------------------------------------------------------------------------

CACHE = st.just({"type": "ephemeral"})
WIRE_TEXT = st.builds(
    lambda t, c: {"type": "text", "text": t, **({"cache_control": c} if c else {})}, TEXT, st.none() | CACHE
)
WIRE_INPUT = st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=3)


@st.composite
def wire_turn(draw: st.DrawFn, counter: list[int]) -> list[dict[str, Any]]:
    """An assistant message, and the user message answering its calls."""
    blocks: list[dict[str, Any]] = draw(st.lists(THINKING | REDACTED, max_size=2))
    blocks += draw(st.lists(WIRE_TEXT, max_size=2))
    calls = []
    for _ in range(draw(st.integers(0, 3))):
        counter[0] += 1
        call = {"type": "tool_use", "id": f"toolu_{counter[0]}", "name": draw(NAMES), "input": draw(WIRE_INPUT)}
        calls.append({**call, **({"caller": {"type": "direct"}} if draw(st.booleans()) else {})})
    if not blocks and not calls:
        blocks = [draw(WIRE_TEXT)]
    content = blocks + calls
    if draw(st.booleans()):
        content = draw(st.permutations(content))  # an order the internal message cannot hold: kept whole
    turn = [{"role": "assistant", "content": content}]
    if calls:
        turn.append(
            {
                "role": "user",
                "content": [draw(wire_result(call["id"])) for call in calls] + draw(st.lists(WIRE_TEXT, max_size=2)),
            }
        )
    return turn


@st.composite
def wire_result(draw: st.DrawFn, call_id: str) -> dict[str, Any]:
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id}
    content = draw(st.none() | TEXT | st.lists(WIRE_TEXT, min_size=1, max_size=2))
    if content is not None:
        result["content"] = content
    flag = draw(st.sampled_from([None, True, False]))
    if flag is not None:
        result["is_error"] = flag
    return result


@st.composite
def wire_bodies(draw: st.DrawFn) -> dict[str, Any]:
    counter = [0]
    messages: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 3))):
        if not messages or messages[-1]["role"] == "assistant":  # consecutive user messages get merged: lossy
            messages.append({"role": "user", "content": draw(TEXT | st.lists(WIRE_TEXT, min_size=1, max_size=2))})
        messages.extend(draw(wire_turn(counter)))
    body: dict[str, Any] = {"model": "claude-sonnet-4-20250514", "max_tokens": draw(st.integers(5000, 9000))}
    system = draw(st.none() | TEXT | st.lists(WIRE_TEXT, min_size=1, max_size=2))
    if system is not None:
        body["system"] = system
    body["messages"] = messages
    if draw(st.booleans()):
        body["tools"] = [
            {"name": n, "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}
            for n in draw(st.lists(NAMES, min_size=1, max_size=2))
        ]
    choice = draw(
        st.none()
        | st.sampled_from(
            [
                {"type": "auto"},
                {"type": "none"},
                {"type": "any", "disable_parallel_tool_use": True},
                {"type": "tool", "name": "f"},
            ]
        )
    )
    if choice is not None:
        body["tool_choice"] = choice
    if draw(st.booleans()):
        body["thinking"] = draw(
            st.sampled_from([{"type": "enabled", "budget_tokens": 4000}, {"type": "adaptive"}, {"type": "disabled"}])
        )
    if draw(st.booleans()):
        body["metadata"] = {"user_id": draw(TEXT)}
    return body


@SETTINGS
@given(wire_bodies())
def test_anthropic_bodies_survive_wire_internal_wire(body: dict[str, Any]) -> None:
    assert encode_request(import_request(copy.deepcopy(body)).value).value == body
