"""Images as the scripted model sees them, and the data-URL checks the strict validators share.

The model reads internal ``image_url`` parts: a data URL is an image of a media type and a decoded size; any other
URL is an image linked from a host. Neither a reply nor an error message ever quotes the base64 itself: a payload
can be megabytes, and a reply saying "1 image (image/png, 68 bytes)" shows it was read.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

_DATA_URL = re.compile(r"^data:(?P<media>[^;,]+);base64,(?P<data>.*)$", re.DOTALL)


@dataclass(frozen=True)
class Image:
    media_type: str
    size: int | None  # decoded bytes of a data URL; None for a linked image
    host: str = ""  # where a linked image lives

    def describe(self) -> str:
        if self.size is None:
            return f"{self.media_type}, linked from {self.host or 'a URL'}"
        return f"{self.media_type}, {self.size} bytes"


def decoded_size(data: Any) -> int | None:
    """Bytes in a base64 string; None when it is not valid base64 (what every API refuses)."""
    if not isinstance(data, str):
        return None
    try:
        return len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return None


def is_image_data_url(url: Any) -> bool:
    """A ``data:image/...;base64,...`` URL whose payload decodes."""
    match = _DATA_URL.match(url) if isinstance(url, str) else None
    return bool(match and match["media"].startswith("image/") and decoded_size(match["data"]) is not None)


def is_image_url(url: Any) -> bool:
    """What OpenAI takes for an image: an http(s) URL, or an image data URL that decodes."""
    if not isinstance(url, str):
        return False
    return url.startswith(("http://", "https://")) or is_image_data_url(url)


def images_of(content: Any) -> tuple[Image, ...]:
    """The images among internal content parts (a string holds none)."""
    if not isinstance(content, list):
        return ()
    found = [_image(part) for part in content if isinstance(part, dict) and part.get("type") == "image_url"]
    return tuple(image for image in found if image is not None)


def _image(part: dict[str, Any]) -> Image | None:
    value = part.get("image_url")
    url = value if isinstance(value, str) else value.get("url") if isinstance(value, dict) else None
    if not isinstance(url, str) or not url:
        return None
    match = _DATA_URL.match(url)
    if match:
        return Image(match["media"], decoded_size(match["data"]) or 0)
    guessed = mimetypes.guess_type(urlsplit(url).path)[0]
    return Image(guessed if guessed and guessed.startswith("image/") else "image", None, urlsplit(url).hostname or "")


def seen(images: tuple[Image, ...]) -> str:
    """``I see 2 images (image/png, 68 bytes; image/jpeg, linked from example.com).``"""
    noun = "image" if len(images) == 1 else "images"
    return f"I see {len(images)} {noun} ({'; '.join(image.describe() for image in images)})."
