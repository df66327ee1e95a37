"""Images as Crosswire takes them in: ``data:`` URLs whose bytes are checked, not their labels.

A person attaches an image to a message, or types one into a canned answer; either way it travels in the internal
format as an ``image_url`` content part holding a base64 data URL. What the browser or the person says the media type
is counts for nothing: the first bytes of the decoded payload tell PNG, JPEG, WebP and GIF apart (the four types
every provider takes), and anything else is refused before it is saved or sent. Each refusal is a sentence a person
can act on, and never quotes the base64 itself.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from dataclasses import dataclass
from typing import Any

ACCEPTED = {"image/png": "PNG", "image/jpeg": "JPEG", "image/webp": "WebP", "image/gif": "GIF"}
_DATA_URL = re.compile(r"^data:(?P<media>[^;,]*)(?:;[^;,]*)*;base64,(?P<data>.*)$", re.DOTALL | re.IGNORECASE)


class ImageRefused(ValueError):
    """An image that cannot be taken; ``str()`` says why in plain words."""


@dataclass(frozen=True)
class CheckedImage:
    media_type: str  # what the bytes are
    declared: str  # what the data URL said they are
    size: int  # decoded bytes
    url: str  # the data URL, labelled with the media type the bytes have

    def part(self) -> dict[str, Any]:
        return {"type": "image_url", "image_url": {"url": self.url}}


def sniff(head: bytes) -> str | None:
    """The media type the first bytes of a file show, among the accepted ones; None for anything else."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def human_size(size: int) -> str:
    """``70 B``, ``12 KiB``, ``5.0 MiB``: how the chat words sizes, here and in the page."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{math.ceil(size / 1024)} KiB"
    return f"{size / (1024 * 1024):.1f} MiB"


def check_data_url(url: Any, *, max_bytes: int, label: str = "The image") -> CheckedImage:
    """A base64 image data URL within ``max_bytes`` decoded, of an accepted type by its bytes, else ImageRefused."""
    match = _DATA_URL.match(url) if isinstance(url, str) else None
    if match is None:
        raise ImageRefused(f"{label} is not a data URL of base64 image bytes (data:image/png;base64,…).")
    data = match["data"]
    # Refused before decoding: a payload past the limit costs nothing to turn away.
    if (estimate := decoded_size(data)) > max_bytes:
        raise ImageRefused(_too_big(label, estimate, max_bytes))
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ImageRefused(f"{label} could not be read: its data is not valid base64.") from None
    if len(raw) > max_bytes:
        raise ImageRefused(_too_big(label, len(raw), max_bytes))
    media_type = sniff(raw[:16])
    if media_type is None:
        raise ImageRefused(f"{label} is not a PNG, JPEG, WebP or GIF image (its bytes say so, whatever its name).")
    return CheckedImage(media_type, match["media"].lower(), len(raw), f"data:{media_type};base64,{data}")


def decoded_size(data: str) -> int:
    """The bytes a base64 string decodes to, counted without decoding it (exact for valid base64)."""
    return max(0, len(data) * 3 // 4 - data[-2:].count("="))


def _too_big(label: str, size: int, limit: int) -> str:
    return f"{label} is {human_size(size)}; the limit is {human_size(limit)} per image."


@dataclass(frozen=True)
class ImageView:
    """An image of a saved message, for a template: its URL and a short label, never the base64 as text."""

    url: str
    media_type: str
    label: str
    inline: bool  # a data URL the page may show; a linked image (http...) is only named, the CSP loads none


def image_views(content: Any) -> list[ImageView]:
    """The images among internal content parts (a string holds none), in order."""
    if not isinstance(content, list):
        return []
    urls = [_part_url(part) for part in content if isinstance(part, dict) and part.get("type") == "image_url"]
    return [_view(url) for url in urls if url]


def _part_url(part: dict[str, Any]) -> str:
    value = part.get("image_url")
    url = value.get("url") if isinstance(value, dict) else value
    return url if isinstance(url, str) else ""


def _view(url: str) -> ImageView:
    match = _DATA_URL.match(url)
    if match is None:
        # Only a web address becomes a link: an imported conversation could hold a javascript: "image".
        link = url if url.lower().startswith(("https://", "http://")) else ""
        return ImageView(link, "image", f"linked image · {url[:80]}", inline=False)
    media_type = match["media"].lower() or "application/octet-stream"
    data = match["data"]
    size = decoded_size(data)
    inline = media_type in ACCEPTED  # an SVG could script; anything else is no image a page should draw
    return ImageView(url if inline else "", media_type, f"{media_type} · {human_size(size)}", inline=inline)
