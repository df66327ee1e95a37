"""Saved messages and round trips shaped for the templates: each tool call carries its result(s) and checks.

Content parts are split for the page: ``text`` holds the text parts only, ``images`` the image parts (shown as
thumbnails), so no base64 ever reaches the page as text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from playground.conversations.models import Conversation, Message, RoundTrip
from playground.tools.images import ImageView, image_views
from playground.tools.schema import check_arguments


@dataclass
class CallView:
    id: str
    name: str
    arguments: str
    pretty: str  # pretty-printed when the text parses, else the raw text
    problems: list[str]
    result: str | None = None
    images: list[ImageView] = field(default_factory=list)  # the result's images
    is_error: bool = False
    source: str = ""
    attempt: int = 1
    truncated: bool = False  # its round trip hit max_tokens: the call is cut off and was never run
    cut: bool = False  # its message broke off (a cut stream, an error, a stop): never run
    strategy: str = ""  # the tool-calling strategy of its round trip when not native (the assistant message's meta)
    meta: dict[str, Any] = field(default_factory=dict)  # its result's, as saved (an MCP call's JSON-RPC traffic)
    edited: str = ""  # the arguments it ran with when a person edited them on approval, pretty-printed
    run_over: bool = False  # its run ended without answering it (a Stop while it waited): it never will be

    @property
    def status(self) -> str:
        if self.result is None:
            if self.truncated or self.cut:
                return "truncated" if self.truncated else "incomplete"
            return "unanswered" if self.run_over else "pending"
        if self.source == "denied":
            return "denied"
        return "error" if self.is_error else "done"


@dataclass
class MessageView:
    position: int
    role: str
    text: str
    complete: bool
    reasoning: str = ""
    calls: list[CallView] = field(default_factory=list)
    images: list[ImageView] = field(default_factory=list)
    round_trip: int | None = None
    error: dict[str, Any] | None = None  # its round trip's, as saved: the card the chat showed when it happened


def listed(message: Message) -> bool:
    """Whether pages list it as a message of its own: a tool result shows inside the call that asked for it."""
    return message.role != "tool"


def message_numbers(messages: list[Message]) -> dict[int, int]:
    """Each listed message's number, by position, counted from 1 in order: what the review, the Fork menu and a
    fork's "at message N" all say (positions also count tool results, which no page lists apart)."""
    return {m.position: n for n, m in enumerate((m for m in messages if listed(m)), start=1)}


def number_of(conversation_id: int, position: int) -> int | None:
    """One message's ``message_numbers`` number in its conversation (a fork's "at message N" in its original)."""
    earlier = Message.objects.filter(conversation_id=conversation_id, position__lte=position).order_by("position")
    return message_numbers(list(earlier.only("position", "role"))).get(position)


def _pretty(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), indent=2, ensure_ascii=False)
    except ValueError:
        return arguments


def _text(content: Any) -> str:
    """The text of a message's content; of content parts, the text parts only (an image has none to show)."""
    if isinstance(content, list):
        return "\n".join(str(part["text"]) for part in content if isinstance(part, dict) and "text" in part)
    return str(content or "")


def transcript(
    conversation: Conversation, messages: list[Message], round_trips: dict[int, RoundTrip]
) -> list[MessageView]:
    latest = {t["name"]: t.get("parameters") for t in conversation.tools}
    calls: dict[str, CallView] = {}
    views: list[MessageView] = []
    for message in messages:
        data = message.data
        if message.role == "tool":
            call = calls.get(str(data.get("tool_call_id")))
            if call is not None:
                call.result, call.is_error = _text(data.get("content")), bool(data.get("is_error"))
                call.images = image_views(data.get("content"))
                call.source, call.attempt = message.meta.get("source", ""), int(message.meta.get("attempt", 1))
                call.meta = message.meta
                edited = message.meta.get("edited_arguments")
                call.edited = _pretty(edited) if isinstance(edited, str) else ""
                continue
        view = MessageView(message.position, message.role, _text(data.get("content")), message.complete)
        view.images = image_views(data.get("content"))
        view.reasoning = str((data.get("provider_data") or {}).get("reasoning", ""))
        rt = round_trips.get(message.round_trip_id) if message.round_trip_id else None
        view.round_trip = rt.position if rt else None
        # Checked against the definitions that round trip sent: a later turn may have changed the tools.
        schemas = _schemas(rt) if rt else latest
        for raw in data.get("tool_calls") or []:
            arguments = raw["function"]["arguments"]
            check = check_arguments(schemas.get(raw["function"]["name"]), arguments)
            call = CallView(
                raw["id"], raw["function"]["name"], arguments, _pretty(arguments), [str(p) for p in check.problems]
            )
            call.truncated = bool(rt and rt.finish_reason == "length")
            call.cut = not message.complete
            call.strategy = str((message.meta or {}).get("strategy", ""))
            calls[call.id] = call
            view.calls.append(call)
        views.append(view)
    _mark_run_over(views, conversation.status)
    return views


# A run in these states may still answer the calls of the last answer: it waits for a person, or (interrupted) its
# Retry goes on with them. Any other call left without a result never gets one (the next turn leaves it out).
_ANSWERABLE = {Conversation.Status.RUNNING, Conversation.Status.WAITING, Conversation.Status.INTERRUPTED}


def _mark_run_over(views: list[MessageView], status: str) -> None:
    # The last answer, unless a message of the person's came after it: the new turn left its calls out for good.
    last = next((view for view in reversed(views) if view.role in ("assistant", "user")), None)
    last = last if last is not None and last.role == "assistant" else None
    for view in views:
        for call in view.calls:
            call.run_over = call.result is None and not (status in _ANSWERABLE and view is last)


def _schemas(rt: RoundTrip) -> dict[str, Any]:
    # light_round_trips reads only the tools of the request; a whole row has them in its request.
    tools = rt.sent_tools if hasattr(rt, "sent_tools") else rt.request.get("tools")
    return {t["function"]["name"]: t["function"].get("parameters") for t in tools or []}


def with_failures(views: list[MessageView], messages: list[Message], round_trips: list[RoundTrip]) -> list[MessageView]:
    """The transcript as the chat draws it live: a round trip's error on the message it saved, or, when it saved
    none (an error before any text: a 429, an overload), on an assistant message of its own, placed where it
    happened. The messages keep their order whatever their times say."""
    by_position = {rt.position: rt for rt in round_trips}
    for view in views:
        rt = by_position.get(view.round_trip) if view.round_trip is not None else None
        if rt is not None and rt.error:
            view.error = rt.error
    shown = {view.round_trip for view in views}
    failed = [rt for rt in round_trips if rt.error and rt.position not in shown]
    created = {m.position: m.created_at for m in messages}
    merged: list[MessageView] = []
    for view in views:
        while failed and failed[0].started_at < created[view.position]:
            merged.append(_failure(failed.pop(0)))
        merged.append(view)
    return merged + [_failure(rt) for rt in failed]


def _failure(rt: RoundTrip) -> MessageView:
    return MessageView(-1, "assistant", "", complete=False, round_trip=rt.position, error=rt.error)
