"""Gemini images: inlineData/fileData parts in user contents; a tool message's images cannot go in the JSON
``functionResponse.response``, so they follow the function responses as parts of the same user content (noted), and
come back on import as a user message after the tool messages."""

from __future__ import annotations

from typing import Any

from providers import gemini
from providers.gemini.parts import IMAGE_PLACEHOLDER
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

INLINE = {"inlineData": {"mimeType": "image/png", "data": PNG}}
LINKED = {"fileData": {"mimeType": "image/jpeg", "fileUri": PHOTO_URL}}
SENT_AFTER = "sent after the function responses, in the same user content (a Gemini functionResponse holds JSON only)"


def encode(*messages: Any) -> tuple[dict[str, Any], list[str]]:
    translation = gemini.encode_request(request(*messages))  # type: ignore[arg-type]
    return translation.value, translation.notes


def response(value: str, name: str = "make_chart", key: str = "result") -> dict[str, Any]:
    return {"functionResponse": {"name": name, "response": {key: value}}}


def test_user_images_are_inline_data_and_a_tool_image_follows_its_response() -> None:
    body, notes = encode()
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "Chart the sales like this one"}, INLINE]},
        {"role": "model", "parts": [{"functionCall": {"name": "make_chart", "args": {}}}]},
        {"role": "user", "parts": [response("Sales chart"), INLINE]},
    ]
    assert f"message 2 (tool): 1 image {SENT_AFTER}" in notes
    assert not any(PNG in note for note in notes)


def test_all_responses_come_first_then_every_image_in_order() -> None:
    messages = [
        USER,
        turn(call("call_a", "lookup", '{"q":"a"}'), call("call_b", "lookup", '{"q":"b"}')),
        {**result("call_b", image(PHOTO_URL), image(PNG_URL)), "is_error": True},
        result("call_a", text("A"), image(PNG_URL)),
    ]
    body, notes = encode(*messages)
    assert body["contents"][2]["parts"] == [
        response("A", "lookup"),  # put back in the calls' order: Gemini pairs same-name responses by position
        response(IMAGE_PLACEHOLDER, "lookup", "error"),
        LINKED,
        INLINE,
        INLINE,
    ]
    assert f"message 2 (tool): 2 images {SENT_AFTER}" in notes
    assert f"message 3 (tool): 1 image {SENT_AFTER}" in notes
    assert not any("dropped" in note for note in notes)


def test_importing_keeps_the_images_as_a_user_message_after_the_tool_messages() -> None:
    """Lossy by design: the wire does not say which result an image belonged to."""
    body, _ = encode()
    back = gemini.import_request(body)
    messages = back.value["messages"]
    call_id = messages[1]["tool_calls"][0]["id"]  # Gemini 2.x sends no ids: a synthetic one
    assert messages == [
        CONVERSATION[0],
        {"role": "assistant", "content": None, "tool_calls": [call(call_id)]},
        {"role": "tool", "tool_call_id": call_id, "content": "Sales chart"},
        {"role": "user", "content": [image(PNG_URL)]},
    ]
    assert "contents[2]: its other parts became a user message after the tool messages" in back.notes
    assert gemini.encode_request(back.value).value["contents"][2:] == [
        {"role": "user", "parts": [response("Sales chart")]},
        {"role": "user", "parts": [INLINE]},
    ]
