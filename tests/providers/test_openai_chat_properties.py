"""Properties: internal -> wire -> internal loses only what the codec documents; any fragmentation of an encoded
stream (fragment size, SSE byte splits, CRLF framing) decodes to the same final message."""

from __future__ import annotations

import copy
import json
import string
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from providers import openai_chat
from providers.sse import SSEParser
from providers.streaming import MessageAccumulator, StreamResult

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TOOLS: list[Any] = [{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}]

texts = st.text(max_size=30)
non_empty = st.text(min_size=1, max_size=30).filter(str.strip)
ids = st.text(string.ascii_letters + string.digits + "_-.:", min_size=1, max_size=30).filter(str.strip)
names = st.text(string.ascii_letters + string.digits + "_", min_size=1, max_size=20)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
arguments = st.one_of(
    st.dictionaries(st.text(max_size=8), json_values, max_size=4).map(json.dumps),
    non_empty,  # not JSON at all: must travel verbatim
)
reasoning_data = st.builds(
    lambda key, text: {"format": "openai-chat", "reasoning": text, "fields": {key: text}},
    st.sampled_from(["reasoning_content", "reasoning"]),
    non_empty,
)
message_data = st.one_of(
    st.none(),
    reasoning_data,
    st.builds(lambda text: {"format": "openai-chat", "fields": {"refusal": text}}, texts),
    st.builds(lambda text: {"format": "anthropic", "reasoning": text, "blocks": [{"type": "thinking"}]}, texts),
)
call_data = st.one_of(
    st.none(),
    st.builds(lambda sig: {"format": "openai-chat", "fields": {"extra_content": {"google": {"s": sig}}}}, texts),
    st.just({"format": "anthropic", "fields": {"caller": {"type": "direct"}}}),
)


@st.composite
def calls(draw: st.DrawFn, min_size: int = 1) -> list[dict[str, Any]]:
    call_ids = draw(st.lists(ids, min_size=min_size, max_size=3, unique=True))
    out = []
    for call_id in call_ids:
        call: dict[str, Any] = {"id": call_id, "type": "function", "function": {"name": draw(names)}}
        call["function"]["arguments"] = draw(arguments)
        data = draw(call_data)
        if data is not None:
            call["provider_data"] = data
        out.append(call)
    return out


@st.composite
def tool_turn(draw: st.DrawFn) -> list[dict[str, Any]]:
    made = draw(calls())
    assistant: dict[str, Any] = {"role": "assistant", "content": draw(st.none() | st.just("") | non_empty)}
    assistant["tool_calls"] = made
    data = draw(message_data)
    if data is not None:
        assistant["provider_data"] = data
    results = []
    for call in draw(st.permutations(made)):
        result = {"role": "tool", "tool_call_id": call["id"], "content": draw(texts)}
        if draw(st.booleans()):
            result["is_error"] = draw(st.booleans())
        results.append(result)
    return [assistant, *results]


@st.composite
def plain_turn(draw: st.DrawFn) -> list[dict[str, Any]]:
    role = draw(st.sampled_from(["system", "developer", "user", "assistant"]))
    content = draw(texts | st.lists(st.builds(lambda t: {"type": "text", "text": t}, texts), min_size=1, max_size=2))
    message: dict[str, Any] = {"role": role, "content": content}
    if role == "user" and draw(st.booleans()):
        message["name"] = draw(names)
    return [message]


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    turns = draw(st.lists(st.one_of(plain_turn(), tool_turn()), min_size=1, max_size=5))
    request: dict[str, Any] = {"model": draw(names), "messages": [message for turn in turns for message in turn]}
    optional = {
        "tools": st.just(TOOLS),
        "tool_choice": st.sampled_from(["auto", "none", "required", {"type": "function", "function": {"name": "add"}}]),
        "parallel_tool_calls": st.booleans(),
        "temperature": st.floats(0, 2, allow_nan=False),
        "max_tokens": st.integers(1, 100_000),
        "stream": st.booleans(),
        "provider_data": st.builds(lambda seed: {"format": "openai-chat", "fields": {"seed": seed}}, st.integers()),
    }
    for key, strategy in optional.items():
        if draw(st.booleans()):
            request[key] = draw(strategy)
    return request


def documented_loss(request: dict[str, Any]) -> dict[str, Any]:
    """What a request looks like after internal -> openai-chat -> internal, per the codec's docstrings."""
    expected = copy.deepcopy(request)
    for message in expected["messages"]:
        _drop_foreign(message)
        for call in message.get("tool_calls", []):
            _drop_foreign(call)
        if message.get("tool_calls") and message.get("content") == "":
            message["content"] = None  # an assistant turn with calls and no text is sent as content: null
        if message.pop("is_error", False):
            message["content"] = stated_failure(message["content"])
    return expected


def _drop_foreign(item: dict[str, Any]) -> None:
    if item.get("provider_data", {}).get("format") not in (None, "openai-chat"):
        del item["provider_data"]


def stated_failure(content: str) -> str:
    if not content:
        return "Error"
    return content if content.lower().startswith("error") else f"Error: {content}"


@SETTINGS
@given(requests())
def test_internal_request_survives_the_wire(request: dict[str, Any]) -> None:
    original = copy.deepcopy(request)
    wire = openai_chat.encode_request(request)  # type: ignore[arg-type]
    assert request == original
    json.dumps(wire.value)  # the body is plain JSON
    assert openai_chat.import_request(wire.value).value == documented_loss(request)


@SETTINGS
@given(requests())
def test_wire_request_survives_import_and_encode(request: dict[str, Any]) -> None:
    wire = openai_chat.encode_request(request).value  # type: ignore[arg-type]
    assert openai_chat.encode_request(openai_chat.import_request(wire).value).value == wire


@st.composite
def results(draw: st.DrawFn) -> StreamResult:
    message: dict[str, Any] = {"role": "assistant", "content": draw(st.none() | st.text(min_size=1, max_size=60))}
    made = [call for call in draw(calls(min_size=0)) if call.get("provider_data", {}).get("format") != "anthropic"]
    if made:
        message["tool_calls"] = made
    if draw(st.booleans()):
        message["provider_data"] = draw(reasoning_data)
    reason = "tool_calls" if made else draw(st.sampled_from(["stop", "length", "content_filter"]))
    counts = draw(st.lists(st.integers(0, 10**6), min_size=5, max_size=5))
    keys = ("prompt_tokens", "completion_tokens", "total_tokens", "cached_tokens", "reasoning_tokens")
    return StreamResult(message, reason, None, dict(zip(keys, counts, strict=True)), None, True)  # type: ignore[arg-type]


def decode_bytes(pieces: list[bytes]) -> StreamResult:
    parser, decoder = SSEParser(), openai_chat.new_stream_decoder()
    acc = MessageAccumulator(format="openai-chat")
    for piece in pieces:
        for event in parser.feed(piece):
            acc.extend(decoder.feed(event))
    for event in parser.close():
        acc.extend(decoder.feed(event))
    acc.extend(decoder.close())
    return acc.result()


@SETTINGS
@given(results(), st.integers(1, 20), st.booleans(), st.booleans(), st.data())
def test_any_fragmentation_decodes_to_the_same_message(
    result: StreamResult, fragment_size: int, include_usage: bool, crlf: bool, data: st.DataObject
) -> None:
    events = openai_chat.encode_stream(
        result, model="m", response_id="chatcmpl-p", fragment_size=fragment_size, include_usage=include_usage
    )
    raw = b"".join(event.encode() for event in events)
    if crlf:
        raw = raw.replace(b"\n", b"\r\n")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=12)))
    pieces = [raw[start:end] for start, end in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
    decoded = decode_bytes(pieces)
    assert decoded.message == result.message
    assert (decoded.finish_reason, decoded.complete, decoded.error) == (result.finish_reason, True, None)
    assert decoded.usage == (result.usage if include_usage else None)


@SETTINGS
@given(results())
def test_whole_response_decodes_to_the_same_message(result: StreamResult) -> None:
    body = openai_chat.encode_response(result, model="m", response_id="chatcmpl-p")
    decoded = openai_chat.decode_response(json.loads(json.dumps(body)))
    assert (decoded.message, decoded.finish_reason, decoded.usage) == (
        result.message,
        result.finish_reason,
        result.usage,
    )
