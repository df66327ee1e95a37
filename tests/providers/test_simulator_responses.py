"""The simulated OpenAI Responses API (``POST /openai/v1/responses``), driven by the official ``openai`` SDK
in-process, and by raw requests where the exact bytes or the exact error body matter."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import openai
import pytest

from providers.sse import SSEEvent
from tests.providers.simulator_fixtures import (
    OPENAI_BASE,
    OPENAI_HEADERS,
    http_client,
    mounted,
    openai_client,
    sse_events,
)

WEATHER: dict[str, Any] = {
    "type": "function",
    "name": "get_weather",
    "description": "Current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "strict": False,
}
ADD: dict[str, Any] = {
    "type": "function",
    "name": "add",
    "description": "Add two numbers",
    "parameters": {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
        "additionalProperties": False,
    },
    "strict": True,
}
ASK = "add 2 and 3, weather in Oslo"
THINKING = {"reasoning": {"effort": "low"}, "store": False, "include": ["reasoning.encrypted_content"]}


async def post(body: dict[str, Any], headers: dict[str, str] | None = None, app: Any = None) -> httpx2.Response:
    async with http_client(app) as client:
        return await client.post(f"{OPENAI_BASE}/responses", json=body, headers={**OPENAI_HEADERS, **(headers or {})})


def payloads(response: httpx2.Response) -> list[dict[str, Any]]:
    return [json.loads(event.data) for event in sse_events(response)]


def fragments(events: list[dict[str, Any]], item_id: str) -> list[str]:
    return [
        e["delta"] for e in events if e["type"] == "response.function_call_arguments.delta" and e["item_id"] == item_id
    ]


def history_of(output: list[Any], results: dict[str, str]) -> list[dict[str, Any]]:
    """The output items as a client sends them back (the SDK's own objects, dumped), then an output per call."""
    items = [item.model_dump(exclude_none=True) for item in output]
    outputs = [
        {"type": "function_call_output", "call_id": item["call_id"], "output": results[item["name"]]}
        for item in items
        if item["type"] == "function_call"
    ]
    return [*items, *outputs]


# --- answers ---------------------------------------------------------------------------------------------------


async def test_text_reply_whole() -> None:
    response = await openai_client().responses.create(model="sim-1", input="Hello!")
    assert response.object == "response" and response.status == "completed" and response.model == "sim-1"
    assert response.id.startswith("resp_") and len(response.id) == 55
    assert "Hello!" in response.output_text
    [message] = response.output
    assert message.type == "message" and message.role == "assistant" and message.id.startswith("msg_")
    assert response.usage is not None and response.usage.total_tokens > 0


async def test_streamed_text_is_the_codecs_typed_events() -> None:
    raw = await post({"model": "sim-1", "input": "Hello!", "stream": True})
    events = sse_events(raw)
    names = [e.event for e in events]
    assert raw.status_code == 200 and raw.headers["content-type"].startswith("text/event-stream")
    assert names[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    assert names[-1] == "response.completed" and b"[DONE]" not in raw.content
    body = [json.loads(e.data) for e in events]
    assert [e["sequence_number"] for e in body] == list(range(len(body)))
    assert all(e["type"] == name for e, name in zip(body, names, strict=True))
    deltas = [e["delta"] for e in body if e["type"] == "response.output_text.delta"]
    [done] = [e["text"] for e in body if e["type"] == "response.output_text.done"]
    assert len(deltas) > 3 and all(len(d) <= 6 for d in deltas) and "".join(deltas) == done
    assert body[-1]["response"]["output"][0]["content"][0]["text"] == done


async def test_the_sdk_stream_helper_reads_parallel_calls() -> None:
    async with openai_client().responses.stream(model="sim-1", input=ASK, tools=[WEATHER, ADD]) as stream:
        kinds = [event.type async for event in stream]
        final = await stream.get_final_response()
    calls = [item for item in final.output if item.type == "function_call"]
    assert [c.name for c in calls] == ["add", "get_weather"]
    assert json.loads(calls[0].arguments) == {"a": 2, "b": 3} and json.loads(calls[1].arguments) == {"city": "Oslo"}
    assert all(c.call_id.startswith("call_") and len(c.call_id) == 29 for c in calls)
    assert all(c.id.startswith("fc_") and c.id != c.call_id for c in calls)
    assert kinds.count("response.function_call_arguments.delta") >= 4


async def test_parallel_call_arguments_stream_in_fragments_per_item() -> None:
    events = payloads(await post({"model": "sim-1", "input": ASK, "tools": [WEATHER, ADD], "stream": True}))
    added = [e for e in events if e["type"] == "response.output_item.added"]
    assert [(e["output_index"], e["item"]["type"], e["item"]["arguments"]) for e in added] == [
        (0, "function_call", ""),
        (1, "function_call", ""),
    ]
    for announced in added:
        item_id = announced["item"]["id"]
        pieces = fragments(events, item_id)
        [done] = [e for e in events if e["type"] == "response.function_call_arguments.done" and e["item_id"] == item_id]
        assert len(pieces) >= 2 and all(0 < len(p) <= 6 for p in pieces)
        assert "".join(pieces) == done["arguments"] and json.loads(done["arguments"])
    final = events[-1]["response"]
    assert final["status"] == "completed" and [i["status"] for i in final["output"]] == ["completed", "completed"]
    assert final["tools"] == [WEATHER, ADD] and final["parallel_tool_calls"] is True, "the request is echoed"


async def test_parallel_calls_disabled_and_a_named_choice() -> None:
    client = openai_client()
    one = await client.responses.create(model="sim-1", input=ASK, tools=[WEATHER, ADD], parallel_tool_calls=False)
    assert [i.name for i in one.output if i.type == "function_call"] == ["add"]
    named = await client.responses.create(
        model="sim-1", input=ASK, tools=[WEATHER, ADD], tool_choice={"type": "function", "name": "get_weather"}
    )
    assert [i.name for i in named.output if i.type == "function_call"] == ["get_weather"]


async def test_directives_script_the_answer() -> None:
    client = openai_client()
    scripted = await client.responses.create(
        model="sim-1", input='/text Checking.\n/call get_weather {"city": "Lima"}', tools=[WEATHER]
    )
    message, call = scripted.output
    assert message.type == "message" and scripted.output_text == "Checking."
    assert call.type == "function_call" and call.arguments == '{"city": "Lima"}'


async def test_max_output_tokens_makes_the_response_incomplete() -> None:
    response = await openai_client().responses.create(model="sim-1", input="Hello!", max_output_tokens=16)
    assert response.status == "incomplete" and response.incomplete_details is not None
    assert response.incomplete_details.reason == "max_output_tokens"
    assert 0 < len(response.output_text) <= 64


# --- the tool loop, with reasoning -------------------------------------------------------------------------------


async def test_second_turn_sends_outputs_and_the_encrypted_reasoning_back() -> None:
    client = openai_client()
    first = await client.responses.create(model="sim-1", input=ASK, tools=[WEATHER, ADD], **THINKING)  # type: ignore[arg-type]
    reasoning = first.output[0]
    assert reasoning.type == "reasoning" and reasoning.id.startswith("rs_") and len(reasoning.id) == 53
    assert reasoning.encrypted_content and reasoning.encrypted_content.startswith("gAAAAA")
    assert reasoning.summary and reasoning.summary[0].text
    assert first.usage is not None and first.usage.output_tokens_details.reasoning_tokens > 0
    history = [{"role": "user", "content": ASK}, *history_of(first.output, {"add": "5", "get_weather": "Sunny, 18 C"})]
    second = await client.responses.create(model="sim-1", input=history, tools=[WEATHER, ADD], **THINKING)  # type: ignore[arg-type]
    assert second.status == "completed"
    assert "“5”" in second.output_text and "Sunny, 18 C" in second.output_text
    assert not [item for item in second.output if item.type == "function_call"]


async def test_streamed_reasoning_keeps_its_encrypted_content_for_the_done_item() -> None:
    events = payloads(await post({"model": "sim-1", "input": ASK, "tools": [WEATHER, ADD], "stream": True, **THINKING}))
    added = next(e["item"] for e in events if e["type"] == "response.output_item.added")
    done = next(e["item"] for e in events if e["type"] == "response.output_item.done")
    assert added["type"] == done["type"] == "reasoning" and added["id"] == done["id"]
    assert "encrypted_content" not in added and done["encrypted_content"].startswith("gAAAAA")
    summary = [e["delta"] for e in events if e["type"] == "response.reasoning_summary_text.delta"]
    assert "".join(summary) == done["summary"][0]["text"]


async def test_reasoning_comes_back_by_id_when_it_is_stored() -> None:
    client = openai_client()
    ask = '/think\n/call get_weather {"city": "Oslo"}'
    first = await client.responses.create(model="sim-1", input=ask, tools=[WEATHER])
    reasoning = first.output[0]
    assert reasoning.type == "reasoning" and reasoning.encrypted_content is None, "not asked for: not included"
    history = [{"role": "user", "content": ask}, *history_of(first.output, {"get_weather": "Rain"})]
    second = await client.responses.create(model="sim-1", input=history, tools=[WEATHER])
    assert "Rain" in second.output_text
    unknown = [{**item, "id": "rs_" + "0" * 50} if item.get("type") == "reasoning" else item for item in history]
    with pytest.raises(openai.NotFoundError) as caught:
        await client.responses.create(model="sim-1", input=unknown, tools=[WEATHER])
    assert caught.value.body == {
        "message": f"Item with id 'rs_{'0' * 50}' not found.",
        "type": "invalid_request_error",
        "param": "input",
        "code": None,
    }


async def test_a_changed_encrypted_content_is_refused() -> None:
    client = openai_client()
    first = await client.responses.create(model="sim-1", input=ASK, tools=[WEATHER, ADD], **THINKING)  # type: ignore[arg-type]
    history = [{"role": "user", "content": ASK}, *history_of(first.output, {"add": "5", "get_weather": "Sun"})]
    token = history[1]["encrypted_content"]
    for changed in (token[:-8] + ("A" if token[-8] != "A" else "B") + token[-7:], token + "AAAA", token.rstrip("=")):
        history[1]["encrypted_content"] = changed
        with pytest.raises(openai.BadRequestError) as caught:
            await client.responses.create(model="sim-1", input=history, tools=[WEATHER, ADD], **THINKING)  # type: ignore[arg-type]
        assert caught.value.code == "invalid_encrypted_content" and caught.value.param is None
        assert (
            caught.value.body["message"]
            == f"The encrypted content {changed[:4]}...{changed[-4:]} could not be verified."
        )


async def test_reasoning_without_encrypted_content_is_not_found_when_nothing_is_stored() -> None:
    client = openai_client()
    first = await client.responses.create(model="sim-1", input=ASK, tools=[WEATHER, ADD], **THINKING)  # type: ignore[arg-type]
    history = [{"role": "user", "content": ASK}, *history_of(first.output, {"add": "5", "get_weather": "Sun"})]
    del history[1]["encrypted_content"]
    with pytest.raises(openai.NotFoundError) as caught:
        await client.responses.create(model="sim-1", input=history, tools=[WEATHER, ADD], **THINKING)  # type: ignore[arg-type]
    assert "Items are not persisted when `store` is set to false" in caught.value.body["message"]


async def test_a_reasoning_item_needs_the_item_that_followed_it() -> None:
    client = openai_client()
    first = await client.responses.create(model="sim-1", input=ASK, tools=[WEATHER, ADD], **THINKING)  # type: ignore[arg-type]
    reasoning = first.output[0].model_dump(exclude_none=True)
    alone = [{"role": "user", "content": ASK}, reasoning, {"role": "user", "content": "never mind"}]
    with pytest.raises(openai.BadRequestError) as caught:
        await client.responses.create(model="sim-1", input=alone, **THINKING)  # type: ignore[arg-type]
    assert caught.value.body["message"] == (
        f"Item '{reasoning['id']}' of type 'reasoning' was provided without its required following item."
    )
    assert caught.value.param == "input"


# --- strictness --------------------------------------------------------------------------------------------------

CALL = {"type": "function_call", "call_id": "call_A", "name": "get_weather", "arguments": '{"city":"Oslo"}'}
ORPHAN = {"type": "function_call_output", "call_id": "call_X", "output": "5"}
REJECTED: list[tuple[str, dict[str, Any], int, str, str | None, str | None]] = [
    ("no model", {"input": "hi"}, 400, "Missing required parameter: 'model'.", "model", "missing_required_parameter"),
    (
        "input is an object",
        {"model": "sim-1", "input": {"role": "user", "content": "hi"}},
        400,
        "Invalid type for 'input': expected one of a string or array of input items, but got an object instead.",
        "input",
        "invalid_type",
    ),
    (
        "an item that is not an object",
        {"model": "sim-1", "input": ["hi"]},
        400,
        "Invalid type for 'input[0]': expected an object, but got a string instead.",
        "input[0]",
        "invalid_type",
    ),
    (
        "a Chat tool message",
        {"model": "sim-1", "input": [{"role": "tool", "content": "5"}]},
        400,
        "Invalid value: 'tool'. Supported values are: 'user', 'assistant', 'system', and 'developer'.",
        "input[0].role",
        "invalid_value",
    ),
    (
        "an output for no call",
        {"model": "sim-1", "input": [{"role": "user", "content": "hi"}, ORPHAN]},
        400,
        "No tool call found for function call output with call_id call_X.",
        "input",
        None,
    ),
    (
        "a call without its output",
        {"model": "sim-1", "input": [{"role": "user", "content": "hi"}, CALL], "tools": [WEATHER]},
        400,
        "No tool output found for function call call_A.",
        "input",
        None,
    ),
    (
        "a call without call_id",
        {"model": "sim-1", "input": [{k: v for k, v in CALL.items() if k != "call_id"}]},
        400,
        "Missing required parameter: 'input[0].call_id'.",
        "input[0].call_id",
        "missing_required_parameter",
    ),
    (
        "a tool in the Chat shape",
        {"model": "sim-1", "input": "hi", "tools": [{"type": "function", "function": {"name": "get_weather"}}]},
        400,
        "Missing required parameter: 'tools[0].name'.",
        "tools[0].name",
        "missing_required_parameter",
    ),
    (
        "a strict tool with an optional property",
        {"model": "sim-1", "input": "hi", "tools": [{**WEATHER, "strict": None}]},
        400,
        "Invalid schema for function 'get_weather': In context=(), 'additionalProperties' is required to be "
        "supplied and to be false.",
        "tools[0].parameters",
        "invalid_function_parameters",
    ),
    (
        "a strict tool with a property not required",
        {
            "model": "sim-1",
            "input": "hi",
            "tools": [{**ADD, "parameters": {**ADD["parameters"], "required": ["a"]}}],
        },
        400,
        "Invalid schema for function 'add': In context=(), 'required' is required to be supplied and to be an array "
        "including every key in properties. Missing 'b'.",
        "tools[0].parameters",
        "invalid_function_parameters",
    ),
    (
        "a choice of an undeclared function",
        {"model": "sim-1", "input": "hi", "tools": [WEATHER], "tool_choice": {"type": "function", "name": "add"}},
        400,
        "Tool choice 'function' not found in 'tools' parameter.",
        "tool_choice",
        None,
    ),
    (
        "too few output tokens",
        {"model": "sim-1", "input": "hi", "max_output_tokens": 5},
        400,
        "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 5 instead.",
        "max_output_tokens",
        "integer_below_min_value",
    ),
    (
        "a previous response",
        {"model": "sim-1", "input": "hi", "previous_response_id": "resp_abc"},
        400,
        "Previous response with id 'resp_abc' not found.",
        "previous_response_id",
        "previous_response_not_found",
    ),
]


@pytest.mark.parametrize(
    ("body", "status", "message", "param", "code"), [case[1:] for case in REJECTED], ids=[case[0] for case in REJECTED]
)
async def test_what_the_real_api_refuses(
    body: dict[str, Any], status: int, message: str, param: str | None, code: str | None
) -> None:
    raw = await post(body)
    assert raw.status_code == status and raw.headers["x-request-id"].startswith("req_")
    assert raw.json() == {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}


async def test_a_paired_history_in_any_order_is_accepted() -> None:
    second = {**CALL, "call_id": "call_B", "arguments": '{"city":"Rome"}'}
    outputs = [{"type": "function_call_output", "call_id": c, "output": "Sun"} for c in ("call_B", "call_A")]
    body = {"model": "sim-1", "input": [{"role": "user", "content": "hi"}, CALL, second, *outputs], "tools": [WEATHER]}
    raw = await post(body)
    assert raw.status_code == 200 and raw.json()["status"] == "completed"


async def test_a_missing_key_is_openais_401() -> None:
    raw = await post({"model": "sim-1", "input": "hi"}, headers={"authorization": ""})
    assert raw.status_code == 401 and "You didn't provide an API key" in raw.json()["error"]["message"]


# --- faults ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
async def test_sim_429_is_the_sdks_rate_limit_error(stream: bool) -> None:
    with pytest.raises(openai.RateLimitError) as caught:
        await openai_client().responses.create(model="sim-429", input="hi", stream=stream)
    assert caught.value.status_code == 429 and caught.value.code == "rate_limit_exceeded"
    assert caught.value.response.headers["retry-after"] == "1"


@pytest.mark.parametrize("stream", [False, True])
async def test_sim_cut_is_a_connection_error(stream: bool) -> None:
    with pytest.raises(openai.APIConnectionError):
        response = await openai_client().responses.create(model="sim-cut", input="hi", tools=[WEATHER], stream=stream)
        if stream:
            [event async for event in response]  # type: ignore[union-attr]


async def test_sim_cut_stops_in_the_middle_of_the_arguments() -> None:
    transport = httpx2.ASGITransport(app=mounted(), raise_app_exceptions=False)  # keep the bytes that did arrive
    async with httpx2.AsyncClient(transport=transport) as client:
        body = {"model": "sim-cut", "input": "weather in Paris", "tools": [WEATHER], "stream": True}
        cut = await client.post(f"{OPENAI_BASE}/responses", json=body, headers=OPENAI_HEADERS)
    whole = [json.loads(e.data) for e in _complete_events(cut.content)]
    assert whole and not any(e["type"].startswith("response.function_call_arguments.done") for e in whole)
    assert b"response.completed" not in cut.content
    arguments = "".join(e["delta"] for e in whole if e["type"] == "response.function_call_arguments.delta")
    assert arguments.startswith('{"city') and not _parses(arguments)


async def test_sim_error_event_is_an_error_then_a_failed_response() -> None:
    raw = await post({"model": "sim-error-event", "input": "Hello!", "stream": True})
    events = payloads(raw)
    assert raw.status_code == 200 and events[0]["type"] == "response.created"
    assert [e["type"] for e in events[-2:]] == ["error", "response.failed"]
    assert any(e["type"] == "response.output_text.delta" for e in events), "it fails while content flows"
    assert events[-2]["code"] == "overloaded" and events[-1]["response"]["status"] == "failed"
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    # The SDK raises only for an error nested under "error"; the flat event OpenAI sends is yielded as an event.
    stream = await openai_client().responses.create(model="sim-error-event", input="hi", stream=True)
    *_, error, failed = [event async for event in stream]
    assert error.type == "error" and error.code == "overloaded"
    assert failed.type == "response.failed" and failed.response.error is not None
    assert failed.response.error.code == "server_error"
    with pytest.raises(openai.InternalServerError) as whole:
        await openai_client().responses.create(model="sim-error-event", input="hi")
    assert whole.value.status_code == 503


async def test_sim_empty_args_sends_an_empty_string() -> None:
    body = {"model": "sim-empty-args", "input": "hi", "tools": [WEATHER]}
    whole = (await post(body)).json()
    assert [i["arguments"] for i in whole["output"] if i["type"] == "function_call"] == [""]
    events = payloads(await post({**body, "stream": True}))
    assert not [e for e in events if e["type"] == "response.function_call_arguments.delta"]
    [done] = [e for e in events if e["type"] == "response.function_call_arguments.done"]
    assert done["arguments"] == "" and events[-1]["response"]["output"][0]["arguments"] == ""
    assert [e["sequence_number"] for e in events] == list(range(len(events)))


async def test_sim_badjson_arguments_do_not_parse() -> None:
    response = await openai_client().responses.create(model="sim-badjson", input="hi", tools=[WEATHER])
    [call] = response.output
    assert call.type == "function_call" and not _parses(call.arguments)


async def test_the_same_request_gets_the_same_bytes() -> None:
    body = {"model": "sim-1", "input": ASK, "tools": [WEATHER, ADD], "stream": True, **THINKING}
    first, second = await post(body), await post(body)
    assert first.content == second.content
    assert (await post({**body, "stream": False})).content == (await post({**body, "stream": False})).content


async def test_models_are_listed_at_the_shared_openai_path() -> None:
    names = [model.id async for model in openai_client().models.list()]
    assert {"sim-1", "sim-429", "sim-cut"} <= set(names)


def _complete_events(body: bytes) -> list[SSEEvent]:
    """The events that arrived whole (the last, cut one is left out)."""
    whole = body[: body.rfind(b"\n\n") + 2]
    return sse_events(httpx2.Response(200, content=whole))


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
