"""The images attached to a message are checked on the server: by their bytes, their size, their count and their
base64, each refusal in words a person can act on, and the text stays a plain string when nothing is attached."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

import pytest

from playground.chat.attachments import max_send_bytes, user_content
from playground.tools.images import ImageRefused, check_data_url, sniff
from tests.chat.image_fixtures import PNG_BYTES, PNG_URL, attached, encoded

if TYPE_CHECKING:
    from pytest_django.fixtures import SettingsWrapper


def test_without_images_the_content_is_the_text() -> None:
    assert user_content("hello", None) == "hello"
    assert user_content("hello", []) == "hello"


def test_images_make_content_parts_after_the_text() -> None:
    content = user_content("What is this?", [attached(), attached(name="again.png")])
    assert content == [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": PNG_URL}},
        {"type": "image_url", "image_url": {"url": PNG_URL}},
    ]


def test_an_image_alone_has_no_empty_text_part() -> None:
    assert user_content("  ", [attached()]) == [{"type": "image_url", "image_url": {"url": PNG_URL}}]


@pytest.mark.parametrize(("kind", "media_type"), [("PNG", "png"), ("JPEG", "jpeg"), ("WEBP", "webp"), ("GIF", "gif")])
def test_each_accepted_type_is_known_by_its_bytes(kind: str, media_type: str) -> None:
    data = encoded(kind)
    assert sniff(base64.b64decode(data)[:16]) == f"image/{media_type}"
    image = check_data_url(f"data:image/{media_type};base64,{data}", max_bytes=1_000_000)
    assert (image.media_type, image.size) == (f"image/{media_type}", len(base64.b64decode(data)))


def test_a_wrong_label_is_corrected_from_the_bytes() -> None:
    """A JPEG named .png is common; the providers refuse a label that lies, so the bytes decide."""
    jpeg = encoded("JPEG")
    [part] = user_content("", [attached(f"data:image/png;base64,{jpeg}", "photo.png")])
    assert part["image_url"]["url"] == f"data:image/jpeg;base64,{jpeg}"


def test_bytes_that_are_no_image_are_refused_whatever_the_label() -> None:
    fake = base64.b64encode(b"<svg onload=alert(1)></svg>").decode()
    with pytest.raises(ImageRefused) as refused:
        user_content("look", [attached(f"data:image/png;base64,{fake}", "trick.png")])
    assert str(refused.value) == (
        "Image 1 (trick.png) is not a PNG, JPEG, WebP or GIF image (its bytes say so, whatever its name)."
    )


def test_data_that_is_not_base64_is_refused() -> None:
    with pytest.raises(ImageRefused, match=r"^Image 2 could not be read: its data is not valid base64\.$"):
        user_content("look", [attached(), {"url": "data:image/png;base64,not base64!!"}])


def test_anything_but_a_data_url_is_refused() -> None:
    with pytest.raises(ImageRefused, match=r"^Image 1 \(x\.png\) is not a data URL of base64 image bytes"):
        user_content("look", [attached("https://example.com/x.png", "x.png")])


def test_an_image_over_the_size_limit_is_refused(settings: SettingsWrapper) -> None:
    settings.CROSSWIRE_MAX_IMAGE_BYTES = PNG_BYTES - 1
    with pytest.raises(ImageRefused) as refused:
        user_content("look", [attached()])
    assert str(refused.value) == "Image 1 (dot.png) is 70 B; the limit is 69 B per image."


def test_a_payload_far_over_the_limit_is_refused_before_decoding(settings: SettingsWrapper) -> None:
    settings.CROSSWIRE_MAX_IMAGE_BYTES = 1024
    huge = "A" * (4 * 1024 * 1024)  # valid base64 of zeros, 3 MiB once decoded
    with pytest.raises(ImageRefused, match=r"is 3\.0 MiB; the limit is 1 KiB per image"):
        user_content("", [attached(f"data:image/png;base64,{huge}")])


def test_too_many_images_are_refused(settings: SettingsWrapper) -> None:
    settings.CROSSWIRE_MAX_IMAGES = 2
    with pytest.raises(ImageRefused, match=r"^3 images are attached; at most 2 go with one message\.$"):
        user_content("look", [attached()] * 3)


def test_a_long_file_name_is_clipped_in_the_refusal() -> None:
    with pytest.raises(ImageRefused) as refused:
        user_content("", [attached("data:image/png;base64,@@", "n" * 500)])
    assert len(str(refused.value)) < 200


def test_the_largest_send_holds_the_text_and_every_image_as_base64(settings: SettingsWrapper) -> None:
    settings.CROSSWIRE_MAX_MESSAGE_BYTES, settings.CROSSWIRE_MAX_IMAGE_BYTES, settings.CROSSWIRE_MAX_IMAGES = 10, 300, 2
    assert max_send_bytes() >= 10 + 2 * len(f"data:image/webp;base64,{'A' * 400}")
