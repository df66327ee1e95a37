"""What api.openai.com refuses in a ``/v1/responses`` body, checked on the raw wire request.

Messages, params and codes are the real API's (``input[2].call_id`` style params). Checked, first failure wins:

* ``model`` is required; ``input`` is a string or an array of objects; ``previous_response_id`` names a response
  the server stored (the simulator stores none: 400 ``previous_response_not_found``).
* Tools are flat: a function tool has its own ``name`` (the nested Chat shape is missing it), matching
  ``^[a-zA-Z0-9_-]+$`` with at most 64 characters. ``strict`` is on unless the tool says ``false``, and a strict
  schema needs ``additionalProperties: false`` and every property ``required``, at every object level.
* ``tool_choice`` is auto/none/required, or names a declared function; ``max_output_tokens`` is at least 16.
* Input items have a known type (a message by its role), their required fields, and message parts of known types;
  a ``function_call_output``'s ``output`` is a string or a list of ``input_text``/``input_image``/``input_file``
  parts (how a tool returns an image); an ``input_image`` has an http(s) or base64 image data URL (or a file id).
* Every ``function_call_output`` answers a ``function_call`` before it (on ``call_id``), and every
  ``function_call`` has its output.
* Reasoning items follow ``responses_reasoning``: followed by their item, encrypted content unchanged, stored.
"""

from __future__ import annotations

import re
from typing import Any

from providers.simulator.images import is_image_url
from providers.simulator.rejection import Rejection, rejected
from providers.simulator.responses_reasoning import check_reasoning
from providers.simulator.strict_openai import bad_image_url

_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
_MAX_NAME = 64
_MIN_OUTPUT_TOKENS = 16
_CHOICES = ("none", "auto", "required")
_ROLES = ("user", "assistant", "system", "developer")
_PART_TYPES = (
    "input_text",
    "input_image",
    "output_text",
    "refusal",
    "input_file",
    "computer_screenshot",
    "summary_text",
)
_OUTPUT_PART_TYPES = ("input_text", "input_image", "input_file")
_REQUIRED_FIELDS: dict[str, tuple[tuple[str, tuple[type, ...]], ...]] = {
    "function_call": (("call_id", (str,)), ("name", (str,)), ("arguments", (str,))),
    "function_call_output": (("call_id", (str,)), ("output", (str, list))),
    "reasoning": (("summary", (list,)),),
}
# Item types the simulator takes without reading (hosted tools): they ride along as the real API would keep them.
_OTHER_ITEMS = (
    "item_reference",
    "file_search_call",
    "web_search_call",
    "computer_call",
    "computer_call_output",
    "image_generation_call",
    "code_interpreter_call",
    "local_shell_call",
    "local_shell_call_output",
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "mcp_call",
    "custom_tool_call",
    "custom_tool_call_output",
)
_ITEM_TYPES = ("message", *_REQUIRED_FIELDS, *_OTHER_ITEMS)
_TOOL_TYPES = (
    "function",
    "file_search",
    "computer_use_preview",
    "web_search",
    "web_search_preview",
    "mcp",
    "code_interpreter",
    "image_generation",
    "local_shell",
    "custom",
)


def validate(body: dict[str, Any]) -> Rejection | None:
    items = body.get("input") if isinstance(body.get("input"), list) else []
    return (
        _required(body)
        or _tools(body.get("tools"))
        or _tool_choice(body.get("tool_choice"), body.get("tools"))
        or _output_tokens(body.get("max_output_tokens"))
        or _items(items)
        or _pairing(items)
        or check_reasoning(items, store=body.get("store"))
    )


# --- top level ---------------------------------------------------------------------------------------------------


def _required(body: dict[str, Any]) -> Rejection | None:
    if not isinstance(body.get("model"), str) or not body["model"]:
        return _missing("model")
    value = body.get("input")
    if value is None:
        return _missing("input")
    if not isinstance(value, str | list):
        return _invalid_type("input", "one of a string or array of input items", value)
    previous = body.get("previous_response_id")
    if previous is not None:
        # Nothing is stored here, so no earlier response can be continued: the client must send the history.
        return rejected(
            f"Previous response with id '{previous}' not found.",
            param="previous_response_id",
            code="previous_response_not_found",
        )
    return None


def _output_tokens(value: Any) -> Rejection | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        return _invalid_type("max_output_tokens", "an integer", value)
    if value < _MIN_OUTPUT_TOKENS:
        return rejected(
            f"Invalid 'max_output_tokens': integer below minimum value. Expected a value >= {_MIN_OUTPUT_TOKENS}, "
            f"but got {value} instead.",
            param="max_output_tokens",
            code="integer_below_min_value",
        )
    return None


# --- tools -------------------------------------------------------------------------------------------------------


def _tools(tools: Any) -> Rejection | None:
    if tools is None:
        return None
    if not isinstance(tools, list):
        return _invalid_type("tools", "an array", tools)
    for i, tool in enumerate(tools):
        where = f"tools[{i}]"
        if not isinstance(tool, dict):
            return _invalid_type(where, "an object", tool)
        if "type" not in tool:
            return _missing(f"{where}.type")
        if tool["type"] not in _TOOL_TYPES:
            return _invalid_value(f"{where}.type", tool["type"], _TOOL_TYPES)
        found = _function_tool(tool, where) if tool["type"] == "function" else None
        if found is not None:
            return found
    return None


def _function_tool(tool: dict[str, Any], where: str) -> Rejection | None:
    name = tool.get("name")
    if not isinstance(name, str):
        return _missing(f"{where}.name")  # also what a nested Chat-style {"function": {...}} tool gets
    if len(name) > _MAX_NAME:
        return rejected(
            f"Invalid '{where}.name': string too long. Expected a string with maximum length {_MAX_NAME}, but got a "
            f"string with length {len(name)} instead.",
            param=f"{where}.name",
            code="string_above_max_length",
        )
    if not _NAME.match(name):
        return rejected(
            f"Invalid '{where}.name': string does not match pattern. Expected a string that matches the pattern "
            f"'{_NAME.pattern}'.",
            param=f"{where}.name",
            code="invalid_value",
        )
    if tool.get("strict") is False or not isinstance(tool.get("parameters"), dict):
        return None
    problem = _strict_problem(tool["parameters"], ())
    if problem is None:
        return None
    return rejected(
        f"Invalid schema for function '{name}': {problem}",
        param=f"{where}.parameters",
        code="invalid_function_parameters",
    )


def _strict_problem(node: Any, context: tuple[str, ...]) -> str | None:
    """What strict mode refuses in a schema (None when it is fine), worded as the API words it."""
    if not isinstance(node, dict):
        return None
    if node.get("type") == "object" or "properties" in node:
        if node.get("additionalProperties") is not False:
            return f"In context={context!r}, 'additionalProperties' is required to be supplied and to be false."
        properties = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        required = node.get("required") if isinstance(node.get("required"), list) else []
        missing = [key for key in properties if key not in required]
        if missing:
            return (
                f"In context={context!r}, 'required' is required to be supplied and to be an array including every "
                f"key in properties. Missing '{missing[0]}'."
            )
    return _strict_children(node, context)


def _strict_children(node: dict[str, Any], context: tuple[str, ...]) -> str | None:
    children: list[tuple[tuple[str, ...], Any]] = []
    for key in ("properties", "$defs", "definitions"):
        if isinstance(node.get(key), dict):
            children += [((*context, key, name), sub) for name, sub in node[key].items()]
    if "items" in node:
        children.append(((*context, "items"), node["items"]))
    for key in ("anyOf", "allOf"):
        if isinstance(node.get(key), list):
            children += [((*context, key, str(i)), sub) for i, sub in enumerate(node[key])]
    for where, sub in children:
        problem = _strict_problem(sub, where)
        if problem is not None:
            return problem
    return None


def _tool_choice(choice: Any, tools: Any) -> Rejection | None:
    if choice is None:
        return None
    if isinstance(choice, str):
        return None if choice in _CHOICES else _invalid_value("tool_choice", choice, _CHOICES)
    if not isinstance(choice, dict) or choice.get("type") != "function":
        return None  # allowed_tools and hosted-tool choices: not the simulator's to judge
    if not isinstance(choice.get("name"), str):
        return _missing("tool_choice.name")
    declared = {t.get("name") for t in tools or [] if isinstance(t, dict) and t.get("type") == "function"}
    if choice["name"] not in declared:
        return rejected("Tool choice 'function' not found in 'tools' parameter.", param="tool_choice")
    return None


# --- input items -------------------------------------------------------------------------------------------------


def _items(items: list[Any]) -> Rejection | None:
    for i, item in enumerate(items):
        where = f"input[{i}]"
        if not isinstance(item, dict):
            return _invalid_type(where, "an object", item)
        kind = item.get("type", "message" if "role" in item else None)
        if kind is None:
            return _missing(f"{where}.type")
        if kind not in _ITEM_TYPES:
            return _invalid_value(f"{where}.type", kind, _ITEM_TYPES)
        found = _message(item, where) if kind == "message" else _fields(item, where, kind)
        if found is None and kind == "function_call_output" and isinstance(item["output"], list):
            found = _parts(item["output"], f"{where}.output", _OUTPUT_PART_TYPES)
        if found is not None:
            return found
    return None


def _message(item: dict[str, Any], where: str) -> Rejection | None:
    if item.get("role") not in _ROLES:
        return _invalid_value(f"{where}.role", item.get("role"), _ROLES)
    if "content" not in item:
        return _missing(f"{where}.content")
    content = item["content"]
    if isinstance(content, str):
        return None
    if not isinstance(content, list):
        return _invalid_type(f"{where}.content", "one of a string or array of input content parts", content)
    return _parts(content, f"{where}.content", _PART_TYPES)


def _parts(parts: list[Any], where: str, types: tuple[str, ...]) -> Rejection | None:
    for j, part in enumerate(parts):
        at = f"{where}[{j}]"
        if not isinstance(part, dict):
            return _invalid_type(at, "an object", part)
        if part.get("type") not in types:
            return _invalid_value(f"{at}.type", part.get("type"), types)
        if part["type"] == "input_image":
            found = _input_image(part, at)
            if found is not None:
                return found
    return None


def _input_image(part: dict[str, Any], at: str) -> Rejection | None:
    url = part.get("image_url")
    if url is None and not isinstance(part.get("file_id"), str):
        return _missing(f"{at}.image_url")
    if url is not None and not is_image_url(url):
        return bad_image_url(f"{at}.image_url")
    return None


def _fields(item: dict[str, Any], where: str, kind: str) -> Rejection | None:
    for key, expected in _REQUIRED_FIELDS.get(kind, ()):
        if key not in item or item[key] is None:
            return _missing(f"{where}.{key}")
        if not isinstance(item[key], expected):
            return _invalid_type(f"{where}.{key}", " or ".join(_TYPE_NAMES[t] for t in expected), item[key])
    return None


def _pairing(items: list[Any]) -> Rejection | None:
    called: list[str] = []  # call_ids of the function_call items so far, in order
    answered: set[str] = set()
    for item in items:
        kind = item.get("type")
        if kind == "function_call":
            called.append(item["call_id"])
        elif kind == "function_call_output":
            if item["call_id"] not in called:
                return rejected(
                    f"No tool call found for function call output with call_id {item['call_id']}.", param="input"
                )
            answered.add(item["call_id"])
    unanswered = [call_id for call_id in called if call_id not in answered]
    if unanswered:
        return rejected(f"No tool output found for function call {unanswered[0]}.", param="input")
    return None


# --- wording -----------------------------------------------------------------------------------------------------

_TYPE_NAMES = {str: "a string", list: "an array"}


def _missing(where: str) -> Rejection:
    return rejected(f"Missing required parameter: '{where}'.", param=where, code="missing_required_parameter")


def _invalid_type(where: str, expected: str, value: Any) -> Rejection:
    return rejected(
        f"Invalid type for '{where}': expected {expected}, but got {_json_type(value)} instead.",
        param=where,
        code="invalid_type",
    )


def _invalid_value(where: str, value: Any, supported: tuple[str, ...]) -> Rejection:
    listed = ", ".join(f"'{v}'" for v in supported[:-1]) + f", and '{supported[-1]}'"
    return rejected(f"Invalid value: '{value}'. Supported values are: {listed}.", param=where, code="invalid_value")


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", int: "an integer", float: "a decimal"}
    return "a boolean" if isinstance(value, bool) else names.get(type(value), "null")
