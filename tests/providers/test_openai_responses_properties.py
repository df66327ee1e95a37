"""Properties: conversations survive internal -> Responses -> internal, Responses bodies survive import -> encode,
and streams survive any fragmentation (fragment size, SSE byte splits, CRLF framing).

The generated conversations stay inside what the codec round-trips exactly, or apply its documented losses (the
package docstring lists them: ``is_error`` stated in the output, a tool without ``strict``...).
"""

from __future__ import annotations

import copy
import json
import string
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from providers.openai_responses import (
    decode_response,
    encode_request,
    encode_response,
    encode_stream,
    import_request,
    new_stream_decoder,
)
from providers.sse import SSEParser
from providers.streaming import MessageAccumulator, StreamResult
from providers.types import ChatRequest, Message, ToolCall

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAME = "openai-responses"

TEXT = st.text(min_size=1, max_size=30).filter(str.strip)
NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True)
IDS = st.text(string.ascii_letters + string.digits + "_-", min_size=1, max_size=10)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**9), 10**9) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
OBJECT_ARGUMENTS = st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4).map(
    lambda value: json.dumps(value, ensure_ascii=False, separators=(",", ":"))
)
ARGUMENTS = OBJECT_ARGUMENTS | TEXT  # text that is not JSON travels verbatim
EFFORTS = st.sampled_from(["minimal", "low", "medium", "high"])


@st.composite
def reasoning_items(draw: st.DrawFn, counter: list[int]) -> dict[str, Any]:
    counter[0] += 1
    summary = [{"type": "summary_text", "text": text} for text in draw(st.lists(st.text(max_size=20), max_size=2))]
    item: dict[str, Any] = {"id": f"rs_{counter[0]}", "type": "reasoning", "summary": summary}
    if draw(st.booleans()):
        item["encrypted_content"] = draw(st.text(string.ascii_letters + string.digits + "+/=", min_size=1, max_size=40))
    return item


def _reasoning_text(blocks: list[dict[str, Any]]) -> str:
    return "\n\n".join(part["text"] for block in blocks for part in block["summary"] if part["text"])


def _meta(draw: st.DrawFn, counter: list[int]) -> dict[str, Any]:
    counter[0] += 1
    meta: dict[str, Any] = {"id": f"msg_{counter[0]}", "type": "message", "status": "completed"}
    meta["content"] = [{"type": "output_text", "annotations": [], "logprobs": []}]
    meta["role"] = "assistant"
    if draw(st.booleans()):
        meta["phase"] = draw(st.sampled_from(["commentary", "final_answer"]))
    return meta


# --- internal -> wire -> internal --------------------------------------------------------------------------------


@st.composite
def calls(draw: st.DrawFn, counter: list[int]) -> ToolCall:
    counter[0] += 1
    call: ToolCall = {
        "id": f"call_{draw(IDS)}{counter[0]}",
        "type": "function",
        "function": {"name": draw(NAMES), "arguments": draw(ARGUMENTS)},
    }
    if draw(st.booleans()):
        call["provider_data"] = {"format": NAME, "fields": {"id": f"fc_{counter[0]}"}}
    return call


@st.composite
def assistant(draw: st.DrawFn, counter: list[int], with_calls: bool) -> Message:
    message: Message = {"role": "assistant", "content": draw(st.none() | TEXT) if with_calls else draw(TEXT)}
    if with_calls:
        message["tool_calls"] = draw(st.lists(calls(counter), min_size=1, max_size=3))
    data: dict[str, Any] = {}
    blocks = draw(st.lists(reasoning_items(counter), max_size=2))
    if blocks:
        data["blocks"] = blocks
        if _reasoning_text(blocks):
            data["reasoning"] = _reasoning_text(blocks)
    if message["content"] is not None and draw(st.booleans()):
        data["fields"] = {"message": _meta(draw, counter)}
    if data:
        message["provider_data"] = {"format": NAME, **data}  # type: ignore[typeddict-item]
    return message


IMAGES = st.builds(
    lambda url, detail: {"type": "image_url", "image_url": {"url": url, **({"detail": detail} if detail else {})}},
    st.sampled_from(["https://example.com/cat.jpg", "data:image/png;base64,iVBORw0KGgo="]),
    st.sampled_from([None, "low", "high"]),
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
        role = draw(st.sampled_from(["user", "user", "developer", "system"]))
        messages.append({"role": role, "content": draw(TEXT | PARTS) if role == "user" else draw(TEXT)})  # type: ignore[typeddict-item]
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
    request: ChatRequest = {"model": "gpt-5", "messages": draw(conversations())}
    if draw(st.booleans()):
        schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
        request["tools"] = [
            {"type": "function", "function": {"name": n, "parameters": schema, "strict": draw(st.booleans())}}
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
        "parallel_tool_calls": st.booleans(),
        "temperature": st.floats(0, 2),
        "max_tokens": st.integers(1, 100_000),
        "stream": st.booleans(),
        "reasoning": st.builds(
            lambda effort: {"enabled": True, **({"effort": effort} if effort else {})}, st.none() | EFFORTS
        ),
        "provider_data": st.builds(lambda seed: {"format": NAME, "fields": {"metadata": {"seed": seed}}}, TEXT),
    }
    for key, strategy in optional.items():
        if draw(st.booleans()):
            request[key] = draw(strategy)  # type: ignore[literal-required]
    return request


def documented_loss(request: ChatRequest) -> ChatRequest:
    """What a request looks like after internal -> openai-responses -> internal, per the codec's docstrings."""
    expected = copy.deepcopy(request)
    for message in expected["messages"]:
        if message.pop("is_error", False):
            message["content"] = _stated_failure(message["content"])
    return expected


def _stated_failure(content: Any) -> Any:
    if isinstance(content, list):
        first = content[0]
        return [{**first, "text": _stated_failure(first["text"])}, *content[1:]]
    if not content:
        return "Error"
    return content if content.lower().startswith("error") else f"Error: {content}"


@SETTINGS
@given(requests())
def test_conversations_survive_internal_wire_internal(request: ChatRequest) -> None:
    before = copy.deepcopy(request)
    wire = encode_request(request).value
    assert request == before  # encoding never changes the conversation it reads
    assert import_request(json.loads(json.dumps(wire))).value == documented_loss(request)


# --- wire -> internal -> wire ------------------------------------------------------------------------------------

WIRE_TEXT = TEXT.map(lambda t: {"type": "input_text", "text": t})
HOSTED = st.builds(
    lambda query: {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": query},
    },
    TEXT,
)


@st.composite
def wire_message(draw: st.DrawFn, counter: list[int]) -> dict[str, Any]:
    text = draw(TEXT)
    if draw(st.booleans()):
        return {"role": "assistant", "content": text}
    item = _meta(draw, counter)
    item["content"] = [{**item["content"][0], "text": text}]
    return item


@st.composite
def wire_run(draw: st.DrawFn, counter: list[int]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """An assistant run and the function_call_output items answering its calls."""
    items: list[dict[str, Any]] = draw(st.lists(reasoning_items(counter) | HOSTED, max_size=2))
    items += draw(st.lists(wire_message(counter), max_size=1))
    made = []
    for _ in range(draw(st.integers(0, 3))):
        counter[0] += 1
        call: dict[str, Any] = {"type": "function_call"}
        if draw(st.booleans()):
            call["id"] = f"fc_{counter[0]}"
        call.update(call_id=f"call_{counter[0]}", name=draw(NAMES), arguments=draw(OBJECT_ARGUMENTS))
        if draw(st.booleans()):
            call["status"] = "completed"
        made.append(call)
    items += made
    if not items:
        items = [draw(wire_message(counter))]
    if draw(st.booleans()):
        items = draw(st.permutations(items))  # an order the internal message cannot hold: kept whole
    outputs = [{"type": "function_call_output", "call_id": call["call_id"], "output": draw(TEXT)} for call in made]
    return items, draw(st.permutations(outputs))


@st.composite
def wire_bodies(draw: st.DrawFn) -> dict[str, Any]:
    counter = [0]
    items: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 3))):
        role = draw(st.sampled_from(["user", "user", "system", "developer"]))
        item: dict[str, Any] = {"role": role, "content": draw(TEXT | st.lists(WIRE_TEXT, min_size=1, max_size=2))}
        items.append({"type": "message", **item} if draw(st.booleans()) else item)
        for _ in range(draw(st.integers(0, 2))):
            run, outputs = draw(wire_run(counter))
            items += run + outputs
            if not outputs:
                items.append({"role": "user", "content": draw(TEXT)})  # two runs in a row would be one run
    body: dict[str, Any] = {"model": "gpt-5"}
    if draw(st.booleans()):
        body["instructions"] = draw(TEXT)
    body["input"] = items
    if draw(st.booleans()):
        body["tools"] = [
            {"type": "function", "name": n, "parameters": {"type": "object"}, "strict": draw(st.booleans())}
            for n in draw(st.lists(NAMES, min_size=1, max_size=2))
        ] + draw(st.lists(st.just({"type": "web_search"}), max_size=1))
    choice = draw(
        st.none()
        | st.sampled_from(["auto", "none", "required", {"type": "function", "name": "f"}])
        | st.just({"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "f"}]})
    )
    if choice is not None:
        body["tool_choice"] = choice
    if draw(st.booleans()):
        body["reasoning"] = draw(
            st.sampled_from([{"effort": "high", "summary": "auto"}, {"summary": "auto"}, {"effort": "low"}])
        )
        body["store"] = False
        if draw(st.booleans()):
            body["include"] = ["reasoning.encrypted_content"]
    if draw(st.booleans()):
        body["metadata"] = {"user_id": draw(TEXT)}
    return body


@SETTINGS
@given(wire_bodies())
def test_responses_bodies_survive_wire_internal_wire(body: dict[str, Any]) -> None:
    internal = import_request(copy.deepcopy(body)).value
    expected = copy.deepcopy(body)
    if internal.get("reasoning", {}).get("enabled") and "include" not in body:
        expected["include"] = ["reasoning.encrypted_content"]  # documented: store false always asks for it
    assert encode_request(json.loads(json.dumps(internal))).value == expected


# --- streams -----------------------------------------------------------------------------------------------------


@st.composite
def results(draw: st.DrawFn) -> StreamResult:
    """Results as decoding a response gives them: items with ids, kept whole when out of the internal order."""
    counter = [0]
    output: list[dict[str, Any]] = draw(st.lists(reasoning_items(counter) | HOSTED, max_size=2))
    for _ in range(draw(st.integers(0, 2))):
        item = _meta(draw, counter)
        text = draw(st.text(max_size=40))
        item["content"] = [{**item["content"][0], "text": text}]
        output.append(item)
    for _ in range(draw(st.integers(0, 3))):
        counter[0] += 1
        arguments = draw(OBJECT_ARGUMENTS | st.just("") | st.text(min_size=1, max_size=20))
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{counter[0]}",
                "call_id": f"call_{counter[0]}",
                "name": draw(NAMES),
                "arguments": arguments,
                "status": "completed",
            }
        )
    if draw(st.booleans()):
        output = draw(st.permutations(output))
    usage = {
        "input_tokens": draw(st.integers(0, 10**6)),
        "input_tokens_details": {"cached_tokens": draw(st.integers(0, 10**6))},
        "output_tokens": draw(st.integers(0, 10**6)),
        "output_tokens_details": {"reasoning_tokens": draw(st.integers(0, 10**6))},
        "total_tokens": draw(st.integers(0, 10**6)),
    }
    if draw(st.booleans()):
        usage["input_tokens_details"]["cache_write_tokens"] = draw(st.integers(0, 10**6))
    status = draw(st.sampled_from(["completed", "completed", "incomplete"]))
    body: dict[str, Any] = {"id": "resp_p", "status": status, "output": output, "usage": usage}
    if status == "incomplete":
        body["incomplete_details"] = {"reason": draw(st.sampled_from(["max_output_tokens", "content_filter"]))}
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


@SETTINGS
@given(results(), st.integers(1, 20), st.booleans(), st.data())
def test_any_fragmentation_of_an_encoded_stream_decodes_to_the_same_result(
    result: StreamResult, fragment_size: int, crlf: bool, data: st.DataObject
) -> None:
    events = encode_stream(result, model="m", response_id="resp_p", fragment_size=fragment_size)
    raw = b"".join(event.encode() for event in events)
    if crlf:
        raw = raw.replace(b"\n", b"\r\n")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=12)))
    pieces = [raw[start:end] for start, end in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
    assert decode_bytes(pieces) == result


@SETTINGS
@given(results())
def test_whole_responses_decode_to_the_same_result(result: StreamResult) -> None:
    body = json.loads(json.dumps(encode_response(result, model="m", response_id="resp_p")))
    assert decode_response(body) == result
