"""OpenAI Responses images: ``input_image`` parts in user messages AND in a ``function_call_output``'s ``output``
(a list of input_text/input_image parts), read back to the same internal parts."""

from __future__ import annotations

from typing import Any

from providers import openai_responses
from tests.providers.image_fixtures import (
    CONVERSATION,
    PHOTO_URL,
    PNG_URL,
    USER,
    call,
    image,
    request,
    result,
    turn,
)


def input_image(url: str, detail: str = "auto") -> dict[str, Any]:
    return {"type": "input_image", "image_url": url, "detail": detail}


def encode(*messages: Any) -> tuple[dict[str, Any], list[str]]:
    translation = openai_responses.encode_request(request(*messages))  # type: ignore[arg-type]
    return translation.value, translation.notes


def test_user_and_tool_output_images_are_input_images() -> None:
    body, notes = encode()
    assert body["input"] == [
        {
            "role": "user",
            "content": [{"type": "input_text", "text": "Chart the sales like this one"}, input_image(PNG_URL)],
        },
        {"type": "function_call", "call_id": "call_chart", "name": "make_chart", "arguments": "{}"},
        {
            "type": "function_call_output",
            "call_id": "call_chart",
            "output": [{"type": "input_text", "text": "Sales chart"}, input_image(PNG_URL)],
        },
    ]
    assert notes == []


def test_importing_gives_the_same_conversation_back() -> None:
    body, _ = encode()
    back = openai_responses.import_request(body)
    assert back.value["messages"] == CONVERSATION
    assert back.notes == []


def test_linked_image_only_output_keeps_its_detail() -> None:
    messages = [USER, turn(call("call_a")), result("call_a", image(PHOTO_URL, "high"))]
    body, notes = encode(*messages)
    assert body["input"][2] == {
        "type": "function_call_output",
        "call_id": "call_a",
        "output": [input_image(PHOTO_URL, "high")],
    }
    assert notes == []
    assert openai_responses.import_request(body).value["messages"] == messages
