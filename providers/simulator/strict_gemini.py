"""What generativelanguage.googleapis.com refuses in a ``generateContent`` body, checked on the raw wire request.

Google parses the body as a protobuf message, so a field it does not know is a 400 ("Invalid JSON payload received.
Unknown name ...") and a value of the wrong shape is one too ("Invalid value at ..."); proto field names may come in
camelCase or snake_case. Messages and statuses are the real API's (400 ``INVALID_ARGUMENT``). Checked, first failure
wins:

* Top-level, content, part, call, response, tool and declaration fields are known ones (an OpenAI-shaped
  ``messages`` or ``{"type": "text"}`` part, a stray ``stream`` field: Unknown name).
* ``contents`` is given and not empty; each content has a role ``user`` or ``model`` (or none) and parts; each
  part holds exactly one kind of data (text, inline data, a call, a response...).
* A ``functionCall`` and a ``functionResponse`` have a name; ``args`` and ``response`` are objects. An
  ``inlineData`` blob has a ``mimeType`` and base64 ``data`` that decodes (a tool's image travels as such a part
  after the function responses of its user content, which pairing allows: it counts the responses only).
* Tools: function names Gemini accepts; ``parameters`` in the OpenAPI subset (no ``additionalProperties``...), an
  object schema with properties; ``toolConfig`` modes are Gemini's; ``thinkingConfig`` takes a budget or a level.
* Pairing, as Gemini checks a function-calling history: a content of function responses comes right after the model
  content that made the calls, answers each call once, by its name (and its id when it has one); a model content
  that calls functions follows a user content.
* Thought signatures (``gemini_signatures``): none corrupted; none missing on the current turn's calls.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from providers.gemini.schema import SUPPORTED
from providers.simulator.gemini_signatures import check_signatures
from providers.simulator.images import decoded_size
from providers.simulator.rejection import Rejection

_TOP = ("model", "contents", "tools", "toolConfig", "safetySettings", "systemInstruction", "generationConfig")
_TOP_KEYS = (*_TOP, "cachedContent")
_CONTENT_KEYS = ("role", "parts")
_DATA = ("text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult")
_PART_KEYS = (*_DATA, "thought", "thoughtSignature", "videoMetadata", "partMetadata", "mediaResolution")
_BLOB_KEYS = ("mimeType", "data", "displayName")
_CALL_KEYS = ("name", "args", "id", "partialArgs", "willContinue")
_RESPONSE_KEYS = ("name", "response", "id", "parts", "willContinue", "scheduling")
_TOOL_KEYS = (
    "functionDeclarations",
    "googleSearch",
    "googleSearchRetrieval",
    "codeExecution",
    "urlContext",
    "fileSearch",
    "computerUse",
    "googleMaps",
)
_DECLARATION_KEYS = ("name", "description", "parameters", "parametersJsonSchema", "response", "responseJsonSchema")
_TOOL_CONFIG_KEYS = ("functionCallingConfig", "retrievalConfig")
_CALLING_KEYS = ("mode", "allowedFunctionNames")
_MODES = ("MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED")
_TYPES = ("TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL")
_ROLES = ("user", "model")
_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$")
_PROTO = "type.googleapis.com/google.ai.generativelanguage.v1beta."
_STRUCT = "type.googleapis.com/google.protobuf.Struct"


def validate(body: dict[str, Any]) -> Rejection | None:
    contents = _get(body, "contents")
    return (
        _unknown(body, _TOP_KEYS, None)
        or _contents(contents)
        or _system(_get(body, "systemInstruction"))
        or _tools(_get(body, "tools"))
        or _tool_config(_get(body, "toolConfig"))
        or _thinking(_get(body, "generationConfig"))
        or _pairing(contents)
        or check_signatures(contents)
    )


# --- contents ----------------------------------------------------------------------------------------------------


def _contents(contents: Any) -> Rejection | None:
    if contents is None or contents == []:
        return _field("contents", "contents is not specified")
    if not isinstance(contents, list):
        return _invalid("contents", "Content", contents)
    for i, content in enumerate(contents):
        where = f"contents[{i}]"
        if not isinstance(content, dict):
            return _invalid(where, "Content", content)
        found = _unknown(content, _CONTENT_KEYS, where) or _role(content) or _parts(content.get("parts"), where)
        if found is not None:
            return found
    return None


def _role(content: dict[str, Any]) -> Rejection | None:
    role = content.get("role")
    return None if role is None or role in _ROLES else Rejection("Please use a valid role: user, model.")


def _parts(parts: Any, where: str) -> Rejection | None:
    if parts is None or parts == []:
        return _field(f"{where}.parts", "contents.parts must not be empty.")
    if not isinstance(parts, list):
        return _invalid(f"{where}.parts", "Part", parts)
    for j, part in enumerate(parts):
        at = f"{where}.parts[{j}]"
        if not isinstance(part, dict):
            return _invalid(at, "Part", part)
        found = _unknown(part, _PART_KEYS, at) or _data(part, at)
        if found is not None:
            return found
    return None


def _data(part: dict[str, Any], at: str) -> Rejection | None:
    present = [key for key in _DATA if _get(part, key) is not None]
    if not present:
        return _field(f"{at}.data", "required oneof field 'data' must have one initialized field")
    if len(present) > 1:
        return Rejection(
            f"Invalid JSON payload received. Oneof field 'data' is already set. Cannot set '{_snake(present[1])}'",
            param=at,
        )
    if "text" in part and not isinstance(part["text"], str):
        return _invalid(f"{at}.text", None, part["text"], "TYPE_STRING")
    call, response, blob = _get(part, "functionCall"), _get(part, "functionResponse"), _get(part, "inlineData")
    if call is not None:
        return _call(call, f"{at}.function_call")
    if response is not None:
        return _response(response, f"{at}.function_response")
    if blob is not None:
        return _blob(blob, f"{at}.inline_data")
    return None


def _blob(blob: Any, at: str) -> Rejection | None:
    """Inline data; Google quotes a bad value back, this one does not (base64 can be megabytes)."""
    if not isinstance(blob, dict):
        return Rejection(f"Invalid value at '{at}' ({_PROTO}Blob)", param=at)
    found = _unknown(blob, _BLOB_KEYS, at)
    if found is not None:
        return found
    mime = _get(blob, "mimeType")
    if not isinstance(mime, str) or not mime:
        return _field(f"{at}.mime_type", "mime_type must be set.")
    if decoded_size(blob.get("data")) is None:
        return Rejection(f"Invalid value at '{at}.data' (TYPE_BYTES), Base64 decoding failed", param=f"{at}.data")
    return None


def _call(call: Any, at: str) -> Rejection | None:
    if not isinstance(call, dict):
        return _invalid(at, "FunctionCall", call)
    found = _unknown(call, _CALL_KEYS, at) or _named(call, at)
    if found is None and "args" in call and not isinstance(call["args"], dict):
        return _invalid(f"{at}.args", None, call["args"], _STRUCT)
    return found


def _response(response: Any, at: str) -> Rejection | None:
    if not isinstance(response, dict):
        return _invalid(at, "FunctionResponse", response)
    found = _unknown(response, _RESPONSE_KEYS, at) or _named(response, at)
    if found is None and not isinstance(response.get("response"), dict):
        return _invalid(f"{at}.response", None, response.get("response"), _STRUCT)
    return found


def _named(item: dict[str, Any], at: str) -> Rejection | None:
    name = item.get("name")
    return None if isinstance(name, str) and name else _field(f"{at}.name", "Name cannot be empty.")


def _system(system: Any) -> Rejection | None:
    if system is None:
        return None
    if not isinstance(system, dict):
        return _invalid("system_instruction", "Content", system)
    return _unknown(system, _CONTENT_KEYS, "system_instruction") or _parts(system.get("parts"), "system_instruction")


# --- tools -------------------------------------------------------------------------------------------------------


def _tools(tools: Any) -> Rejection | None:
    if tools is None:
        return None
    if not isinstance(tools, list):
        return _invalid("tools", "Tool", tools)
    for i, tool in enumerate(tools):
        where = f"tools[{i}]"
        if not isinstance(tool, dict):
            return _invalid(where, "Tool", tool)
        found = _unknown(tool, _TOOL_KEYS, where) or _declarations(_get(tool, "functionDeclarations"), where)
        if found is not None:
            return found
    return None


def _declarations(declarations: Any, where: str) -> Rejection | None:
    if declarations is None:
        return None
    if not isinstance(declarations, list):
        return _invalid(f"{where}.function_declarations", "FunctionDeclaration", declarations)
    for k, declaration in enumerate(declarations):
        at = f"{where}.function_declarations[{k}]"
        if not isinstance(declaration, dict):
            return _invalid(at, "FunctionDeclaration", declaration)
        found = _unknown(declaration, _DECLARATION_KEYS, at) or _function_name(declaration.get("name"), at)
        parameters = _get(declaration, "parameters")
        if found is None and parameters is not None:
            found = _schema(parameters, f"{at}.parameters") or _object_properties(parameters, f"{at}.parameters")
        if found is not None:
            return found
    return None


def _function_name(name: Any, at: str) -> Rejection | None:
    if isinstance(name, str) and _NAME.match(name):
        return None
    return _field(
        f"{at}.name",
        "Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), "
        "underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.",
    )


def _schema(schema: Any, at: str) -> Rejection | None:
    """The OpenAPI subset, recursively: a JSON Schema keyword Gemini does not take is an unknown field."""
    if not isinstance(schema, dict):
        return _invalid(at, "Schema", schema)
    found = _unknown(schema, tuple(SUPPORTED), at)
    if found is not None:
        return found
    kind = schema.get("type")
    if kind is not None and (not isinstance(kind, str) or kind.upper() not in _TYPES):
        return _invalid(f"{at}.type", "Type", kind)
    properties, any_of = schema.get("properties") or {}, _get(schema, "anyOf") or []
    if not isinstance(properties, dict):
        return _invalid(f"{at}.properties", "Schema", properties)
    if not isinstance(any_of, list):
        return _invalid(f"{at}.any_of", "Schema", any_of)
    children = [(f"{at}.properties[{i}].value", sub) for i, sub in enumerate(properties.values())]
    children += [(f"{at}.any_of[{i}]", sub) for i, sub in enumerate(any_of)]
    if "items" in schema:
        children.append((f"{at}.items", schema["items"]))
    return next((found for path, sub in children if (found := _schema(sub, path)) is not None), None)


def _object_properties(schema: dict[str, Any], at: str) -> Rejection | None:
    if str(schema.get("type", "")).upper() == "OBJECT" and not schema.get("properties"):
        return _field(f"{at}.properties", "should be non-empty for OBJECT type")
    return None


def _tool_config(config: Any) -> Rejection | None:
    if config is None:
        return None
    if not isinstance(config, dict):
        return _invalid("tool_config", "ToolConfig", config)
    calling = _get(config, "functionCallingConfig")
    found = _unknown(config, _TOOL_CONFIG_KEYS, "tool_config")
    if found is not None or calling is None:
        return found
    where = "tool_config.function_calling_config"
    if not isinstance(calling, dict):
        return _invalid(where, "FunctionCallingConfig", calling)
    mode = calling.get("mode")
    if mode is not None and mode not in _MODES:
        return _invalid(f"{where}.mode", "FunctionCallingConfig.Mode", mode)
    return _unknown(calling, _CALLING_KEYS, where)


def _thinking(config: Any) -> Rejection | None:
    thinking = _get(config, "thinkingConfig") if isinstance(config, dict) else None
    if isinstance(thinking, dict) and _get(thinking, "thinkingBudget") is not None:
        if _get(thinking, "thinkingLevel") is not None:
            return Rejection("You can only set only one of thinking budget and thinking level.")
    return None


# --- pairing -----------------------------------------------------------------------------------------------------


def _pairing(contents: list[dict[str, Any]]) -> Rejection | None:
    previous: dict[str, Any] | None = None
    for position, content in enumerate(contents):
        calls = _found(content, "functionCall") if content.get("role") == "model" else []
        asked = _found(previous, "functionCall") if previous and previous.get("role") == "model" else []
        if calls and previous is not None and previous.get("role") == "model":
            return Rejection(
                "Please ensure that function call turn comes immediately after a user turn or after a function "
                "response turn."
            )
        if content.get("role", "user") == "user":
            found = _answers(_found(content, "functionResponse"), asked, position)
            if found is not None:
                return found
        previous = content
    return None


def _answers(responses: list[dict[str, Any]], calls: list[dict[str, Any]], position: int) -> Rejection | None:
    if responses and not calls:
        return Rejection("Please ensure that function response turn comes immediately after a function call turn.")
    if len(responses) != len(calls):
        return Rejection(
            "Please ensure that the number of function response parts is equal to the number of function call parts "
            "of the function call turn."
        )
    left = Counter((call.get("name"), call.get("id")) for call in calls)
    for response in responses:
        key = _matching(response, left)
        if key is None:
            return Rejection(
                f"Please ensure that function response `{response.get('name')}` in the {position + 1}. content block "
                "answers a function call of the function call turn (same name, and same id when it has one)."
            )
        left[key] -= 1
    return None


def _matching(response: dict[str, Any], left: Counter[tuple[Any, Any]]) -> tuple[Any, Any] | None:
    """The call a response answers: by name, and by id when the response names one."""
    for (name, call_id), count in left.items():
        if count > 0 and name == response.get("name") and (response.get("id") in (None, call_id)):
            return name, call_id
    return None


def _found(content: dict[str, Any] | None, kind: str) -> list[dict[str, Any]]:
    parts = (content or {}).get("parts") or []
    return [value for part in parts if isinstance(value := _get(part, kind), dict)]


# --- wording -----------------------------------------------------------------------------------------------------


def _get(obj: dict[str, Any], camel: str) -> Any:
    """A proto field in either spelling the JSON parser takes."""
    return obj[camel] if camel in obj else obj.get(_snake(camel))


def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", camel).lower()


def _unknown(obj: dict[str, Any], known: tuple[str, ...], where: str | None) -> Rejection | None:
    names = set(known) | {_snake(key) for key in known}
    stray = next((key for key in obj if key not in names), None)
    if stray is None:
        return None
    at = f" at '{where}'" if where else ""
    return Rejection(f'Invalid JSON payload received. Unknown name "{stray}"{at}: Cannot find field.', param=where)


def _invalid(where: str, message_type: str | None, value: Any, type_name: str | None = None) -> Rejection:
    kind = type_name or f"{_PROTO}{message_type}"
    shown = json.dumps(value, ensure_ascii=False)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return Rejection(f"Invalid value at '{where}' ({kind}), {shown}", param=where)


def _field(where: str, problem: str) -> Rejection:
    """Google's wording for a field that fails a rule: ``* GenerateContentRequest.<path>: <problem>``."""
    return Rejection(f"* GenerateContentRequest.{where}: {problem}\n", param=where)
