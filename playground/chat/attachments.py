"""The images a person attaches to a message, checked before anything is saved or sent.

The page sends ``images: [{"name": "chart.png", "url": "data:image/png;base64,…"}]`` beside the text; the page checks
the same limits first, so a refusal here means a page that skipped them (or a hand-made frame). The user message
becomes content parts: the text (when there is any), then one ``image_url`` part per image, each labelled with the
media type its bytes have.
"""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings

from playground.tools.content import Content
from playground.tools.images import ImageRefused, check_data_url

NAME_CHARS = 80  # a file name is only ever quoted back in a refusal
URL_OVERHEAD = 64  # "data:image/webp;base64," and the JSON around one image


def max_image_bytes() -> int:
    return int(settings.CROSSWIRE_MAX_IMAGE_BYTES)


def max_images() -> int:
    return int(settings.CROSSWIRE_MAX_IMAGES)


def max_send_bytes() -> int:
    """The largest ``send`` a message within the limits makes: its text plus its images as base64."""
    image = 4 * math.ceil(max_image_bytes() / 3) + URL_OVERHEAD + NAME_CHARS * 4
    return int(settings.CROSSWIRE_MAX_MESSAGE_BYTES) + max_images() * image


def user_content(text: str, images: Any) -> Content:
    """The user message's content: the text alone, or content parts when images came with it (ImageRefused)."""
    if images is None or images == []:
        return text
    if not isinstance(images, list):
        raise ImageRefused("The attached images could not be read: expected a list.")
    limit = max_images()
    if len(images) > limit:
        raise ImageRefused(f"{len(images)} images are attached; at most {limit} go with one message.")
    checked = [
        check_data_url(_url(item), max_bytes=max_image_bytes(), label=_label(item, number))
        for number, item in enumerate(images, start=1)
    ]
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text.strip() else []
    return parts + [image.part() for image in checked]


def _url(item: Any) -> Any:
    return item.get("url") if isinstance(item, dict) else item


def _label(item: Any, number: int) -> str:
    name = item.get("name") if isinstance(item, dict) else None
    if isinstance(name, str) and name.strip():
        clipped = name.strip()[:NAME_CHARS]
        return f"Image {number} ({clipped})"
    return f"Image {number}"


def image_count(content: Content) -> int:
    return sum(1 for part in content if part.get("type") == "image_url") if isinstance(content, list) else 0
