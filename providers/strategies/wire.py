"""The structured strategy's response format on each wire format's request body.

The internal request holds it in OpenAI Chat's shape (``{"type": "json_schema", "json_schema": {"name", "strict",
"schema"}}``). The codecs translate conversations and tools and know nothing of response formats, so the format is
put on the body they produced, here, in the one shape each API documents:

* openai-chat: ``response_format`` as it is;
* openai-responses: ``text.format: {"type": "json_schema", "name", "schema", "strict"}``;
* anthropic: ``output_config.format: {"type": "json_schema", "schema"}`` (structured outputs; no ``name``/``strict``);
* gemini: ``generationConfig.responseMimeType: "application/json"`` + ``responseJsonSchema`` (full JSON Schema,
  ``$defs`` and ``anyOf`` included, unlike the OpenAPI-subset ``responseSchema``).
"""

from __future__ import annotations

import copy
from typing import Any


def apply_response_format(format: str, body: dict[str, Any], response_format: dict[str, Any]) -> list[str]:
    """Set the response format on ``body`` (in place); the notes say where it went."""
    spec = response_format.get("json_schema") or {}
    schema = copy.deepcopy(spec.get("schema") or {})
    name = str(spec.get("name") or "reply")
    if format == "openai-chat":
        body["response_format"] = copy.deepcopy(response_format)
        return ["response format sent as response_format (json_schema, strict)"]
    if format == "openai-responses":
        text = dict(body.get("text") or {})
        text["format"] = {"type": "json_schema", "name": name, "schema": schema, "strict": bool(spec.get("strict"))}
        body["text"] = text
        return ["response format sent as text.format (json_schema, strict)"]
    if format == "anthropic":
        config = dict(body.get("output_config") or {})
        config["format"] = {"type": "json_schema", "schema": schema}
        body["output_config"] = config
        return ["response format sent as output_config.format (json_schema)"]
    if format == "gemini":
        config = dict(body.get("generationConfig") or {})
        config.update({"responseMimeType": "application/json", "responseJsonSchema": schema})
        body["generationConfig"] = config
        return ["response format sent as generationConfig.responseMimeType + responseJsonSchema"]
    return [f"{format} has no known response format: the envelope is asked for in the prompt only"]


def read_response_format(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a request body asks the reply to follow, whichever of the four shapes holds it (the
    simulator reads requests with it): ``{"name", "schema", "strict"}``, or None."""
    chat = body.get("response_format")
    if isinstance(chat, dict) and chat.get("type") == "json_schema" and isinstance(chat.get("json_schema"), dict):
        spec = chat["json_schema"]
        return {"name": spec.get("name"), "schema": spec.get("schema"), "strict": spec.get("strict") is True}
    text = body.get("text")
    fmt = text.get("format") if isinstance(text, dict) else None
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        return {"name": fmt.get("name"), "schema": fmt.get("schema"), "strict": fmt.get("strict") is not False}
    for key in ("output_config", "output_format"):
        value = body.get(key)
        fmt = value.get("format") if key == "output_config" and isinstance(value, dict) else value
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            return {"name": None, "schema": fmt.get("schema"), "strict": True}
    config = body.get("generationConfig") or body.get("generation_config")
    if isinstance(config, dict):
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        if isinstance(schema, dict):
            return {"name": None, "schema": schema, "strict": False}
    return None
