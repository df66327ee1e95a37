"""MCP tool results as internal tool results: pure mapping, CallToolResult in, ToolResult out."""

from __future__ import annotations

import base64
import json

import mcp_types as types

from playground.mcp.results import NO_CONTENT, to_tool_result
from playground.tools.results import ToolResult

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="
)
PNG_B64 = base64.b64encode(PNG).decode()


def mapped(*blocks: types.ContentBlock, structured: dict[str, object] | None = None, error: bool = False) -> ToolResult:
    result = types.CallToolResult(content=list(blocks), structured_content=structured, is_error=error)
    return to_tool_result(result, source="mcp:test", max_image_bytes=1024)


def test_text_blocks_become_one_string() -> None:
    result = mapped(types.TextContent(type="text", text="one"), types.TextContent(type="text", text="two"))
    assert result == ToolResult("one\ntwo", False, "mcp:test")


def test_an_image_makes_the_result_content_parts_in_order() -> None:
    result = mapped(
        types.TextContent(type="text", text="A chart:"),
        types.ImageContent(type="image", data=PNG_B64, mime_type="image/png"),
    )
    assert result.content == [
        {"type": "text", "text": "A chart:"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_B64}"}},
    ]


def test_an_image_is_labelled_by_its_bytes_not_by_what_the_server_says() -> None:
    result = mapped(types.ImageContent(type="image", data=PNG_B64, mime_type="image/jpeg"))
    assert result.content == [{"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_B64}"}}]


def test_an_image_that_is_none_or_too_big_is_named_instead_of_sent() -> None:
    not_an_image = base64.b64encode(b"<svg onload=alert(1)>").decode()
    big = base64.b64encode(PNG + b"\0" * 2000).decode()
    result = mapped(
        types.ImageContent(type="image", data=not_an_image, mime_type="image/svg+xml"),
        types.ImageContent(type="image", data=big, mime_type="image/png"),
    )
    assert result.content == (
        "[An image from the MCP server was left out: The image is not a PNG, JPEG, WebP or GIF image (its bytes say "
        "so, whatever its name).]\n"
        "[An image from the MCP server was left out: The image is 3 KiB; the limit is 1 KiB per image.]"
    )


def test_structured_content_alone_becomes_its_json() -> None:
    result = mapped(structured={"city": "Paris", "temperature_c": 21})
    assert isinstance(result.content, str)
    assert json.loads(result.content) == {"city": "Paris", "temperature_c": 21}


def test_structured_content_beside_a_text_block_is_not_sent_twice() -> None:
    result = mapped(types.TextContent(type="text", text='{"total": 3}'), structured={"total": 3})
    assert result.content == '{"total": 3}'


def test_is_error_makes_an_error_result() -> None:
    result = mapped(types.TextContent(type="text", text="No such city."), error=True)
    assert result == ToolResult("No such city.", True, "mcp:test")


def test_no_content_at_all_says_so() -> None:
    assert mapped().content == NO_CONTENT


def test_what_no_provider_takes_is_named_in_a_line() -> None:
    result = mapped(
        types.AudioContent(type="audio", data="AAAA", mime_type="audio/wav"),
        types.ResourceLink(type="resource_link", name="report", uri="file:///tmp/report.pdf"),
        types.EmbeddedResource(
            type="resource",
            resource=types.BlobResourceContents(uri="file:///tmp/a.bin", mime_type="application/zip", blob="AAAA"),
        ),
    )
    assert result.content == (
        "[Audio (audio/wav) left out: tool results to a model cannot hold audio.]\n"
        "[Resource link: report <file:///tmp/report.pdf>]\n"
        "[Resource file:///tmp/a.bin (application/zip) left out: binary data other than images cannot be passed on.]"
    )


def test_embedded_text_and_image_resources_are_passed_on() -> None:
    result = mapped(
        types.EmbeddedResource(
            type="resource", resource=types.TextResourceContents(uri="file:///notes.txt", text="Notes.")
        ),
        types.EmbeddedResource(
            type="resource",
            resource=types.BlobResourceContents(uri="file:///p.png", mime_type="image/png", blob=PNG_B64),
        ),
    )
    assert result.content == [
        {"type": "text", "text": "Notes."},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_B64}"}},
    ]
