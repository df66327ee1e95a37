"""The OpenTelemetry export: OTLP JSON structure, GenAI semantic-convention names and attributes, times, stable ids."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest

from playground.conversations.models import Message
from playground.conversations.otel import conversation_trace
from tests.conversations.builders import T0, endpoint_named, saved_conversation

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.conversations.models import Conversation
    from playground.teams.models import Team

pytestmark = pytest.mark.django_db

HEX_TRACE, HEX_SPAN = re.compile(r"^[0-9a-f]{32}$"), re.compile(r"^[0-9a-f]{16}$")


def spans_of(document: dict[str, Any]) -> list[dict[str, Any]]:
    [resource] = document["resourceSpans"]
    [scope] = resource["scopeSpans"]
    assert scope["scope"]["name"] == "crosswire.conversations"
    assert {"key": "service.name", "value": {"stringValue": "crosswire"}} in resource["resource"]["attributes"]
    return scope["spans"]


def attrs(span: dict[str, Any]) -> dict[str, Any]:
    """Attribute values decoded from OTLP's AnyValue: ints come as strings, arrays as {"values": [...]}."""
    decoded: dict[str, Any] = {}
    for item in span["attributes"]:
        ((kind, value),) = item["value"].items()
        if kind == "intValue":
            value = int(value)
        elif kind == "arrayValue":
            value = [next(iter(v.values())) for v in value["values"]]
        decoded[item["key"]] = value
    return decoded


def nanos(seconds: float) -> int:
    return int((T0 + timedelta(seconds=seconds)).timestamp() * 1_000_000) * 1000


def test_one_root_span_one_chat_span_per_round_trip_one_tool_span_per_call(saved: Conversation) -> None:
    spans = spans_of(conversation_trace(saved))
    root, *children = spans
    assert root["name"] == "invoke_agent Crosswire" and "parentSpanId" not in root and root["kind"] == 1
    assert [s["name"] for s in children] == ["chat sim-1", "chat sim-1", "chat sim-1", "execute_tool get_weather"]
    assert all(s["parentSpanId"] == root["spanId"] for s in children)
    assert len({s["traceId"] for s in spans}) == 1 and HEX_TRACE.match(root["traceId"])
    assert all(HEX_SPAN.match(s["spanId"]) for s in spans) and len({s["spanId"] for s in spans}) == len(spans)
    root_attrs = attrs(root)
    assert root_attrs["gen_ai.operation.name"] == "invoke_agent"
    assert root_attrs["gen_ai.conversation.id"] == str(saved.pk)
    assert (root_attrs["gen_ai.usage.input_tokens"], root_attrs["gen_ai.usage.output_tokens"]) == (42, 16)
    assert int(root["startTimeUnixNano"]) == nanos(0)  # the first message
    assert int(root["endTimeUnixNano"]) == nanos(10.1) + 42_000_000  # the end of the last round trip


def test_chat_spans_carry_the_genai_attributes_and_the_saved_timings(saved: Conversation) -> None:
    first, second, failed = spans_of(conversation_trace(saved))[1:4]
    assert first["kind"] == 3  # CLIENT: a call to the provider
    values = attrs(first)
    assert values["gen_ai.operation.name"] == "chat"
    assert values["gen_ai.provider.name"] == values["gen_ai.system"] == "openai"
    assert values["gen_ai.request.model"] == "sim-1"
    assert (values["gen_ai.usage.input_tokens"], values["gen_ai.usage.output_tokens"]) == (12, 7)
    assert values["gen_ai.response.finish_reasons"] == ["tool_calls"]
    assert values["gen_ai.request.max_tokens"] == 256 and values["gen_ai.request.temperature"] == 0.2
    assert (values["server.address"], values["server.port"]) == ("127.0.0.1", 8000)
    assert values["http.response.status_code"] == 200 and values["crosswire.ttfb_ms"] == 12.5
    assert int(first["startTimeUnixNano"]) == nanos(1)
    assert int(first["endTimeUnixNano"]) - int(first["startTimeUnixNano"]) == 40_000_000  # total_ms
    assert attrs(second)["gen_ai.response.finish_reasons"] == ["stop"] and "status" not in second
    assert failed["status"] == {"code": 2, "message": "Rate limited."}
    assert attrs(failed)["error.type"] == "rate_limit" and "gen_ai.usage.input_tokens" not in attrs(failed)


def test_tool_spans_name_the_call_and_run_until_the_result_was_saved(saved: Conversation) -> None:
    tool = spans_of(conversation_trace(saved))[-1]
    assert tool["kind"] == 1  # INTERNAL: Crosswire answers tools itself
    values = attrs(tool)
    assert values["gen_ai.operation.name"] == "execute_tool"
    assert (values["gen_ai.tool.name"], values["gen_ai.tool.call.id"]) == ("get_weather", "call_1")
    assert values["gen_ai.tool.type"] == "function"
    assert values["gen_ai.tool.description"] == "Current weather for a city."
    assert json.loads(values["gen_ai.tool.call.arguments"]) == {"city": "Oslo"}
    assert json.loads(values["gen_ai.tool.call.result"]) == {"temp": -3, "sky": "snow"}
    assert values["crosswire.tool.source"] == "manual"
    assert int(tool["startTimeUnixNano"]) == nanos(1) + 40_000_000  # when its round trip ended
    assert int(tool["endTimeUnixNano"]) == nanos(3)  # when its result was saved
    assert "status" not in tool


def test_a_failed_tool_is_an_error_span(saved: Conversation) -> None:
    Message.objects.filter(conversation=saved, position=2).update(
        data={"role": "tool", "tool_call_id": "call_1", "content": "no such city", "is_error": True}
    )
    tool = spans_of(conversation_trace(saved))[-1]
    assert tool["status"]["code"] == 2 and attrs(tool)["error.type"] == "tool_error"


def test_ids_are_stable_across_exports_and_differ_between_conversations(
    saved: Conversation, team: Team, alice: User
) -> None:
    assert conversation_trace(saved) == conversation_trace(saved)
    other = saved_conversation(team, alice)
    ids = {s["spanId"] for s in spans_of(conversation_trace(saved))}
    other_ids = {s["spanId"] for s in spans_of(conversation_trace(other))}
    assert not ids & other_ids
    assert spans_of(conversation_trace(other))[0]["traceId"] != spans_of(conversation_trace(saved))[0]["traceId"]


def test_the_provider_name_follows_the_wire_format(team: Team, alice: User) -> None:
    conversation = saved_conversation(team, alice, endpoint=endpoint_named("Simulated Anthropic"))
    chat = spans_of(conversation_trace(conversation))[1]
    assert attrs(chat)["gen_ai.provider.name"] == "anthropic"
    assert attrs(chat)["server.address"] == "api.anthropic.com" and attrs(chat)["server.port"] == 443


def test_the_otel_download(client: Client, saved: Conversation, alice: User) -> None:
    client.force_login(alice)
    response = client.get(f"/conversations/{saved.pk}/export/otel/")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == f'attachment; filename="weather-in-oslo-{saved.pk}.otlp.json"'
    assert json.loads(response.content) == conversation_trace(saved)


def test_an_empty_conversation_is_one_root_span(team: Team, alice: User) -> None:
    from playground.conversations.models import Conversation

    draft = Conversation.objects.create(team=team, created_by=alice)
    [root] = spans_of(conversation_trace(draft))
    assert root["startTimeUnixNano"] == root["endTimeUnixNano"]
