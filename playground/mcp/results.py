"""An MCP ``CallToolResult`` as the internal tool result (pure: no Django, no I/O).

- text blocks become text parts;
- image blocks (and embedded image resources) become ``image_url`` parts holding a data URL, checked by their bytes
  as every image Crosswire takes in is (``playground.tools.images``); one that fails the check becomes a text part
  saying why, so the model learns an image was there;
- ``structuredContent`` becomes one text part of its JSON, unless a text block is already there: the spec asks
  servers to put the same result in a text block too (the SDK's ``MCPServer`` does, wrapping a plain return value as
  ``{"result": ...}``), and the model needs it once;
- audio, resource links and binary resources, which no provider takes in a tool result, become a line naming them;
- ``isError`` makes it an error result.

A result of text only is sent as one string (the common case every provider takes); with an image, as parts.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from playground.tools.content import Content
from playground.tools.images import ImageRefused, check_data_url
from playground.tools.results import ToolResult

Part = dict[str, Any]
NO_CONTENT = "(The tool returned no content.)"


def to_tool_result(result: types.CallToolResult, *, source: str, max_image_bytes: int) -> ToolResult:
    parts = [part for block in result.content for part in _block_parts(block, max_image_bytes)]
    structured = result.structured_content
    if structured is not None and not any(part["type"] == "text" for part in parts):
        parts.append(_text(json.dumps(structured, ensure_ascii=False, indent=2)))
    return ToolResult(_content(parts), bool(result.is_error), source)


def _content(parts: list[Part]) -> Content:
    if not parts:
        return NO_CONTENT
    if all(part["type"] == "text" for part in parts):
        return "\n".join(part["text"] for part in parts)
    return parts


def _text(text: str) -> Part:
    return {"type": "text", "text": text}


def _block_parts(block: types.ContentBlock, max_image_bytes: int) -> list[Part]:
    if isinstance(block, types.TextContent):
        return [_text(block.text)]
    if isinstance(block, types.ImageContent):
        return [_image(block.mime_type, block.data, max_image_bytes)]
    if isinstance(block, types.AudioContent):
        return [_text(f"[Audio ({block.mime_type}) left out: tool results to a model cannot hold audio.]")]
    if isinstance(block, types.ResourceLink):
        return [_text(f"[Resource link: {block.name} <{block.uri}>]")]
    if isinstance(block, types.EmbeddedResource):
        return [_resource(block.resource, max_image_bytes)]
    return [_text(f"[A {type(block).__name__} block left out: Crosswire cannot pass it to a model.]")]


def _resource(resource: types.TextResourceContents | types.BlobResourceContents, max_image_bytes: int) -> Part:
    if isinstance(resource, types.TextResourceContents):
        return _text(resource.text)
    mime = resource.mime_type or "application/octet-stream"
    if mime.startswith("image/"):
        return _image(mime, resource.blob, max_image_bytes)
    return _text(f"[Resource {resource.uri} ({mime}) left out: binary data other than images cannot be passed on.]")


def _image(mime_type: str, data: str, max_image_bytes: int) -> Part:
    try:
        image = check_data_url(f"data:{mime_type};base64,{data}", max_bytes=max_image_bytes, label="The image")
    except ImageRefused as exc:
        return _text(f"[An image from the MCP server was left out: {exc}]")
    return image.part()  # labelled with what its bytes are, whatever the server said
