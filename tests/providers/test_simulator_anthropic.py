"""The simulated Anthropic Messages API, driven by the official ``anthropic`` SDK in-process."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import pytest

from providers import anthropic as codec
from tests.providers.simulator_fixtures import (
    A_ADD,
    A_WEATHER,
    anthropic_body,
    anthropic_client,
    http_client,
    post_anthropic,
    sse_events,
    user,
)

THINKING = {"type": "enabled", "budget_tokens": 1024}


async def test_text_reply_without_tools() -> None:
    message = await anthropic_client().messages.create(model="sim-1", max_tokens=512, messages=[user("Hello!")])
    assert message.type == "message" and message.stop_reason == "end_turn"
    assert message.content[0].type == "text" and "Hello!" in message.content[0].text
    assert message.id.startswith("msg_01") and message.usage.input_tokens > 0


async def test_streamed_call_through_the_stream_helper() -> None:
    async with anthropic_client().messages.stream(
        model="sim-1", max_tokens=512, messages=[user("weather in Lisbon?")], tools=[A_WEATHER]
    ) as stream:
        final = await stream.get_final_message()
    block = final.content[0]
    assert block.type == "tool_use" and block.name == "get_weather" and block.input["city"] == "Lisbon"
    assert block.id.startswith("toolu_01") and final.stop_reason == "tool_use"


async def test_raw_stream_events_are_named() -> None:
    raw = await post_anthropic(anthropic_body("add 2 and 3", tools=[A_ADD], stream=True))
    names = [e.event for e in sse_events(raw)]
    assert names[0] == "message_start" and names[-1] == "message_stop" and "ping" in names
    deltas = [json.loads(e.data)["delta"] for e in sse_events(raw) if e.event == "content_block_delta"]
    assert json.loads("".join(d["partial_json"] for d in deltas)) == {"a": 2, "b": 3}


async def test_parallel_calls_and_disabling_them() -> None:
    client = anthropic_client()
    request: dict[str, Any] = {"model": "sim-1", "max_tokens": 512, "tools": [A_WEATHER, A_ADD]}
    both = await client.messages.create(**request, messages=[user("add 2 and 3, weather in Oslo")])
    assert [b.name for b in both.content if b.type == "tool_use"] == ["add", "get_weather"]
    one = await client.messages.create(
        **request,
        messages=[user("add 2 and 3, weather in Oslo")],
        tool_choice={"type": "auto", "disable_parallel_tool_use": True},
    )
    assert [b.name for b in one.content if b.type == "tool_use"] == ["add"]


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ({"type": "none"}, []),
        ({"type": "auto"}, []),
        ({"type": "any"}, ["get_weather"]),
        ({"type": "tool", "name": "add"}, ["add"]),
    ],
)
async def test_tool_choice(choice: dict[str, Any], expected: list[str]) -> None:
    message = await anthropic_client().messages.create(
        model="sim-1", max_tokens=512, messages=[user("good morning")], tools=[A_WEATHER, A_ADD], tool_choice=choice
    )
    assert [b.name for b in message.content if b.type == "tool_use"] == expected


async def test_full_tool_loop_with_text_directive() -> None:
    client = anthropic_client()
    messages: list[Any] = [user('/text Let me check.\n/call get_weather {"city":"Nairobi"}')]
    first = await client.messages.create(model="sim-1", max_tokens=512, messages=messages, tools=[A_WEATHER])
    assert [b.type for b in first.content] == ["text", "tool_use"] and first.content[0].text == "Let me check."
    call = first.content[1]
    assert call.input == {"city": "Nairobi"}
    messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]})
    messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "27C"}]})
    second = await client.messages.create(model="sim-1", max_tokens=512, messages=messages, tools=[A_WEATHER])
    assert second.stop_reason == "end_turn" and "“27C”" in second.content[0].text


async def test_thinking_round_trip() -> None:
    client = anthropic_client()
    messages: list[Any] = [user("weather in Paris?")]
    first = await client.messages.create(
        model="sim-1", max_tokens=2048, thinking=THINKING, messages=messages, tools=[A_WEATHER]
    )
    thinking, call = first.content[0], first.content[1]
    assert thinking.type == "thinking" and thinking.signature and "get_weather" in thinking.thinking
    messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]})
    messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "18C"}]})
    second = await client.messages.create(
        model="sim-1", max_tokens=2048, thinking=THINKING, messages=messages, tools=[A_WEATHER]
    )
    assert second.content[0].type == "thinking" and "“18C”" in second.content[-1].text


async def test_streamed_thinking_ends_with_its_signature() -> None:
    raw = await post_anthropic(anthropic_body("hi", max_tokens=2048, thinking=THINKING, stream=True))
    deltas = [json.loads(e.data)["delta"] for e in sse_events(raw) if e.event == "content_block_delta"]
    kinds = [d["type"] for d in deltas]
    assert kinds[0] == "thinking_delta" and "signature_delta" in kinds
    assert kinds.index("signature_delta") == max(i for i, k in enumerate(kinds) if k == "thinking_delta") + 1


async def test_an_altered_thinking_block_is_rejected() -> None:
    client = anthropic_client()
    messages: list[Any] = [user("weather in Paris?")]
    first = await client.messages.create(
        model="sim-1", max_tokens=2048, thinking=THINKING, messages=messages, tools=[A_WEATHER]
    )
    blocks = [b.model_dump(exclude_none=True) for b in first.content]
    blocks[0]["thinking"] += " (edited)"
    messages.append({"role": "assistant", "content": blocks})
    messages.append(
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": blocks[1]["id"], "content": "x"}]}
    )
    with pytest.raises(anthropic.BadRequestError) as caught:
        await client.messages.create(model="sim-1", max_tokens=2048, thinking=THINKING, messages=messages)
    assert caught.value.body["error"]["message"] == "messages.1.content.0: Invalid `signature` in `thinking` block"


async def test_models_list() -> None:
    page = await anthropic_client().models.list()
    assert [m.id for m in page.data][:2] == ["sim-1", "sim-429"]


async def test_missing_key_and_version_get_the_real_errors() -> None:
    async with http_client() as client:
        no_key = await client.post("http://sim/sim/anthropic/v1/messages", json=anthropic_body("hi"))
        no_version = await client.post(
            "http://sim/sim/anthropic/v1/messages", json=anthropic_body("hi"), headers={"x-api-key": "k"}
        )
    assert no_key.status_code == 401 and no_key.json()["error"] == {
        "type": "authentication_error",
        "message": "x-api-key header is required",
    }
    assert no_key.json()["request_id"].startswith("req_")
    assert no_version.status_code == 400 and "anthropic-version" in no_version.json()["error"]["message"]


async def test_thinking_survives_crosswire_codec_round_trip() -> None:
    request: Any = {
        "model": "sim-1",
        "max_tokens": 2048,
        "reasoning": {"enabled": True, "budget_tokens": 1024},
        "messages": [user("weather in Paris?")],
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": A_WEATHER["input_schema"]}}],
    }
    first = await post_anthropic(codec.encode_request(request).value)
    result = codec.decode_response(first.json())
    call = (result.message.get("tool_calls") or [])[0]
    request["messages"] += [result.message, {"role": "tool", "tool_call_id": call["id"], "content": "18C"}]
    second = await post_anthropic(codec.encode_request(request).value)
    assert second.status_code == 200, second.text
    assert "“18C”" in second.json()["content"][-1]["text"]
