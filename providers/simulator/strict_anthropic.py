"""What api.anthropic.com refuses in a ``/v1/messages`` body, checked on the raw wire request.

Messages are the real API's (``messages.1.content.0...`` paths, its spelling "preceeding" included). Checked,
first failure wins:

* ``model``, ``max_tokens`` and ``messages`` are required; roles are ``user``/``assistant`` (a ``system`` message
  gets the API's pointer to the top-level ``system`` parameter).
* Tool names match ``^[a-zA-Z0-9_-]{1,128}$``; ``tool_use``/``tool_result`` ids match ``^[a-zA-Z0-9_-]+$``.
* No empty message content, no empty (or whitespace-only) text block.
* ``image`` blocks, in a message or inside a ``tool_result``'s content (text and image blocks, how a tool returns
  an image), have a base64 source of a JPEG/PNG/GIF/WebP media type whose data decodes, or a url source.
* Every ``tool_use`` is answered by a ``tool_result`` in the very next (user) message, and the results come first
  in it; a ``tool_result`` answers a ``tool_use`` of the message right before.
* Thinking blocks carry the signature the simulator gave them (an HMAC of the thinking text), unchanged.
* With ``thinking`` enabled: ``budget_tokens`` >= 1024 and < ``max_tokens``; ``tool_choice`` may not force a tool;
  the final assistant message of a tool loop starts with its thinking block.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from typing import Any

from providers.simulator.images import decoded_size
from providers.simulator.rejection import Rejection, rejected

_SIGNING_KEY = b"crosswire-simulator-thinking-v1"  # fixed: signatures must verify across restarts
_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
_CHOICES = ("auto", "any", "tool", "none")
_IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
_SOURCES = ("base64", "file", "url")
_RESULT_BLOCKS = ("document", "image", "search_result", "text")  # what a tool_result's content list may hold
_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"


def thinking_signature(thinking: str) -> str:
    return base64.b64encode(hmac.new(_SIGNING_KEY, thinking.encode(), hashlib.sha256).digest()).decode()


def validate(body: dict[str, Any]) -> Rejection | None:
    return (
        _required(body)
        or _tools(body.get("tools"))
        or _tool_choice(body.get("tool_choice"))
        or _roles(body["messages"])
        or _content(body["messages"])
        or _tool_pairing(body["messages"])
        or _signatures(body["messages"])
        or _thinking(body)
    )


def _required(body: dict[str, Any]) -> Rejection | None:
    for key in ("model", "max_tokens", "messages"):
        if key not in body:
            return rejected(f"{key}: Field required")
    if not isinstance(body["messages"], list):
        return rejected("messages: Input should be a valid list")
    if not body["messages"]:
        return rejected("messages: at least one message is required")
    if not isinstance(body["max_tokens"], int) or isinstance(body["max_tokens"], bool) or body["max_tokens"] < 1:
        return rejected("max_tokens: Input should be greater than or equal to 1")
    return None


def _tool_choice(choice: Any) -> Rejection | None:
    if isinstance(choice, dict) and choice.get("type") == "tool" and not choice.get("name"):
        return rejected("tool_choice.tool.name: Field required")
    if choice is None or (isinstance(choice, dict) and choice.get("type") in _CHOICES):
        return None
    tag = choice.get("type") if isinstance(choice, dict) else choice
    expected = ", ".join(f"'{c}'" for c in _CHOICES)
    return rejected(
        f"tool_choice: Input tag '{tag}' found using 'type' does not match any of the expected tags: {expected}"
    )


def _tools(tools: Any) -> Rejection | None:
    for i, tool in enumerate(tools or []):
        if not isinstance(tool, dict) or ("type" in tool and tool["type"] not in ("custom", None)):
            continue  # server tools (web_search...) have their own shapes
        if not _TOOL_NAME.match(str(tool.get("name", ""))):
            return rejected(f"tools.{i}.custom.name: String should match pattern '{_TOOL_NAME.pattern}'")
        if "input_schema" not in tool:
            return rejected(f"tools.{i}.custom.input_schema: Field required")
    return None


def _roles(messages: list[Any]) -> Rejection | None:
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "system":
            return rejected(
                'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, '
                'not "system" as an input message role.'
            )
        if role not in ("user", "assistant"):
            return rejected(f"messages.{i}.role: Input should be 'user' or 'assistant'")
    return None


def _content(messages: list[Any]) -> Rejection | None:
    for i, message in enumerate(messages):
        if "content" not in message:
            return rejected(f"messages.{i}.content: Field required")
        content = message["content"]
        final_assistant = i == len(messages) - 1 and message["role"] == "assistant"
        if (content == "" or content == []) and not final_assistant:
            return rejected(
                f"messages.{i}: all messages must have non-empty content except for the optional final assistant "
                "message"
            )
        if not isinstance(content, (str, list)):
            return rejected(f"messages.{i}.content: Input should be a valid list")
        for j, block in enumerate(content if isinstance(content, list) else []):
            where = f"messages.{i}.content.{j}"
            found = _block(block, where) or _bad_id(block, where) or _result_content(block, where)
            if found:
                return found
    return None


def _block(block: Any, where: str) -> Rejection | None:
    """One block's shape, its text non-empty, its image readable."""
    shape = _block_shape(block, where)
    if shape is not None:
        return shape
    if block.get("type") == "text":
        text = block.get("text")
        if text == "":
            return rejected("messages: text content blocks must be non-empty")
        if isinstance(text, str) and not text.strip():
            return rejected("messages: text content blocks must contain non-whitespace text")
    if block.get("type") == "image":
        return _image(block, where)
    return None


def _result_content(block: dict[str, Any], where: str) -> Rejection | None:
    """A tool_result's content list: text and image blocks (documents, search results), each checked as above."""
    content = block.get("content") if block.get("type") == "tool_result" else None
    for k, inner in enumerate(content if isinstance(content, list) else []):
        at = f"{where}.tool_result.content.{k}"
        kind = inner.get("type") if isinstance(inner, dict) else None
        if isinstance(kind, str) and kind not in _RESULT_BLOCKS:
            return rejected(f"{at}: {_tag_mismatch(kind, _RESULT_BLOCKS)}")
        found = _block(inner, at)
        if found is not None:
            return found
    return None


def _image(block: dict[str, Any], where: str) -> Rejection | None:
    """The source of an image block (the data itself is never quoted back: it can be megabytes)."""
    source = block.get("source")
    if not isinstance(source, dict):
        return rejected(f"{where}.image.source: Field required")
    kind = source.get("type")
    if kind not in _SOURCES:
        return rejected(f"{where}.image.source: {_tag_mismatch(kind, _SOURCES)}")
    at = f"{where}.image.source.{kind}"
    if kind == "base64":
        if source.get("media_type") not in _IMAGE_TYPES:
            return rejected(f"{at}.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'")
        if not isinstance(source.get("data"), str):
            return rejected(f"{at}.data: Field required")
        if decoded_size(source["data"]) is None:
            return rejected(f"{at}.data: The image data is not valid base64")
    if kind == "url" and not isinstance(source.get("url"), str):
        return rejected(f"{at}.url: Field required")
    return None


def _tag_mismatch(tag: Any, expected: tuple[str, ...]) -> str:
    listed = ", ".join(f"'{name}'" for name in expected)
    return f"Input tag '{tag}' found using 'type' does not match any of the expected tags: {listed}"


_BLOCK_FIELDS: dict[str, tuple[tuple[str, type], ...]] = {
    "text": (("text", str),),
    "tool_use": (("id", str), ("name", str), ("input", dict)),
    "tool_result": (("tool_use_id", str),),
    "thinking": (("thinking", str),),
    "redacted_thinking": (("data", str),),
}


def _block_shape(block: Any, where: str) -> Rejection | None:
    if not isinstance(block, dict):
        return rejected(f"{where}: Input should be a valid dictionary or object to extract fields from")
    kind = block.get("type")
    if not isinstance(kind, str):
        return rejected(f"{where}: Unable to extract tag using discriminator 'type'")
    for key, expected in _BLOCK_FIELDS.get(kind, ()):
        if key not in block:
            return rejected(f"{where}.{kind}.{key}: Field required")
        if not isinstance(block[key], expected):
            noun = "string" if expected is str else "dictionary"
            return rejected(f"{where}.{kind}.{key}: Input should be a valid {noun}")
    return None


def _bad_id(block: Any, where: str) -> Rejection | None:
    if not isinstance(block, dict):
        return None
    key = {"tool_use": "id", "tool_result": "tool_use_id"}.get(str(block.get("type")))
    if key and not _ID.match(str(block.get(key, ""))):
        return rejected(f"{where}.{block['type']}.{key}: String should match pattern '{_ID.pattern}'")
    return None


def _tool_pairing(messages: list[Any]) -> Rejection | None:
    for i, message in enumerate(messages):
        used = _block_ids(message, "tool_use", "id")
        answered = _block_ids(message, "tool_result", "tool_use_id")
        if answered:
            previous = _block_ids(messages[i - 1], "tool_use", "id") if i > 0 else []
            stray = [x for x in answered if x not in previous]
            if stray:
                j = _blocks(message).index(next(b for b in _blocks(message) if b.get("tool_use_id") == stray[0]))
                return rejected(
                    f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                    f"{', '.join(stray)}. Each `tool_result` block must have a corresponding `tool_use` block in the "
                    "previous message."
                )
        if used:
            found = _answered_next(messages, i, used)
            if found:
                return found
    return None


def _answered_next(messages: list[Any], i: int, used: list[str]) -> Rejection | None:
    following = messages[i + 1] if i + 1 < len(messages) else {}
    answered = _block_ids(following, "tool_result", "tool_use_id")
    missing = [x for x in used if x not in answered]
    if missing:
        return rejected(
            f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
            f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block in the next "
            "message."
        )
    leading = 0
    for block in _blocks(following):
        if block.get("type") != "tool_result":
            break
        leading += 1
    if leading < len(used):
        return rejected(
            f"messages.{i + 1}: Did not find {len(used) - leading} `tool_result` block(s) at the beginning of this "
            "message. Messages following `tool_use` blocks must begin with a matching number of `tool_result` "
            "blocks."
        )
    return None


def _signatures(messages: list[Any]) -> Rejection | None:
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        for j, block in enumerate(_blocks(message)):
            if block.get("type") != "thinking":
                continue
            if "signature" not in block:
                return rejected(f"messages.{i}.content.{j}.thinking.signature: Field required")
            thinking = block.get("thinking")
            signature = block.get("signature")
            if (
                not isinstance(thinking, str)
                or not isinstance(signature, str)
                or not hmac.compare_digest(signature.encode(), thinking_signature(thinking).encode())
            ):
                return rejected(f"messages.{i}.content.{j}: Invalid `signature` in `thinking` block")
    return None


def _thinking(body: dict[str, Any]) -> Rejection | None:
    thinking = body.get("thinking")
    if not isinstance(thinking, dict) or thinking.get("type") not in ("enabled", "adaptive"):
        return None
    if thinking["type"] == "enabled":
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024:
            return rejected("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
        if body["max_tokens"] <= budget:
            return rejected(
                f"`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at "
                f"{_DOCS}#max-tokens-and-context-window-size"
            )
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("any", "tool"):
        return rejected("Thinking may not be enabled when tool_choice forces tool use.")
    return _thinking_first(body["messages"])


def _thinking_first(messages: list[Any]) -> Rejection | None:
    """In a tool loop (the last message returns tool results) the assistant turn must open with its thinking."""
    if not messages or not _block_ids(messages[-1], "tool_result", "tool_use_id"):
        return None
    i = max((k for k, m in enumerate(messages) if m["role"] == "assistant"), default=-1)
    blocks = _blocks(messages[i]) if i >= 0 else []
    if not blocks or blocks[0].get("type") in ("thinking", "redacted_thinking"):
        return None
    return rejected(
        f"messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
        f"`{blocks[0].get('type')}`. "
        "When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the "
        "lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous "
        f"turns. To avoid this requirement, disable `thinking`. Please consult our documentation at {_DOCS}"
    )


def _blocks(message: Any) -> list[dict[str, Any]]:
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _block_ids(message: Any, kind: str, key: str) -> list[str]:
    return [str(b.get(key)) for b in _blocks(message) if b.get("type") == kind]
