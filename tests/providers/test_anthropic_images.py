"""Anthropic images: image blocks (base64 source for data URLs, url source otherwise) in user messages AND inside
tool_result content, read back to the same internal parts: lossless but for ``detail``."""

from __future__ import annotations

from typing import Any

from providers import anthropic
from tests.providers.image_fixtures import (
    CONVERSATION,
    PHOTO_URL,
    PNG,
    PNG_URL,
    USER,
    call,
    image,
    request,
    result,
    text,
    turn,
)

PNG_BLOCK = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
PHOTO_BLOCK = {"type": "image", "source": {"type": "url", "url": PHOTO_URL}}


def encode(*messages: Any) -> tuple[dict[str, Any], list[str]]:
    translation = anthropic.encode_request(request(*messages, max_tokens=1024))  # type: ignore[arg-type]
    return translation.value, translation.notes


def test_user_and_tool_result_images_are_image_blocks() -> None:
    body, notes = encode()
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Chart the sales like this one"}, PNG_BLOCK]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "call_chart", "name": "make_chart", "input": {}}]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_chart",
                    "content": [{"type": "text", "text": "Sales chart"}, PNG_BLOCK],
                }
            ],
        },
    ]
    assert notes == []


def test_importing_gives_the_same_conversation_back() -> None:
    body, _ = encode()
    back = anthropic.import_request(body)
    assert back.value["messages"] == CONVERSATION
    assert back.notes == []


def test_linked_and_image_only_results_round_trip() -> None:
    messages = [
        USER,
        turn(call("call_a"), call("call_b")),
        result("call_a", image(PHOTO_URL)),
        {**result("call_b", image(PNG_URL), text("failed half way")), "is_error": True},
    ]
    body, notes = encode(*messages)
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "call_a", "content": [PHOTO_BLOCK]},
        {
            "type": "tool_result",
            "tool_use_id": "call_b",
            "content": [PNG_BLOCK, {"type": "text", "text": "failed half way"}],
            "is_error": True,
        },
    ]
    assert notes == ["2 tool results (messages 2, 3) merged into one user message"]
    assert anthropic.import_request(body).value["messages"] == messages


def test_detail_is_dropped_with_a_note() -> None:
    body, notes = encode(USER, turn(call("c1")), result("c1", image(PNG_URL, "high")))
    assert body["messages"][2]["content"][0]["content"] == [PNG_BLOCK]
    assert notes == ["message 2 (tool): image detail `high` dropped (Anthropic has no detail setting)"]


def test_media_types_anthropic_does_not_take() -> None:
    jpg = image(f"data:image/jpg;base64,{PNG}")
    bmp = image(f"data:image/bmp;base64,{PNG}")
    body, notes = encode({"role": "user", "content": [jpg, bmp]})
    sources = [block["source"]["media_type"] for block in body["messages"][0]["content"]]
    assert sources == ["image/jpeg", "image/bmp"]
    assert notes == [
        "message 0 (user): image media type `image/jpg` sent as `image/jpeg` (the name Anthropic takes)",
        "message 0 (user): image media type `image/bmp` sent, but Anthropic takes only image/jpeg, image/png, "
        "image/gif, image/webp",
    ]
