"""OpenAI Chat images: user messages carry image_url parts as they are; a tool message holds text only, so its
images move to one user message right after its run of tool messages, with a note."""

from __future__ import annotations

from providers import openai_chat
from providers.openai_chat.images import PLACEHOLDER
from tests.providers.image_fixtures import (
    CONVERSATION,
    PHOTO_URL,
    PNG_URL,
    USER,
    call,
    image,
    request,
    result,
    text,
    turn,
)

MOVED = "moved to a user message right after the tool results (OpenAI Chat tool messages take text only)"


def test_user_images_pass_through() -> None:
    photo = {"role": "user", "content": [image(PHOTO_URL, "high"), text("and this one?")]}
    translation = openai_chat.encode_request(request(USER, photo))  # type: ignore[arg-type]
    assert translation.value["messages"] == [USER, photo]
    assert translation.notes == []


def test_a_tool_results_image_goes_to_a_user_message_after_it() -> None:
    translation = openai_chat.encode_request(request())  # type: ignore[arg-type]
    assert translation.value["messages"] == [
        USER,
        {"role": "assistant", "content": None, "tool_calls": [call("call_chart")]},
        {"role": "tool", "tool_call_id": "call_chart", "content": [text("Sales chart")]},
        {"role": "user", "content": [image(PNG_URL)]},
    ]
    assert translation.notes == [f"message 2 (tool): 1 image {MOVED}"]


def test_the_images_of_a_run_follow_the_whole_run_in_order() -> None:
    messages = [
        USER,
        turn(call("call_a"), call("call_b"), call("call_c")),
        result("call_a", image(PNG_URL), text("first")),
        result("call_b", image(PHOTO_URL, "low"), image(PNG_URL)),
        {"role": "tool", "tool_call_id": "call_c", "content": "no image"},
        {"role": "user", "content": "Thanks, now compare them."},
    ]
    translation = openai_chat.encode_request(request(*messages))  # type: ignore[arg-type]
    assert translation.value["messages"][2:] == [
        {"role": "tool", "tool_call_id": "call_a", "content": [text("first")]},
        {"role": "tool", "tool_call_id": "call_b", "content": [text(PLACEHOLDER)]},
        {"role": "tool", "tool_call_id": "call_c", "content": "no image"},
        {"role": "user", "content": [image(PNG_URL), image(PHOTO_URL, "low"), image(PNG_URL)]},
        {"role": "user", "content": "Thanks, now compare them."},
    ]
    assert translation.notes == [
        f"message 2 (tool): 1 image {MOVED}",
        f"message 3 (tool): 2 images {MOVED}; the tool message says {PLACEHOLDER!r}",
    ]


def test_a_failed_tool_with_only_an_image_states_the_failure_on_the_placeholder() -> None:
    failed = {**result("call_chart", image(PNG_URL)), "is_error": True}
    body = openai_chat.encode_request(request(USER, turn(call("call_chart")), failed)).value  # type: ignore[arg-type]
    assert body["messages"][2:] == [
        {"role": "tool", "tool_call_id": "call_chart", "content": [text(f"Error: {PLACEHOLDER}")]},
        {"role": "user", "content": [image(PNG_URL)]},
    ]


def test_importing_keeps_the_carrier_as_a_user_message() -> None:
    """Lossy by design: the wire cannot say the user message held a tool's images, so it stays a user message."""
    body = openai_chat.encode_request(request()).value  # type: ignore[arg-type]
    back = openai_chat.import_request(body)
    assert back.value["messages"] == [
        *CONVERSATION[:2],
        {"role": "tool", "tool_call_id": "call_chart", "content": [text("Sales chart")]},
        {"role": "user", "content": [image(PNG_URL)]},
    ]
    assert back.notes == []
    assert openai_chat.encode_request(back.value).value == body  # and it goes back out unchanged


def test_notes_never_hold_the_image_data() -> None:
    huge = f"data:image/png;base64,{'A' * 40_000}"
    notes = openai_chat.encode_request(request(USER, turn(call("c1")), result("c1", image(huge)))).notes  # type: ignore[arg-type]
    assert notes and all(len(note) < 300 and "AAAA" not in note for note in notes)
