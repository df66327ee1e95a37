"""Gemini request body -> internal request, and back: nothing a client sent is lost on the same format."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from providers.gemini import encode_request, import_request, import_tools
from providers.gemini.wire import synthetic_call_id
from providers.translation import TranslationError

FIXTURES = Path(__file__).parent / "fixtures" / "gemini"
NAME = "gemini"
USER = {"role": "user", "parts": [{"text": "go"}]}


def _fixture() -> dict[str, Any]:
    return json.loads((FIXTURES / "request_tool_loop.json").read_text())


def _body(*contents: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"contents": list(contents), **extra}


def _model(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "model", "parts": list(parts)}


def _fc(name: str, args: dict[str, Any] | None = None, call_id: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "args": args if args is not None else {}}
    return {"functionCall": {**body, "id": call_id} if call_id else body}


def _fr(name: str, response: Any, call_id: str | None = None) -> dict[str, Any]:
    return {"functionResponse": {"name": name, **({"id": call_id} if call_id else {}), "response": response}}


def _results(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "parts": list(parts)}


def _round_trip(body: dict[str, Any]) -> dict[str, Any]:
    internal = import_request(copy.deepcopy(body)).value
    return encode_request(json.loads(json.dumps(internal))).value


def test_a_recorded_tool_loop_imports_to_internal_messages() -> None:
    translation = import_request(_fixture())
    request = translation.value
    assert [m["role"] for m in request["messages"]] == ["system", "user", "assistant", "tool", "tool"]
    turn = request["messages"][2]
    assert turn["content"] is None
    assert turn["tool_calls"] == [
        {
            "id": "8hd01vsf",
            "type": "function",
            "function": {"name": "add", "arguments": '{"a":2,"b":3}'},
            "provider_data": {
                "format": NAME,
                "fields": {"thoughtSignature": "EsINCr8NAdHtim9+kP1x/qvG0sig==", "functionCall": {"id": "8hd01vsf"}},
            },
        },
        {
            "id": "k0srpqrc",
            "type": "function",
            "function": {"name": "multiply", "arguments": '{"a":2,"b":3}'},
            "provider_data": {"format": NAME, "fields": {"functionCall": {"id": "k0srpqrc"}}},
        },
    ]
    assert turn["provider_data"]["blocks"] == [_fixture()["contents"][1]["parts"][0]]
    assert turn["provider_data"]["reasoning"] == "**Planning the arithmetic**\n\nBoth operations are independent."
    assert request["messages"][3:] == [
        {"role": "tool", "tool_call_id": "8hd01vsf", "content": "5"},
        {"role": "tool", "tool_call_id": "k0srpqrc", "content": "6"},
    ]
    assert (request["max_tokens"], request["reasoning"], request["tool_choice"]) == (4000, {"enabled": True}, "auto")
    assert request["provider_data"]["fields"]["generationConfig"] == {"topP": 0.95}
    assert translation.notes == [
        "`systemInstruction` became 1 system message at the start",
        "contents[1]: 1 thought or opaque part kept unchanged in provider_data, to be resent",
        "contents[1]: thoughtSignature kept on the call to add, to be resent on the same part",
        "contents[2]: 2 function responses became tool messages (paired with their calls by id)",
        "request fields kept in provider_data for gemini: safetySettings",
        "`tools` kept whole in provider_data for gemini (it has entries with no internal equivalent)",
        "generationConfig fields kept in provider_data for gemini: topP",
    ]


def test_import_then_encode_gives_back_the_recorded_request() -> None:
    assert _round_trip(_fixture()) == _fixture()


def test_calls_without_ids_get_stable_synthetic_ids_and_responses_pair_by_name_and_order() -> None:
    body = _body(
        USER,
        _model(_fc("lookup", {"q": "a"}), _fc("other"), _fc("lookup", {"q": "b"})),
        _results(_fr("other", {"result": "X"}), _fr("lookup", {"result": "A"}), _fr("lookup", {"result": "B"})),
    )
    translation = import_request(body)
    messages = translation.value["messages"]
    ids = [call["id"] for call in messages[1]["tool_calls"]]
    assert ids == [
        synthetic_call_id("contents.1", 0, "lookup", '{"q":"a"}'),
        synthetic_call_id("contents.1", 1, "other", "{}"),
        synthetic_call_id("contents.1", 2, "lookup", '{"q":"b"}'),
    ]
    assert len(set(ids)) == 3 and import_request(body).value == translation.value  # stable
    assert [(m["tool_call_id"], m["content"]) for m in messages[2:]] == [(ids[1], "X"), (ids[0], "A"), (ids[2], "B")]
    assert "contents[2]: 3 function responses became tool messages (paired with their calls by name and position)" in (
        translation.notes
    )
    assert _round_trip(body) == body


def test_responses_pair_by_id_when_both_have_one() -> None:
    body = _body(
        USER,
        _model(_fc("lookup", {"q": "a"}, "id_a"), _fc("lookup", {"q": "b"}, "id_b")),
        _results(_fr("lookup", {"result": "B"}, "id_b"), _fr("lookup", {"result": "A"}, "id_a")),
    )
    messages = import_request(body).value["messages"]
    assert [(m["tool_call_id"], m["content"]) for m in messages[2:]] == [("id_b", "B"), ("id_a", "A")]
    assert _round_trip(body) == body


def test_a_response_that_answers_no_call_is_refused() -> None:
    with pytest.raises(TranslationError, match="answers no call of the model content before it"):
        import_request(_body(USER, _model(_fc("add")), _results(_fr("multiply", {"result": "6"}))))
    with pytest.raises(TranslationError, match="answers no call"):
        import_request(_body(_results(_fr("add", {"result": "5"}))))


@pytest.mark.parametrize(
    ("response", "content", "is_error", "kept"),
    [
        ({"result": "5"}, "5", None, None),
        ({"error": "division by zero"}, "division by zero", True, None),
        ({"temperature": 20, "unit": "C"}, '{"temperature":20,"unit":"C"}', None, {"temperature": 20, "unit": "C"}),
        ({"result": 5}, '{"result":5}', None, {"result": 5}),
    ],
)
def test_function_response_objects(response: Any, content: str, is_error: bool | None, kept: Any) -> None:
    body = _body(USER, _model(_fc("f")), _results(_fr("f", response)))
    tool = import_request(body).value["messages"][2]
    assert (tool["content"], tool.get("is_error")) == (content, is_error)
    fields = (tool.get("provider_data") or {}).get("fields")
    assert fields == ({"functionResponse": {"response": kept}} if kept else None)
    assert _round_trip(body) == body


def test_an_edited_response_object_is_sent_as_text() -> None:
    body = _body(USER, _model(_fc("f")), _results(_fr("f", {"temperature": 20})))
    request = import_request(body).value
    request["messages"][2]["content"] = "21 degrees"
    translation = encode_request(request)
    assert translation.value["contents"][2]["parts"] == [_fr("f", {"result": "21 degrees"})]
    assert "message 2 (tool): edited since import; its response object is sent as text" in translation.notes


def test_text_after_responses_becomes_a_user_message_after_the_tool_messages() -> None:
    body = _body(USER, _model(_fc("f")), _results(_fr("f", {"result": "1"}), {"text": "and now?"}))
    translation = import_request(body)
    assert [m["role"] for m in translation.value["messages"]] == ["user", "assistant", "tool", "user"]
    assert translation.value["messages"][3]["content"] == "and now?"
    assert "contents[2]: its other parts became a user message after the tool messages" in translation.notes


def test_legacy_and_missing_roles_read_as_user() -> None:
    body = _body(
        {"parts": [{"text": "hi"}]}, _model(_fc("f")), {"role": "function", "parts": [_fr("f", {"result": "1"})]}
    )
    translation = import_request(body)
    assert [m["role"] for m in translation.value["messages"]] == ["user", "assistant", "tool"]
    assert translation.notes[:1] == ["contents[0]: role missing read as user"]
    assert "contents[2]: role function read as user" in translation.notes


def test_user_parts_with_no_internal_equivalent_are_kept_and_resent_while_unedited() -> None:
    pdf = {"inlineData": {"mimeType": "application/pdf", "data": "JVBERi0x"}}
    image = {
        "fileData": {"mimeType": "image/png", "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc"}
    }
    body = _body({"role": "user", "parts": [{"text": "Summarise"}, pdf, image]})
    request = import_request(body).value
    message = request["messages"][0]
    assert message["content"] == [
        {"type": "text", "text": "Summarise"},
        {"type": "image_url", "image_url": {"url": image["fileData"]["fileUri"]}},
    ]
    assert message["provider_data"] == {"format": NAME, "fields": {"parts": body["contents"][0]["parts"]}}
    assert _round_trip(body) == body
    message["content"] = "Summarise briefly"
    translation = encode_request(request)
    assert translation.value["contents"][0]["parts"] == [{"text": "Summarise briefly"}]
    assert "message 0 (user): edited since import; its Gemini-only parts are not sent" in translation.notes


def test_model_turns_the_internal_message_cannot_hold_are_kept_whole() -> None:
    turn = _model(_fc("f"), {"text": "done", "thoughtSignature": "c2ln"}, {"executableCode": {"code": "print(1)"}})
    body = _body(USER, turn, _results(_fr("f", {"result": "1"})))
    translation = import_request(body)
    message = translation.value["messages"][1]
    assert message["content"] == "done"
    assert message["provider_data"]["blocks"] == [{"executableCode": {"code": "print(1)"}}]
    assert message["provider_data"]["fields"] == {"parts": turn["parts"]}
    assert (
        "contents[1]: model parts kept whole for gemini (signed text, or an order the internal message cannot hold)"
        in translation.notes
    )
    assert _round_trip(body) == body


def test_parameters_json_schema_and_builtin_tools_are_kept_whole() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False}
    tools = [{"functionDeclarations": [{"name": "add", "parametersJsonSchema": schema}]}, {"codeExecution": {}}]
    request = import_request(_body(USER, tools=tools)).value
    assert request["tools"] == [{"type": "function", "function": {"name": "add", "parameters": schema}}]
    assert request["provider_data"]["fields"]["tools"] == tools
    assert _round_trip(_body(USER, tools=tools)) == _body(USER, tools=tools)


def test_openapi_parameters_import_as_json_schema() -> None:
    parameters = {
        "type": "OBJECT",
        "properties": {
            "city": {"type": "STRING", "nullable": True},
            "tags": {"type": "ARRAY", "items": {"type": "STRING"}},
        },
        "propertyOrdering": ["city", "tags"],
    }
    tools = [{"functionDeclarations": [{"name": "w", "description": "Weather", "parameters": parameters}]}]
    assert import_tools(tools) == [
        {
            "type": "function",
            "function": {
                "name": "w",
                "description": "Weather",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "city": {"type": ["string", "null"]},
                        "tags": {"type": "array", "items": {"type": "string"}},
                    },
                    "propertyOrdering": ["city", "tags"],
                },
            },
        }
    ]
    request = import_request(_body(USER, tools=tools)).value
    assert "provider_data" not in request  # encoding gives the same declarations back
    assert _round_trip(_body(USER, tools=tools)) == _body(USER, tools=tools)


@pytest.mark.parametrize(
    ("config", "choice", "kept"),
    [
        ({"mode": "AUTO"}, "auto", False),
        ({"mode": "NONE"}, "none", False),
        ({"mode": "ANY"}, "required", False),
        ({"mode": "ANY", "allowedFunctionNames": ["add"]}, {"type": "function", "function": {"name": "add"}}, False),
        ({"mode": "ANY", "allowedFunctionNames": ["add", "mul"]}, "required", True),
        ({"mode": "VALIDATED"}, None, True),
    ],
)
def test_function_calling_modes(config: dict[str, Any], choice: Any, kept: bool) -> None:
    body = _body(USER, toolConfig={"functionCallingConfig": config})
    request = import_request(body).value
    assert request.get("tool_choice") == choice
    assert ("toolConfig" in (request.get("provider_data") or {}).get("fields", {})) is kept
    assert _round_trip(body) == body


@pytest.mark.parametrize(
    ("thinking", "reasoning", "kept"),
    [
        ({"includeThoughts": True}, {"enabled": True}, False),
        ({"includeThoughts": True, "thinkingBudget": 1024}, {"enabled": True, "budget_tokens": 1024}, False),
        ({"includeThoughts": True, "thinkingLevel": "high"}, {"enabled": True, "effort": "high"}, False),
        ({"thinkingBudget": 0}, {"enabled": False}, False),
        ({"thinkingBudget": -1}, {"enabled": True}, True),
        ({"includeThoughts": False, "thinkingBudget": 256}, {"enabled": True, "budget_tokens": 256}, True),
    ],
)
def test_thinking_configs(thinking: dict[str, Any], reasoning: dict[str, Any], kept: bool) -> None:
    body = _body(USER, generationConfig={"temperature": 0.5, "thinkingConfig": thinking})
    request = import_request(body).value
    assert (request["reasoning"], request["temperature"]) == (reasoning, 0.5)
    kept_config = (request.get("provider_data") or {}).get("fields", {}).get("generationConfig")
    assert kept_config == ({"thinkingConfig": thinking} if kept else None)
    assert _round_trip(body) == body


def test_unknown_request_fields_and_the_model_come_back() -> None:
    body = _body(USER, model="models/gemini-2.5-pro", cachedContent="cachedContents/abc", labels={"team": "x"})
    request = import_request(body).value
    assert request["model"] == "models/gemini-2.5-pro"
    assert _round_trip(body) == body


def test_a_system_instruction_with_extra_fields_is_kept_whole() -> None:
    body = _body(USER, systemInstruction={"role": "user", "parts": [{"text": "Be brief."}, {"text": "Be kind."}]})
    translation = import_request(body)
    assert translation.value["messages"][:2] == [
        {"role": "system", "content": "Be brief."},
        {"role": "system", "content": "Be kind."},
    ]
    assert (
        "`systemInstruction` kept whole in provider_data for gemini (it has entries with no internal equivalent)"
        in (translation.notes)
    )
    assert _round_trip(body) == body


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([], "needs a `contents` list"),
        ({"contents": "hi"}, "needs a `contents` list"),
        ({"contents": ["hi"]}, r"contents\[0\] is not an object"),
        ({"contents": [{"role": "system", "parts": []}]}, "neither user nor model"),
        ({"contents": [{"role": "user", "parts": "hi"}]}, "`parts` must be a list"),
        ({"contents": [], "generationConfig": 3}, "must be an object"),
    ],
)
def test_bodies_that_cannot_be_imported(body: Any, message: str) -> None:
    with pytest.raises(TranslationError, match=message):
        import_request(body)
