"""Internal request -> Gemini request body: systemInstruction, contents, function responses, signatures, tools,
toolConfig, generationConfig, notes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from providers.formats import get_format
from providers.gemini import encode_request, encode_tools, new_stream_decoder
from providers.sse import SSEParser
from providers.streaming import MessageAccumulator
from providers.translation import TranslationError
from providers.types import ChatRequest, Message, ToolCall

FIXTURES = Path(__file__).parent / "fixtures" / "gemini"
NAME = "gemini"
USER: Message = {"role": "user", "content": "Add and multiply 2 and 3"}


def _request(*messages: Message, **extra: Any) -> ChatRequest:
    return {"messages": list(messages), **extra}  # type: ignore[typeddict-item]


def _call(call_id: str, name: str = "add", arguments: Any = '{"a":2,"b":3}', **fields: Any) -> ToolCall:
    call: ToolCall = {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    if fields:
        call["provider_data"] = {"format": NAME, "fields": fields}
    return call


def _turn(*calls: ToolCall, content: str | None = None, **data: Any) -> Message:
    message: Message = {"role": "assistant", "content": content, "tool_calls": list(calls)}
    if data:
        message["provider_data"] = data  # type: ignore[typeddict-item]
    return message


def _tool(call_id: str, content: Any = "5", **extra: Any) -> Message:
    return {"role": "tool", "tool_call_id": call_id, "content": content, **extra}  # type: ignore[typeddict-item]


def _decode_stream(name: str) -> Message:
    parser, decoder, acc = SSEParser(), new_stream_decoder(), MessageAccumulator(format=NAME)
    for event in [*parser.feed((FIXTURES / name).read_bytes()), *parser.close()]:
        acc.extend(decoder.feed(event))
    acc.extend(decoder.close())
    return acc.result().message


# --- system and contents -----------------------------------------------------------------------------------------


def test_system_messages_become_system_instruction_in_order() -> None:
    messages: list[Message] = [
        {"role": "system", "content": "Be brief."},
        {"role": "developer", "content": "Use metric units."},
        USER,
        {"role": "system", "content": "Answer in French."},
    ]
    translation = encode_request(_request(*messages))
    body = translation.value
    assert body["systemInstruction"] == {
        "parts": [{"text": "Be brief."}, {"text": "Use metric units."}, {"text": "Answer in French."}]
    }
    assert body["contents"] == [{"role": "user", "parts": [{"text": "Add and multiply 2 and 3"}]}]
    assert "message 1: developer message sent as systemInstruction (Gemini has no developer role)" in translation.notes
    assert any(note.startswith("message 3 (system): moved to `systemInstruction`") for note in translation.notes)


def test_the_model_is_in_the_body_for_the_client_and_stream_is_not_a_body_field() -> None:
    translation = encode_request(_request(USER, model="gemini-2.5-flash", stream=True))
    assert translation.value["model"] == "gemini-2.5-flash" and "stream" not in translation.value
    assert "stream: Gemini streams through :streamGenerateContent?alt=sse (there is no body field)" in translation.notes


def test_content_parts_become_gemini_parts() -> None:
    content = [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.webp", "detail": "low"}},
        {"type": "text", "text": ""},
        {"type": "input_audio", "input_audio": {"data": "UklGR", "format": "wav"}},
    ]
    translation = encode_request(_request({"role": "user", "content": content}))
    assert translation.value["contents"][0]["parts"] == [
        {"text": "What is this?"},
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
        {"fileData": {"mimeType": "image/webp", "fileUri": "https://example.com/cat.webp"}},
    ]
    assert translation.notes == [
        "message 0 (user): image detail `low` dropped (Gemini has no detail setting)",
        "message 0 (user): empty text dropped (Gemini rejects an empty text part)",
        "message 0 (user): input_audio content part dropped (no Gemini equivalent)",
    ]


def test_empty_messages_are_dropped() -> None:
    translation = encode_request(_request(USER, {"role": "assistant", "content": ""}, {"role": "user", "content": ""}))
    assert translation.value["contents"] == [{"role": "user", "parts": [{"text": "Add and multiply 2 and 3"}]}]
    assert translation.notes == [
        "message 1 (assistant): empty assistant message dropped (no text, no tool calls)",
        "message 2 (user): empty text dropped (Gemini rejects an empty text part)",
        "message 2 (user): empty user message dropped (Gemini rejects a content without parts)",
    ]


def test_name_on_a_message_is_dropped_with_a_note() -> None:
    translation = encode_request(_request({"role": "user", "content": "hi", "name": "ada"}))
    assert translation.notes == ["message 0 (user): name `ada` dropped (no Gemini field)"]


# --- calls and function responses --------------------------------------------------------------------------------


def test_a_tool_loop_without_ids_names_each_response_and_sends_no_id() -> None:
    messages = [USER, _turn(_call("call_1"), _call("call_2", "multiply")), _tool("call_1"), _tool("call_2", "6")]
    translation = encode_request(_request(*messages))
    assert translation.value["contents"][1:] == [
        {
            "role": "model",
            "parts": [
                {"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}},
                {"functionCall": {"name": "multiply", "args": {"a": 2, "b": 3}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "add", "response": {"result": "5"}}},
                {"functionResponse": {"name": "multiply", "response": {"result": "6"}}},
            ],
        },
    ]
    assert "2 tool results sent as one user content of function responses" in translation.notes
    assert (
        "message 1 (assistant): call ids `call_1`, `call_2` not sent (Gemini takes only ids it made); the responses "
        "name their function and follow the calls' order" in translation.notes
    )


def test_the_id_and_the_signature_the_model_gave_go_back_on_the_same_part() -> None:
    signed = _call("8hd01vsf", thoughtSignature="EsINCr8N+/==", functionCall={"id": "8hd01vsf"})
    plain = _call("k0srpqrc", "multiply", functionCall={"id": "k0srpqrc"})
    body = encode_request(_request(USER, _turn(signed, plain), _tool("k0srpqrc", "6"), _tool("8hd01vsf"))).value
    assert body["contents"][1]["parts"] == [
        {
            "functionCall": {"name": "add", "args": {"a": 2, "b": 3}, "id": "8hd01vsf"},
            "thoughtSignature": "EsINCr8N+/==",
        },
        {"functionCall": {"name": "multiply", "args": {"a": 2, "b": 3}, "id": "k0srpqrc"}},
    ]
    assert body["contents"][2]["parts"] == [
        {"functionResponse": {"name": "multiply", "id": "k0srpqrc", "response": {"result": "6"}}},
        {"functionResponse": {"name": "add", "id": "8hd01vsf", "response": {"result": "5"}}},
    ]


def test_a_decoded_stream_goes_back_with_its_signature_and_thoughts_byte_exact() -> None:
    turn = _decode_stream("stream_gemini3_calls.sse")
    calls = turn["tool_calls"]
    request = _request(USER, turn, _tool(calls[0]["id"]), _tool(calls[1]["id"], "6"))
    translation = encode_request(request)
    assert translation.value["contents"][1]["parts"] == [
        {"text": "**Planning**\n\nTwo independent operations.", "thought": True},
        {
            "functionCall": {"name": "add", "args": {"a": 2, "b": 3}, "id": "8hd01vsf"},
            "thoughtSignature": "EsINCr8NAdHtim9+kP1x/qvG0sig==",
        },
        {"functionCall": {"name": "multiply", "args": {"a": 2, "b": 3}, "id": "k0srpqrc"}},
    ]
    assert not any("thoughtSignature" in note for note in translation.notes)


def test_gemini_25_calls_without_ids_go_back_without_ids_and_keep_the_first_signature() -> None:
    turn = _decode_stream("stream_gemini25_parallel.sse")
    calls = turn["tool_calls"]
    body = encode_request(_request(USER, turn, _tool(calls[0]["id"]), _tool(calls[1]["id"], "6"))).value
    assert body["contents"][1]["parts"] == [
        {"text": "I will compute both at once."},
        {"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}, "thoughtSignature": "CiQB0e2Kb7xq9m+/sig25=="},
        {"functionCall": {"name": "multiply", "args": {"a": 2, "b": 3}}},
    ]
    assert [part["functionResponse"]["name"] for part in body["contents"][2]["parts"]] == ["add", "multiply"]


def test_a_turn_kept_whole_is_resent_exactly_until_it_is_edited() -> None:
    turn = _decode_stream("stream_text_signature.sse")
    translation = encode_request(_request(USER, turn, {"role": "user", "content": "thanks"}))
    assert translation.value["contents"][1]["parts"] == [
        {"text": "2 + 3 = 5 and 2 times 3 = 6."},
        {"text": "", "thoughtSignature": "Ep4BCpsBAdHtim8+text/sig=="},
    ]
    assert "message 1 (assistant): model turn sent exactly as it came (its parts do not fit an internal message)" in (
        translation.notes
    )
    edited = {**turn, "content": "2 + 3 = 5."}
    translation = encode_request(_request(USER, edited))
    assert translation.value["contents"][1]["parts"] == [{"text": "2 + 3 = 5."}]
    assert "message 1 (assistant): the model turn was edited since import; its kept parts are not sent" in (
        translation.notes
    )


def test_a_failed_tool_is_an_error_response() -> None:
    body = encode_request(_request(USER, _turn(_call("c1")), _tool("c1", "division by zero", is_error=True))).value
    assert body["contents"][2]["parts"] == [
        {"functionResponse": {"name": "add", "response": {"error": "division by zero"}}}
    ]


def test_tool_results_with_parts_send_their_text() -> None:
    audio = {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
    content = [{"type": "text", "text": "5"}, audio]
    translation = encode_request(_request(USER, _turn(_call("c1")), _tool("c1", content)))
    assert translation.value["contents"][2]["parts"][0]["functionResponse"]["response"] == {"result": "5"}
    assert "message 2 (tool): non-text parts of a tool result dropped (the response is text)" in translation.notes


def test_responses_to_same_name_calls_without_ids_follow_their_calls_order() -> None:
    turn = _turn(_call("c1", "lookup", '{"q":"a"}'), _call("c2", "other"), _call("c3", "lookup", '{"q":"b"}'))
    messages = [USER, turn, _tool("c3", "B"), _tool("c2", "X"), _tool("c1", "A")]
    translation = encode_request(_request(*messages))
    responses = [part["functionResponse"] for part in translation.value["contents"][2]["parts"]]
    assert [(r["name"], r["response"]["result"]) for r in responses] == [
        ("lookup", "A"),
        ("other", "X"),
        ("lookup", "B"),
    ]
    assert (
        "function responses to `lookup` put in the order of their calls (Gemini pairs them by name and position)"
        in translation.notes
    )


def test_responses_to_calls_with_ids_keep_their_order() -> None:
    turn = _turn(_call("a1", "lookup", functionCall={"id": "a1"}), _call("a2", "lookup", functionCall={"id": "a2"}))
    translation = encode_request(_request(USER, turn, _tool("a2", "B"), _tool("a1", "A")))
    responses = [part["functionResponse"] for part in translation.value["contents"][2]["parts"]]
    assert [(r["id"], r["response"]["result"]) for r in responses] == [("a2", "B"), ("a1", "A")]
    assert not any("put in the order" in note for note in translation.notes)


def test_a_response_for_an_unknown_call_is_refused() -> None:
    with pytest.raises(TranslationError, match="which no earlier assistant message made"):
        encode_request(_request(USER, _tool("call_X")))
    with pytest.raises(TranslationError, match="has no tool_call_id"):
        encode_request(_request(USER, _turn(_call("c1")), {"role": "tool", "content": "5"}))


def test_unanswered_calls_and_late_responses_are_noted() -> None:
    messages = [USER, _turn(_call("c1"), _call("c2", "multiply")), _tool("c1"), USER, _turn(_call("c3")), _tool("c2")]
    notes = encode_request(_request(*messages)).notes
    assert (
        "call `c2` (multiply) has no function response; Gemini rejects a turn whose function calls and responses do "
        "not match" in notes
    )
    assert any(note.startswith("message 5 (tool): it answers a call of an earlier model turn") for note in notes)
    assert "call `c3` (add) has no function response; Gemini rejects a turn whose function calls and responses " in (
        " ".join(notes)
    )


def test_a_conversation_ending_on_calls_is_not_noted() -> None:
    notes = encode_request(_request(USER, _turn(_call("c1")))).notes
    assert not any("has no function response" in note for note in notes)


def test_arguments_become_an_args_object() -> None:
    turn = _turn(_call("c1", arguments=""), _call("c2", arguments="not json"), _call("c3", arguments='["x"]'))
    translation = encode_request(_request(USER, turn))
    assert [part["functionCall"]["args"] for part in translation.value["contents"][1]["parts"]] == [
        {},
        {"_raw_arguments": "not json"},
        {"_raw_arguments": '["x"]'},
    ]
    assert 'message 1 (assistant) call 1: arguments are not a JSON object; sent verbatim as {"_raw_arguments": …}' in (
        translation.notes
    )


def test_a_call_without_a_name_is_refused() -> None:
    with pytest.raises(TranslationError, match="has no function name"):
        encode_request(_request(USER, _turn(_call("c1", name=""))))


def test_reasoning_of_another_format_is_dropped_with_a_note() -> None:
    thinking = {"type": "thinking", "thinking": "hmm", "signature": "sig"}
    turn = _turn(_call("toolu_1"), content="Let me add.", format="anthropic", blocks=[thinking], reasoning="hmm")
    turn["tool_calls"][0]["provider_data"] = {"format": "openai-responses", "fields": {"id": "fc_1"}}
    translation = encode_request(_request(USER, turn, _tool("toolu_1")))
    assert translation.value["contents"][1]["parts"] == [
        {"text": "Let me add."},
        {"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}},
    ]
    assert "reasoning dropped: target format has no equivalent (message 1 (assistant), from anthropic)" in (
        translation.notes
    )
    assert "message 1 (assistant) call 0: openai-responses fields dropped (id): target format has no equivalent" in (
        translation.notes
    )
    assert (
        "the turn being answered has no thoughtSignature on its first call (it did not come from Gemini); Gemini 3 "
        "models reject such a turn" in translation.notes
    )


def test_encoding_does_not_change_the_request() -> None:
    request = _request(USER, _turn(_call("c1", thoughtSignature="s")), _tool("c1"), temperature=0.2)
    before = copy.deepcopy(request)
    encode_request(request)
    assert request == before


def test_not_a_request_is_refused() -> None:
    with pytest.raises(TranslationError):
        encode_request([])  # type: ignore[arg-type]
    with pytest.raises(TranslationError, match="unknown role"):
        encode_request(_request({"role": "robot", "content": "x"}))  # type: ignore[typeddict-item]


# --- tools and settings ------------------------------------------------------------------------------------------


def _tool_spec(name: str, parameters: Any = None, **extra: Any) -> dict[str, Any]:
    function = {"name": name, **({"parameters": parameters} if parameters is not None else {}), **extra}
    return {"type": "function", "function": function}


def test_tools_become_function_declarations_with_an_openapi_schema() -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "City"}, "days": {"type": ["integer", "null"]}},
        "required": ["city"],
        "additionalProperties": False,
    }
    translation = encode_request(_request(USER, tools=[_tool_spec("weather", schema, description="Forecast")]))
    assert translation.value["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "weather",
                    "description": "Forecast",
                    "parameters": {
                        "type": "OBJECT",
                        "properties": {
                            "city": {"type": "STRING", "description": "City"},
                            "days": {"type": "INTEGER", "nullable": True},
                        },
                        "required": ["city"],
                    },
                }
            ]
        }
    ]
    assert translation.notes == [
        'tool `weather`: parameters changed for Gemini\'s schema subset: type ["integer", "null"] sent as `nullable` '
        "(at $.days); `additionalProperties` dropped (at $)"
    ]


def test_schema_references_are_inlined_and_recursion_is_cut() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "node": {"type": "object", "properties": {"label": {"type": "string"}, "child": {"$ref": "#/$defs/node"}}}
        },
        "properties": {"root": {"$ref": "#/$defs/node"}, "other": {"$ref": "https://example.com/x.json"}},
    }
    translation = encode_request(_request(USER, tools=[_tool_spec("tree", schema)]))
    parameters = translation.value["tools"][0]["functionDeclarations"][0]["parameters"]
    assert parameters == {
        "type": "OBJECT",
        "properties": {
            "root": {"type": "OBJECT", "properties": {"label": {"type": "STRING"}, "child": {"type": "OBJECT"}}},
            "other": {"type": "STRING"},
        },
    }
    note = translation.notes[0]
    assert "`$defs` dropped (at $)" in note and "`$ref` inlined (at $.root)" in note
    assert "a recursive `$ref` cut to an object (at $.root.child)" in note
    assert "an unresolvable `$ref` replaced by a string (at $.other)" in note


def test_schema_keywords_outside_the_subset_are_translated_or_dropped() -> None:
    schema = {
        "type": "object",
        "properties": {
            "mode": {"const": "fast"},
            "level": {"enum": [1, 2, 3]},
            "either": {"oneOf": [{"type": "string"}, {"type": "number"}]},
            "both": {"allOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"b": {"type": "string"}}}]},
            "many": {"type": ["string", "integer", "null"]},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "mail": {"type": "string", "format": "email"},
            "at": {"type": "string", "format": "date-time"},
        },
    }
    translation = encode_request(_request(USER, tools=[_tool_spec("t", schema)]))
    properties = translation.value["tools"][0]["functionDeclarations"][0]["parameters"]["properties"]
    assert properties == {
        "mode": {"enum": ["fast"]},
        "level": {},
        "either": {"anyOf": [{"type": "STRING"}, {"type": "NUMBER"}]},
        "both": {"properties": {"a": {"type": "STRING"}, "b": {"type": "STRING"}}},
        "many": {"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}], "nullable": True},
        "tags": {"type": "ARRAY", "items": {"type": "STRING"}},
        "mail": {"type": "STRING"},
        "at": {"type": "STRING", "format": "date-time"},
    }
    note = translation.notes[0]
    for change in (
        "`const` sent as a one-value `enum` (at $.mode)",
        "an `enum` with non-string values dropped (Gemini enums are strings) (at $.level)",
        "`oneOf` sent as `anyOf` (at $.either)",
        "`allOf` merged into one schema (at $.both)",
        'type ["string", "integer", "null"] sent as `anyOf` (at $.many)',
        "`uniqueItems` dropped (at $.tags)",
        '`format: "email"` dropped, a format Gemini does not take (at $.mail)',
    ):
        assert change in note


def test_a_tool_without_properties_sends_no_parameters_and_strict_is_dropped() -> None:
    tools = [
        _tool_spec("list_doors", {"type": "object", "properties": {}}, strict=True),
        _tool_spec("ping"),
        _tool_spec("bad name!", {"type": "object", "properties": {"a": {"type": "string"}}}),
        {"type": "retrieval"},
    ]
    translation = encode_request(_request(USER, tools=tools))
    declarations = translation.value["tools"][0]["functionDeclarations"]
    assert declarations[:2] == [{"name": "list_doors"}, {"name": "ping"}]
    assert translation.notes == [
        "tool `list_doors`: strict dropped (Gemini has no strict mode for function declarations)",
        "tool `list_doors`: parameters left out (Gemini rejects an object schema without properties)",
        "tool `bad name!`: Gemini function names must match [A-Za-z_][A-Za-z0-9_.:-]{0,63}",
        "tool 3 dropped: not a named function tool",
    ]


def test_tool_definitions_export_as_requests_map_them() -> None:
    spec = _tool_spec("add", {"type": "object", "properties": {"a": {"type": "integer"}}})
    assert encode_tools([spec]) == [  # type: ignore[list-item]
        {
            "functionDeclarations": [
                {"name": "add", "parameters": {"type": "OBJECT", "properties": {"a": {"type": "INTEGER"}}}}
            ]
        }
    ]


@pytest.mark.parametrize(
    ("choice", "config"),
    [
        ("auto", {"mode": "AUTO"}),
        ("none", {"mode": "NONE"}),
        ("required", {"mode": "ANY"}),
        ({"type": "function", "function": {"name": "add"}}, {"mode": "ANY", "allowedFunctionNames": ["add"]}),
    ],
)
def test_tool_choice_becomes_a_function_calling_mode(choice: Any, config: dict[str, Any]) -> None:
    body = encode_request(_request(USER, tool_choice=choice)).value
    assert body["toolConfig"] == {"functionCallingConfig": config}


def test_an_unknown_tool_choice_is_refused_and_parallel_calls_are_noted() -> None:
    with pytest.raises(TranslationError, match="is not one of"):
        encode_request(_request(USER, tool_choice="any"))
    with pytest.raises(TranslationError, match="does not name a function"):
        encode_request(_request(USER, tool_choice={"type": "function"}))
    notes = encode_request(_request(USER, parallel_tool_calls=False)).notes
    assert "parallel_tool_calls dropped: Gemini has no switch for parallel function calls" in notes


@pytest.mark.parametrize(
    ("reasoning", "thinking", "note"),
    [
        ({"enabled": True}, {"includeThoughts": True}, None),
        ({"enabled": True, "budget_tokens": 2048}, {"includeThoughts": True, "thinkingBudget": 2048}, None),
        ({"enabled": True, "effort": "low"}, {"includeThoughts": True, "thinkingLevel": "low"}, None),
        (
            {"enabled": True, "budget_tokens": 512, "effort": "high"},
            {"includeThoughts": True, "thinkingBudget": 512},
            "reasoning effort `high` dropped (Gemini takes a budget or a level)",
        ),
        (
            {"enabled": False},
            {"thinkingBudget": 0},
            "reasoning disabled: thinkingBudget 0 (Gemini 2.5 Pro and Gemini 3 cannot turn thinking off)",
        ),
    ],
)
def test_generation_config_holds_the_settings_and_the_thinking_config(
    reasoning: Any, thinking: dict[str, Any], note: str | None
) -> None:
    translation = encode_request(_request(USER, temperature=0.3, max_tokens=800, reasoning=reasoning))
    assert translation.value["generationConfig"] == {
        "temperature": 0.3,
        "maxOutputTokens": 800,
        "thinkingConfig": thinking,
    }
    assert (note in translation.notes) if note else not any("reasoning" in n for n in translation.notes)


@pytest.mark.parametrize("target", ["openai-chat", "anthropic", "openai-responses"])
def test_a_gemini_turn_sent_to_another_format_drops_its_thoughts_and_signatures_with_notes(target: str) -> None:
    turn = _decode_stream("stream_gemini3_calls.sse")
    request = _request(USER, turn, _tool("8hd01vsf"), _tool("k0srpqrc", "6"), model="m")
    translation = get_format(target).encode_request(request)
    wire = json.dumps(translation.value)
    assert "EsINCr8N" not in wire and "Two independent" not in wire
    assert any("reasoning dropped" in note and "gemini" in note for note in translation.notes)
    assert any("gemini" in note and "fields dropped" in note for note in translation.notes)
