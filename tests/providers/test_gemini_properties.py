"""Properties: conversations survive internal -> Gemini -> internal, Gemini bodies survive import -> encode, and
streams survive any fragmentation (fragment size, SSE byte splits, CRLF framing) and any cut between chunks.

The generated conversations stay inside what the codec round-trips exactly, or apply its documented losses (the
package docstring lists them: call ids the model did not give come back synthetic, a lone text part comes back a
string, a tool result's parts come back as one text...).
"""

from __future__ import annotations

import copy
import json
import string
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from providers.gemini import (
    decode_response,
    encode_request,
    encode_response,
    encode_stream,
    import_request,
    new_stream_decoder,
)
from providers.sse import SSEEvent, SSEParser
from providers.streaming import MessageAccumulator, StreamResult
from providers.types import ChatRequest, Message, ToolCall

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAME = "gemini"

TEXT = st.text(min_size=1, max_size=30).filter(str.strip)
NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True)
IDS = st.text(string.ascii_letters + string.digits + "_-", min_size=1, max_size=10)
SIGNATURES = st.text(string.ascii_letters + string.digits + "+/=", min_size=1, max_size=40)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**9), 10**9) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
ARGS = st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4)
OBJECT_ARGUMENTS = ARGS.map(lambda value: json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _not_an_object(text: str) -> bool:
    try:
        return not isinstance(json.loads(text), dict)
    except ValueError:
        return True


ARGUMENTS = OBJECT_ARGUMENTS | TEXT.filter(_not_an_object)  # text that is not a JSON object travels verbatim


# --- internal -> wire -> internal --------------------------------------------------------------------------------


@st.composite
def calls(draw: st.DrawFn, counter: list[int], name: str) -> ToolCall:
    counter[0] += 1
    call_id = f"call_{draw(IDS)}{counter[0]}"
    call: ToolCall = {"id": call_id, "type": "function", "function": {"name": name, "arguments": draw(ARGUMENTS)}}
    fields: dict[str, Any] = {}
    if draw(st.booleans()):
        fields["thoughtSignature"] = draw(SIGNATURES)
    if draw(st.booleans()):
        fields["functionCall"] = {"id": call_id}  # the model gave it: it is sent back
    if fields:
        call["provider_data"] = {"format": NAME, "fields": fields}
    return call


@st.composite
def assistant(draw: st.DrawFn, counter: list[int], with_calls: bool) -> Message:
    message: Message = {"role": "assistant", "content": draw(st.none() | TEXT) if with_calls else draw(TEXT)}
    if with_calls:
        names = draw(st.lists(NAMES, min_size=1, max_size=3, unique=True))
        message["tool_calls"] = [draw(calls(counter, name)) for name in names]
    thoughts = draw(st.lists(TEXT, max_size=2))
    if thoughts:
        blocks: list[dict[str, Any]] = [{"text": text, "thought": True} for text in thoughts]
        if draw(st.booleans()):
            blocks[-1]["thoughtSignature"] = draw(SIGNATURES)
        message["provider_data"] = {"format": NAME, "blocks": blocks, "reasoning": "".join(thoughts)}
    return message


IMAGES = st.sampled_from(["https://example.com/cat.jpg", "data:image/png;base64,iVBORw0KGgo="]).map(
    lambda url: {"type": "image_url", "image_url": {"url": url}}
)
PARTS = st.lists(TEXT.map(lambda t: {"type": "text", "text": t}) | IMAGES, min_size=1, max_size=3)


@st.composite
def tool_message(draw: st.DrawFn, call: ToolCall) -> Message:
    content = draw(
        st.just("") | TEXT | st.lists(TEXT.map(lambda t: {"type": "text", "text": t}), min_size=1, max_size=2)
    )
    message: Message = {"role": "tool", "tool_call_id": call["id"], "content": content}
    if draw(st.integers(0, 4)) == 0:
        message["is_error"] = True
    return message


@st.composite
def conversations(draw: st.DrawFn) -> list[Message]:
    counter = [0]
    messages: list[Message] = [{"role": "system", "content": text} for text in draw(st.lists(TEXT, max_size=2))]
    for _ in range(draw(st.integers(1, 3))):
        messages.append({"role": "user", "content": draw(TEXT | PARTS)})
        for _ in range(draw(st.integers(0, 2))):
            turn = draw(assistant(counter, with_calls=True))
            messages.append(turn)
            messages.extend(draw(st.permutations([draw(tool_message(call)) for call in turn["tool_calls"]])))
            if draw(st.booleans()):
                messages.append({"role": "user", "content": draw(TEXT)})
        messages.append(draw(assistant(counter, with_calls=False)))
    return messages


@st.composite
def requests(draw: st.DrawFn) -> ChatRequest:
    request: ChatRequest = {"model": "gemini-2.5-flash", "messages": draw(conversations())}
    if draw(st.booleans()):
        schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": ["string", "null"]}}}
        request["tools"] = [
            {"type": "function", "function": {"name": n, "description": "d", "parameters": schema}}
            for n in draw(st.lists(NAMES, min_size=1, max_size=3))
        ]
    choice = draw(
        st.none()
        | st.sampled_from(["auto", "none", "required"])
        | NAMES.map(lambda n: {"type": "function", "function": {"name": n}})
    )
    if choice is not None:
        request["tool_choice"] = choice
    optional: dict[str, Any] = {
        "temperature": st.floats(0, 2),
        "max_tokens": st.integers(1, 100_000),
        "reasoning": st.sampled_from(
            [
                {"enabled": True},
                {"enabled": False},
                {"enabled": True, "budget_tokens": 1024},
                {"enabled": True, "effort": "low"},
            ]
        ),
        "provider_data": st.builds(
            lambda seed: {"format": NAME, "fields": {"safetySettings": [{"category": seed}]}}, TEXT
        ),
    }
    for key, strategy in optional.items():
        if draw(st.booleans()):
            request[key] = draw(strategy)  # type: ignore[literal-required]
    return request


def documented_loss(request: ChatRequest) -> ChatRequest:
    """What a request looks like after internal -> gemini -> internal, per the codec's docstrings."""
    expected = copy.deepcopy(request)
    for message in expected["messages"]:
        content = message.get("content")
        if message["role"] == "tool" and isinstance(content, list):
            message["content"] = "".join(part["text"] for part in content)
        elif isinstance(content, list) and len(content) == 1 and content[0]["type"] == "text":
            message["content"] = content[0]["text"]
    return expected


def same_ids(request: ChatRequest) -> ChatRequest:
    """Call ids renamed in order of appearance: ids the model did not give come back synthetic."""
    renamed: dict[str, str] = {}
    out = copy.deepcopy(request)
    for message in out["messages"]:
        for call in message.get("tool_calls") or []:
            call["id"] = renamed.setdefault(call["id"], f"id{len(renamed)}")
        if message["role"] == "tool":
            message["tool_call_id"] = renamed[message["tool_call_id"]]
    return out


@SETTINGS
@given(requests())
def test_conversations_survive_internal_wire_internal(request: ChatRequest) -> None:
    before = copy.deepcopy(request)
    wire = encode_request(request).value
    assert request == before  # encoding never changes the conversation it reads
    back = import_request(json.loads(json.dumps(wire))).value
    assert same_ids(back) == same_ids(documented_loss(request))
    for original, returned in zip(request["messages"], back["messages"], strict=True):
        for call, came_back in zip(original.get("tool_calls") or [], returned.get("tool_calls") or [], strict=True):
            if "functionCall" in ((call.get("provider_data") or {}).get("fields") or {}):
                assert came_back["id"] == call["id"]  # an id the model gave survives as it was


# --- wire -> internal -> wire ------------------------------------------------------------------------------------

THOUGHT = st.builds(lambda text: {"text": text, "thought": True}, TEXT)


@st.composite
def model_turn(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A model content and the function responses answering its calls (in any order)."""
    parts: list[dict[str, Any]] = draw(st.lists(THOUGHT, max_size=2))
    parts += draw(st.lists(TEXT.map(lambda t: {"text": t}), max_size=1))
    responses = []
    used: set[str] = set()  # a model never gives two calls of one turn the same id
    for index in range(draw(st.integers(0, 3))):
        name, call_id = draw(NAMES), draw(st.none() | IDS)
        if call_id in used:
            call_id = f"{call_id}_{index}"
        if call_id:
            used.add(call_id)
        call: dict[str, Any] = {"name": name, "args": draw(ARGS)}
        if call_id:
            call["id"] = call_id
        part: dict[str, Any] = {"functionCall": call}
        if draw(st.booleans()):
            part["thoughtSignature"] = draw(SIGNATURES)
        parts.append(part)
        response = draw(
            TEXT.map(lambda t: {"result": t}) | TEXT.map(lambda t: {"error": t}) | ARGS.filter(lambda a: len(a) > 1)
        )
        responses.append(
            {"functionResponse": {"name": name, **({"id": call_id} if call_id else {}), "response": response}}
        )
    if draw(st.booleans()):
        parts.append({"text": draw(TEXT), "thoughtSignature": draw(SIGNATURES)})
    if not parts:
        parts = [{"text": draw(TEXT)}]
    if draw(st.booleans()):
        parts = draw(st.permutations(parts))  # an order the internal message cannot hold: kept whole
    return {"role": "model", "parts": parts}, draw(st.permutations(responses))


USER_PARTS = st.lists(
    TEXT.map(lambda t: {"text": t})
    | st.just({"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}})
    | st.just({"inlineData": {"mimeType": "application/pdf", "data": "JVBERi0x"}}),
    min_size=1,
    max_size=3,
)


@st.composite
def wire_bodies(draw: st.DrawFn) -> dict[str, Any]:
    contents: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 3))):
        contents.append({"role": "user", "parts": draw(USER_PARTS)})
        for _ in range(draw(st.integers(0, 2))):
            turn, responses = draw(model_turn())
            contents.append(turn)
            if responses:
                contents.append({"role": "user", "parts": responses})
            else:
                contents.append({"role": "user", "parts": [{"text": draw(TEXT)}]})
    body: dict[str, Any] = {}
    if draw(st.booleans()):
        body["systemInstruction"] = {"parts": [{"text": text} for text in draw(st.lists(TEXT, min_size=1, max_size=2))]}
    body["contents"] = contents
    if draw(st.booleans()):
        parameters = {
            "type": "OBJECT",
            "properties": {"a": {"type": "INTEGER"}, "b": {"type": "STRING", "nullable": True}},
        }
        declarations = [{"name": n, "parameters": parameters} for n in draw(st.lists(NAMES, min_size=1, max_size=2))]
        builtin = draw(st.lists(st.just({"googleSearch": {}}), max_size=1))
        body["tools"] = [{"functionDeclarations": declarations}, *builtin]
    if draw(st.booleans()):
        body["toolConfig"] = {
            "functionCallingConfig": draw(
                st.sampled_from(
                    [
                        {"mode": "AUTO"},
                        {"mode": "NONE"},
                        {"mode": "ANY"},
                        {"mode": "ANY", "allowedFunctionNames": ["f"]},
                        {"mode": "ANY", "allowedFunctionNames": ["f", "g"]},
                        {"mode": "VALIDATED"},
                    ]
                )
            )
        }
    config: dict[str, Any] = {}
    for key, strategy in {
        "temperature": st.floats(0, 2),
        "maxOutputTokens": st.integers(1, 65_536),
        "topP": st.floats(0, 1),
        "thinkingConfig": st.sampled_from(
            [
                {"includeThoughts": True},
                {"thinkingBudget": 0},
                {"thinkingBudget": -1},
                {"includeThoughts": True, "thinkingLevel": "high"},
            ]
        ),
    }.items():
        if draw(st.booleans()):
            config[key] = draw(strategy)
    if config:
        body["generationConfig"] = config
    if draw(st.booleans()):
        body["safetySettings"] = [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": draw(TEXT)}]
    return body


@SETTINGS
@given(wire_bodies())
def test_gemini_bodies_survive_wire_internal_wire(body: dict[str, Any]) -> None:
    internal = import_request(copy.deepcopy(body)).value
    assert encode_request(json.loads(json.dumps(internal))).value == body


# --- streams -----------------------------------------------------------------------------------------------------

RESPONSE_ID = "resp_p"  # synthetic call ids derive from it: the stream is encoded under the same id


@st.composite
def results(draw: st.DrawFn) -> StreamResult:
    """Results as decoding a whole response gives them."""
    parts: list[dict[str, Any]] = draw(st.lists(THOUGHT | st.text(max_size=40).map(lambda t: {"text": t}), max_size=4))
    for _ in range(draw(st.integers(0, 3))):
        call: dict[str, Any] = {"name": draw(NAMES), "args": draw(ARGS)}
        if draw(st.booleans()):
            call["id"] = draw(IDS)
        part: dict[str, Any] = {"functionCall": call}
        if draw(st.booleans()):
            part["thoughtSignature"] = draw(SIGNATURES)
        parts.append(part)
    if draw(st.booleans()):
        parts.append({"text": draw(st.text(max_size=10)), "thoughtSignature": draw(SIGNATURES)})
    if draw(st.booleans()):
        parts = draw(st.permutations(parts))
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    candidate["finishReason"] = draw(
        st.sampled_from(["STOP", "STOP", "MAX_TOKENS", "SAFETY", "MALFORMED_FUNCTION_CALL"])
    )
    if draw(st.booleans()):
        candidate["finishMessage"] = draw(TEXT)
    body: dict[str, Any] = {"responseId": RESPONSE_ID, "modelVersion": "gemini-2.5-flash"}
    if draw(st.integers(0, 5)) == 0:
        body["promptFeedback"] = {"blockReason": "SAFETY"}  # blocked before any candidate
    else:
        body["candidates"] = [candidate]
    usage = {
        key: draw(st.integers(0, 10**6))
        for key in (
            "promptTokenCount",
            "candidatesTokenCount",
            "thoughtsTokenCount",
            "cachedContentTokenCount",
            "totalTokenCount",
        )
        if draw(st.booleans())
    }
    if usage:
        body["usageMetadata"] = usage
    return decode_response(body)


def decode_bytes(pieces: list[bytes]) -> StreamResult:
    parser, decoder, acc = SSEParser(), new_stream_decoder(), MessageAccumulator(format=NAME)
    for piece in pieces:
        for event in parser.feed(piece):
            acc.extend(decoder.feed(event))
    for event in parser.close():
        acc.extend(decoder.feed(event))
    acc.extend(decoder.close())
    return acc.result()


def decode_events(events: list[SSEEvent]) -> StreamResult:
    return decode_bytes([b"".join(event.encode() for event in events)])


@SETTINGS
@given(results(), st.integers(1, 20), st.booleans(), st.data())
def test_any_fragmentation_of_an_encoded_stream_decodes_to_the_same_result(
    result: StreamResult, fragment_size: int, crlf: bool, data: st.DataObject
) -> None:
    events = encode_stream(result, model="m", response_id=RESPONSE_ID, fragment_size=fragment_size)
    raw = b"".join(event.encode() for event in events)
    if crlf:
        raw = raw.replace(b"\n", b"\r\n")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=12)))
    pieces = [raw[start:end] for start, end in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
    assert decode_bytes(pieces) == result


@SETTINGS
@given(results(), st.integers(1, 20))
def test_a_stream_cut_at_any_chunk_boundary_is_incomplete_and_keeps_a_prefix(result: StreamResult, size: int) -> None:
    events = encode_stream(result, model="m", response_id=RESPONSE_ID, fragment_size=size)
    text = result.message.get("content") or ""
    calls = result.message.get("tool_calls") or []
    for count in range(len(events)):
        cut = decode_events(events[:count])
        assert (cut.complete, cut.raw_finish_reason, cut.error) == (False, None, None)
        assert text.startswith(cut.message.get("content") or "")
        assert calls[: len(cut.message.get("tool_calls") or [])] == [
            {key: value for key, value in call.items()} for call in cut.message.get("tool_calls") or []
        ]


@SETTINGS
@given(results())
def test_whole_responses_decode_to_the_same_result(result: StreamResult) -> None:
    body = json.loads(json.dumps(encode_response(result, model="m", response_id=RESPONSE_ID)))
    assert decode_response(body) == result
