"""A conversation as a Markdown transcript: who said what, each tool call with its arguments and result, errors.

Built from the same views as the conversation page (``present.transcript``), so a call's result sits under the call
as it does in its card. Code blocks are fenced with more backticks than the text holds, so no message can close its
fence early and turn the rest of the file into something else.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from playground.conversations.present import CallView, MessageView, _pretty, transcript
from playground.tools.images import ImageView

if TYPE_CHECKING:
    from datetime import datetime

    from playground.conversations.models import Conversation, RoundTrip

ROLE_TITLES = {"system": "System", "developer": "Developer", "user": "User", "assistant": "Assistant", "tool": "Tool"}
_BACKTICKS = re.compile(r"`+")


def fence(text: str, language: str = "") -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{language}\n{text}\n{marks}"


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def conversation_markdown(conversation: Conversation) -> str:
    messages = list(conversation.messages.order_by("position"))
    round_trips = list(conversation.round_trips.order_by("position"))
    views = transcript(conversation, messages, {rt.pk: rt for rt in round_trips})
    created = {m.position: m.created_at for m in messages}
    blocks = [_header(conversation)]
    errors = [rt for rt in round_trips if rt.error]
    for view in views:
        # A failed round trip's error goes before the first message that came after it.
        while errors and _came_first(errors[0], view, created.get(view.position)):
            blocks.append(_error(errors.pop(0)))
        blocks.append(_message(view))
    blocks += [_error(rt) for rt in errors]
    if conversation.status_message:
        blocks.append(f"*{conversation.get_status_display()}: {conversation.status_message}*")
    return "\n\n".join(blocks).rstrip() + "\n"


def _came_first(rt: RoundTrip, view: MessageView, created_at: datetime | None) -> bool:
    if view.round_trip is not None:
        return rt.position < view.round_trip
    # A message no round trip produced (the user's) has only its time to place it by.
    return created_at is not None and rt.started_at < created_at


def _header(conversation: Conversation) -> str:
    lines = [f"# {conversation.title or 'Untitled conversation'}", ""]
    where = f"{conversation.endpoint_name or 'no endpoint'} ({conversation.format or 'no format'})"
    lines.append(f"- **Endpoint:** {where} · **model:** `{conversation.model or '-'}`")
    if conversation.tools:
        names = ", ".join(f"`{tool['name']}`" for tool in conversation.tools)
        lines.append(f"- **Tools:** {names}")
    lines.append(f"- **Status:** {conversation.get_status_display()}")
    system = str((conversation.settings or {}).get("system") or "")
    if system.strip():
        lines += ["", "**System prompt:**", "", fence(system)]
    return "\n".join(lines)


def _message(view: MessageView) -> str:
    title = ROLE_TITLES.get(view.role, view.role.title())
    parts = [f"## {title}" + ("" if view.complete else " *(incomplete: the stream broke off)*")]
    if view.reasoning:
        parts.append(_quote(f"**Reasoning:** {view.reasoning}"))
    if view.text:
        parts.append(view.text)
    if view.images:
        parts.append(_images(view.images))
    parts += [_call(call) for call in view.calls]
    return "\n\n".join(parts)


def _call(call: CallView) -> str:
    parts = [f"### Tool call `{call.name}` · `{call.id}`", fence(call.pretty, "json")]
    if call.problems:
        parts.append("\n".join(f"- ✗ {problem}" for problem in call.problems))
    if call.result is None:
        parts.append("*Not run: the call was cut off.*" if call.truncated else "*No result yet.*")
        return "\n\n".join(parts)
    label = "Error result" if call.is_error else "Result"
    source = f" ({call.source})" if call.source else ""
    attempt = f", attempt {call.attempt}" if call.attempt > 1 else ""
    parts += [f"**{label}**{source}{attempt}:", fence(_pretty(call.result))]
    if call.images:
        parts.append(_images(call.images))
    return "\n\n".join(parts)


def _images(images: list[ImageView]) -> str:
    """Images are named, not embedded: a transcript holding megabytes of base64 would be unreadable."""
    return "\n".join(f"*[image: {image.label}]*" for image in images)


def _error(rt: RoundTrip) -> str:
    error: dict[str, Any] = rt.error or {}
    kind = str(error.get("type") or "error")
    message = str(error.get("message") or "")
    status = f" · HTTP {rt.status_code}" if rt.status_code else ""
    retry = f" · retry after {error['retry_after']} s" if error.get("retry_after") else ""
    return _quote(f"**Error** in round trip {rt.position + 1} ({kind}{status}{retry}): {message}")
