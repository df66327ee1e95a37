"""Images against the simulated APIs: each strict endpoint takes the image shapes its codec sends (Anthropic images
in tool_result, Responses input_image in function_call_output, Gemini inlineData after the function responses,
OpenAI images in a user message after the tool messages), refuses broken ones as the real API does, and the
scripted model says which images it was sent."""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest

from providers.formats import get_format
from providers.types import Message
from tests.providers import test_simulator_gemini, test_simulator_responses
from tests.providers.image_fixtures import CHART_TOOL, PHOTO_URL, PNG, PNG_BYTES, PNG_URL, image, request, result, text
from tests.providers.simulator_fixtures import anthropic_client, openai_client, post_anthropic, post_openai

Post = Callable[[dict[str, Any]], Awaitable[httpx2.Response]]
POSTS: dict[str, Post] = {
    "openai-chat": post_openai,
    "anthropic": post_anthropic,
    "openai-responses": test_simulator_responses.post,
    "gemini": test_simulator_gemini.post,
}
SEEN = f"I see 1 image (image/png, {PNG_BYTES} bytes)."
STAND_IN = "skip_thought_signature_validator"  # Google's documented value for a history it did not sign


async def answer(name: str, messages: list[Message], **fields: Any) -> tuple[httpx2.Response, Message]:
    """``messages`` encoded by the format's codec, sent to its simulated endpoint, the reply decoded."""
    codec = get_format(name)
    raw = await POSTS[name](codec.encode_request(request(*messages, **fields)).value)  # type: ignore[arg-type]
    assert raw.status_code == 200, raw.text
    return raw, codec.decode_response(raw.json()).message


# --- the scripted model sees the images --------------------------------------------------------------------------


@pytest.mark.parametrize("name", POSTS)
async def test_a_tool_loop_with_images_is_accepted_and_the_images_are_seen(name: str) -> None:
    first = {"role": "user", "content": [text("/call make_chart {}"), image(PNG_URL)]}
    _, assistant = await answer(name, [first], tools=[CHART_TOOL])  # type: ignore[list-item]
    (made,) = assistant["tool_calls"]
    chart = result(made["id"], text("Sales chart"), image(PNG_URL))
    _, reply = await answer(name, [first, assistant, chart], tools=[CHART_TOOL])  # type: ignore[list-item]
    assert reply["content"] == f"make_chart({{}}) returned “Sales chart”. {SEEN}"


@pytest.mark.parametrize("name", POSTS)
async def test_an_image_only_tool_result_is_seen(name: str) -> None:
    first = {"role": "user", "content": "/call make_chart {}"}
    _, assistant = await answer(name, [first], tools=[CHART_TOOL])  # type: ignore[list-item]
    chart = result(assistant["tool_calls"][0]["id"], image(PNG_URL), image(PHOTO_URL))
    _, reply = await answer(name, [first, assistant, chart], tools=[CHART_TOOL])  # type: ignore[list-item]
    assert reply["content"].endswith(
        f"I see 2 images (image/png, {PNG_BYTES} bytes; image/jpeg, linked from example.com)."
    )


@pytest.mark.parametrize("name", POSTS)
async def test_user_images_are_acknowledged_after_the_echo(name: str) -> None:
    _, reply = await answer(name, [{"role": "user", "content": [text("hi"), image(PNG_URL)]}])  # type: ignore[list-item]
    assert reply["content"] == (
        f"You said: “hi”. {SEEN} I'm sim-1, Crosswire's scripted simulator, and this conversation gives me no "
        "tools. Add some and mention one, or script me with /call, /text and /think."
    )


async def test_a_text_only_reply_says_nothing_of_images() -> None:
    _, reply = await answer("openai-chat", [{"role": "user", "content": "hi"}])
    assert reply["content"] == (
        "You said: “hi”. I'm sim-1, Crosswire's scripted simulator, and this conversation gives me no tools. Add "
        "some and mention one, or script me with /call, /text and /think."
    )


# --- the official SDKs send the shapes ---------------------------------------------------------------------------


def loop_body(name: str) -> dict[str, Any]:
    """The fixtures' conversation (user image, tool result with an image) as the codec sends it."""
    body = get_format(name).encode_request(request()).value  # type: ignore[arg-type]
    if name == "gemini":
        body["contents"][1]["parts"][0]["thoughtSignature"] = STAND_IN
    return body


async def test_the_openai_sdk_sends_the_image_after_the_tool_messages() -> None:
    body = loop_body("openai-chat")
    assert body["messages"][-1] == {"role": "user", "content": [image(PNG_URL)]}
    completion = await openai_client().chat.completions.create(**body)
    assert completion.choices[0].message.content == f"make_chart({{}}) returned “Sales chart”. {SEEN}"


async def test_the_anthropic_sdk_sends_an_image_inside_a_tool_result() -> None:
    body = loop_body("anthropic")
    assert body["messages"][-1]["content"][0]["content"][1]["type"] == "image"
    message = await anthropic_client().messages.create(**body)
    assert message.content[0].type == "text"
    assert message.content[0].text == f"make_chart({{}}) returned “Sales chart”. {SEEN}"


# --- what the strict endpoints still refuse ----------------------------------------------------------------------


def _set(name: str, path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    body = copy.deepcopy(loop_body(name))
    target = body
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return body


BAD_DATA = "data:image/png;base64,not base64!"
OPENAI_FORMAT = (
    "Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), "
    "but got a value with an invalid format."
)
REFUSED: list[tuple[str, str, tuple[Any, ...], Any, str]] = [
    (
        "openai: an image in a tool message",
        "openai-chat",
        ("messages", 2, "content"),
        [text("Sales chart"), image(PNG_URL)],
        "Invalid 'messages[2]'. Image URLs are only allowed for messages with role 'user', but this message with role "
        "'tool' contains an image URL.",
    ),
    (
        "openai: a data URL that does not decode",
        "openai-chat",
        ("messages", 3, "content", 0, "image_url", "url"),
        BAD_DATA,
        f"Invalid 'messages[3].content[0].image_url.url'. {OPENAI_FORMAT}",
    ),
    (
        "anthropic: a media type it does not take, inside a tool_result",
        "anthropic",
        ("messages", 2, "content", 0, "content", 1, "source", "media_type"),
        "image/bmp",
        "messages.2.content.0.tool_result.content.1.image.source.base64.media_type: Input should be 'image/jpeg', "
        "'image/png', 'image/gif' or 'image/webp'",
    ),
    (
        "anthropic: image data that does not decode",
        "anthropic",
        ("messages", 0, "content", 1, "source", "data"),
        "not base64!",
        "messages.0.content.1.image.source.base64.data: The image data is not valid base64",
    ),
    (
        "anthropic: a tool_use block inside a tool_result",
        "anthropic",
        ("messages", 2, "content", 0, "content", 1),
        {"type": "tool_use", "id": "toolu_x", "name": "make_chart", "input": {}},
        "messages.2.content.0.tool_result.content.1: Input tag 'tool_use' found using 'type' does not match any of "
        "the expected tags: 'document', 'image', 'search_result', 'text'",
    ),
    (
        "responses: an output image whose URL is not one",
        "openai-responses",
        ("input", 2, "output", 1, "image_url"),
        "chart.png",
        f"Invalid 'input[2].output[1].image_url'. {OPENAI_FORMAT}",
    ),
    (
        "responses: an output part of a type outputs do not take",
        "openai-responses",
        ("input", 2, "output", 0, "type"),
        "output_text",
        "Invalid value: 'output_text'. Supported values are: 'input_text', 'input_image', and 'input_file'.",
    ),
    (
        "gemini: inline data that does not decode",
        "gemini",
        ("contents", 2, "parts", 1, "inlineData", "data"),
        "not base64!",
        "Invalid value at 'contents[2].parts[1].inline_data.data' (TYPE_BYTES), Base64 decoding failed",
    ),
    (
        "gemini: inline data without a mime type",
        "gemini",
        ("contents", 2, "parts", 1, "inlineData"),
        {"data": PNG},
        "* GenerateContentRequest.contents[2].parts[1].inline_data.mime_type: mime_type must be set.\n",
    ),
]


@pytest.mark.parametrize(("name", "path", "value", "message"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
async def test_a_broken_image_is_refused_and_the_codecs_shape_accepted(
    name: str, path: tuple[Any, ...], value: Any, message: str
) -> None:
    refused = await POSTS[name](_set(name, path, value))
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == message
    assert PNG not in refused.text  # the image data is never quoted back
    accepted = await POSTS[name](loop_body(name))
    assert accepted.status_code == 200, accepted.text
