"""What api.openai.com refuses in a ``/v1/chat/completions`` body, checked on the raw wire request.

Messages and params are the real API's (``messages.[2].role`` style params included, and its spelling
"preceeding"). Checked, first failure wins, in the order the API reports them:

* ``model`` and a non-empty ``messages`` array are required; roles are the known ones.
* Tool names match ``^[a-zA-Z0-9_-]+$`` and have at most 64 characters; ``tool_choice`` and
  ``parallel_tool_calls`` need ``tools``; a named ``tool_choice`` names a declared tool; ``stream_options`` needs
  ``stream``.
* ``content: null`` (or no content) only on an assistant message that has ``tool_calls``.
* Images (``image_url`` parts) only in user messages (a tool result's image goes in a user message after the tool
  messages); an image URL is http(s) or a base64 image data URL that decodes.
* Tool call ids have at most 40 characters.
* A ``tool`` message answers a call of the assistant message right before it (other tool messages aside), and
  every call is answered before the next non-tool message.
* DeepSeek (``sim-deepseek``) also wants the ``reasoning_content`` of the current turn's tool-calling assistant
  messages back.
"""

from __future__ import annotations

import re
from typing import Any

from providers.simulator.images import is_image_url
from providers.simulator.rejection import Rejection, rejected

_ROLES = ("system", "assistant", "user", "function", "tool", "developer")
_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
_MAX_NAME = 64
_MAX_ID = 40
_CHOICES = ("none", "auto", "required")


def validate(body: dict[str, Any], *, wants_reasoning_back: bool = False) -> Rejection | None:
    messages = body.get("messages")
    return (
        _required(body)
        or _tools(body)
        or _options(body)
        or _roles_and_content(messages)
        or _images(messages)
        or _call_ids(messages)
        or _tool_pairing(messages)
        or (_reasoning_echo(messages) if wants_reasoning_back else None)
    )


def _required(body: dict[str, Any]) -> Rejection | None:
    if not isinstance(body.get("model"), str) or not body["model"]:
        return rejected("you must provide a model parameter")
    messages = body.get("messages")
    if messages is None:
        return _missing("messages")
    if not isinstance(messages, list):
        return rejected(
            f"Invalid type for 'messages': expected an array, but got {_json_type(messages)} instead.",
            param="messages",
            code="invalid_type",
        )
    if not messages:
        return rejected(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
            param="messages",
            code="empty_array",
        )
    return None


def _tools(body: dict[str, Any]) -> Rejection | None:
    tools = body.get("tools")
    if tools is None:
        return None
    if not isinstance(tools, list):
        return rejected("Invalid type for 'tools': expected an array.", param="tools", code="invalid_type")
    for i, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        where = f"tools[{i}].function.name"
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            return _missing(where)
        name = function["name"]
        if len(name) > _MAX_NAME:
            return rejected(_too_long(where, _MAX_NAME, len(name)), param=where, code="string_above_max_length")
        if not _NAME.match(name):
            return rejected(
                f"Invalid '{where}': string does not match pattern. Expected a string that matches the pattern "
                f"'{_NAME.pattern}'.",
                param=where,
                code="invalid_value",
            )
    return None


def _options(body: dict[str, Any]) -> Rejection | None:
    tools = body.get("tools") or []
    for key in ("tool_choice", "parallel_tool_calls"):
        if key in body and body[key] is not None and not tools:
            return rejected(
                f"Invalid value for '{key}': '{key}' is only allowed when 'tools' are specified.", param=key
            )
    choice = body.get("tool_choice")
    if isinstance(choice, str) and choice not in _CHOICES:
        return rejected(
            f"Invalid value: '{choice}'. Supported values are: 'none', 'auto', and 'required'.",
            param="tool_choice",
            code="invalid_value",
        )
    if isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name") if isinstance(choice.get("function"), dict) else None
        declared = {t.get("function", {}).get("name") for t in tools if isinstance(t, dict)}
        if name not in declared:
            return rejected(
                f"Invalid value for 'tool_choice': function '{name}' is not one of the functions in 'tools'.",
                param="tool_choice",
                code="invalid_value",
            )
    if body.get("stream_options") is not None and not body.get("stream"):
        return rejected(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.", param="stream_options"
        )
    return None


def _roles_and_content(messages: list[Any]) -> Rejection | None:
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            return rejected(f"Invalid type for 'messages[{i}]': expected an object.", param=f"messages[{i}]")
        role = message.get("role")
        if role not in _ROLES:
            supported = ", ".join(f"'{r}'" for r in _ROLES[:-1]) + f", and '{_ROLES[-1]}'"
            return rejected(
                f"Invalid value: '{role}'. Supported values are: {supported}.",
                param=f"messages[{i}].role",
                code="invalid_value",
            )
        shape = _message_shape(message, i)
        if shape is not None:
            return shape
        if role == "assistant" and message.get("tool_calls"):
            continue
        if "content" not in message:
            return _missing(f"messages[{i}].content")
        if message["content"] is None:
            return rejected(
                "Invalid value for 'content': expected a string, got null.", param=f"messages.[{i}].content"
            )
    return None


def _message_shape(message: dict[str, Any], i: int) -> Rejection | None:
    content = message.get("content")
    if not (content is None or isinstance(content, str) or _objects(content)):
        return _invalid_type(f"messages[{i}].content", "one of a string or array of objects", content)
    if message["role"] == "tool" and not isinstance(message.get("tool_call_id"), str):
        return _missing(f"messages[{i}].tool_call_id")
    calls = message.get("tool_calls")
    if calls is None:
        return None
    if not _objects(calls):
        return _invalid_type(f"messages[{i}].tool_calls", "an array of objects", calls)
    for j, call in enumerate(calls):
        where = f"messages[{i}].tool_calls[{j}]"
        function = call.get("function")
        if not isinstance(call.get("id"), str):
            return _missing(f"{where}.id")
        if not isinstance(function, dict):
            return _missing(f"{where}.function")
        for key in ("name", "arguments"):
            if not isinstance(function.get(key), str):
                return _missing(f"{where}.function.{key}")
    return None


def _images(messages: list[Any]) -> Rejection | None:
    for i, message in enumerate(messages):
        content = message.get("content")
        for j, part in enumerate(content if isinstance(content, list) else []):
            if part.get("type") != "image_url":
                continue
            if message["role"] != "user":
                return rejected(
                    f"Invalid 'messages[{i}]'. Image URLs are only allowed for messages with role 'user', but this "
                    f"message with role '{message['role']}' contains an image URL.",
                    param=f"messages.[{i}].content",
                )
            image = part.get("image_url")
            where = f"messages[{i}].content[{j}].image_url.url"
            if not isinstance(image, dict) or not isinstance(image.get("url"), str):
                return _missing(where)
            if not is_image_url(image["url"]):
                return bad_image_url(where)
    return None


def bad_image_url(where: str) -> Rejection:
    """OpenAI's words for an image URL it cannot use (the value itself is not repeated: it can be megabytes)."""
    return rejected(
        f"Invalid '{where}'. Expected a base64-encoded data URL with an image MIME type (e.g. "
        "'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a value with an invalid format.",
        param=where,
        code="invalid_value",
    )


def _objects(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


def _missing(where: str) -> Rejection:
    return rejected(f"Missing required parameter: '{where}'.", param=where, code="missing_required_parameter")


def _invalid_type(where: str, expected: str, value: Any) -> Rejection:
    return rejected(
        f"Invalid type for '{where}': expected {expected}, but got {_json_type(value)} instead.",
        param=where,
        code="invalid_type",
    )


def _call_ids(messages: list[Any]) -> Rejection | None:
    for i, message in enumerate(messages):
        for j, call in enumerate(message.get("tool_calls") or []):
            call_id = call.get("id") if isinstance(call, dict) else None
            if isinstance(call_id, str) and len(call_id) > _MAX_ID:
                where = f"messages[{i}].tool_calls[{j}].id"
                return rejected(_too_long(where, _MAX_ID, len(call_id)), param=where, code="string_above_max_length")
    return None


def _tool_pairing(messages: list[Any]) -> Rejection | None:
    open_ids: list[str] = []  # calls of the last assistant message still waiting for their tool message
    owner = -1  # index of that assistant message
    for i, message in enumerate(messages):
        if message.get("role") == "tool":
            if owner < 0:
                return rejected(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
                    "'tool_calls'.",
                    param=f"messages.[{i}].role",
                )
            call_id = message.get("tool_call_id")
            if call_id not in open_ids and call_id not in _ids(messages[owner]):
                return rejected(
                    f"Invalid parameter: 'tool_call_id' of '{call_id}' not found in 'tool_calls' of previous message.",
                    param=f"messages.[{i}].tool_call_id",
                )
            open_ids = [x for x in open_ids if x != call_id]
            continue
        if open_ids:
            return _unanswered(owner, open_ids)
        owner, open_ids = (i, _ids(message)) if message.get("tool_calls") else (-1, [])
    return _unanswered(owner, open_ids) if open_ids else None


def _reasoning_echo(messages: list[Any]) -> Rejection | None:
    """DeepSeek thinking mode: within the current tool loop the assistant's reasoning must come back."""
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    for i in range(last_user + 1, len(messages)):
        message = messages[i]
        if message.get("role") == "assistant" and message.get("tool_calls") and "reasoning_content" not in message:
            return rejected(f"Missing `reasoning_content` field in the assistant message at message index {i}")
    return None


def _unanswered(owner: int, open_ids: list[str]) -> Rejection:
    return rejected(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        f"'tool_call_id'. The following tool_call_ids did not have response messages: {', '.join(open_ids)}",
        param=f"messages.[{owner}].role",
    )


def _ids(message: dict[str, Any]) -> list[str]:
    return [c.get("id") for c in message.get("tool_calls") or [] if isinstance(c, dict) and c.get("id")]


def _too_long(where: str, limit: int, length: int) -> str:
    return (
        f"Invalid '{where}': string too long. Expected a string with maximum length {limit}, but got a string with "
        f"length {length} instead."
    )


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", int: "an integer", float: "a decimal"}
    return "a boolean" if isinstance(value, bool) else names.get(type(value), "null")
