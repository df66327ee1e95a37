"""Replay a saved conversation on another endpoint or model, from one of its user messages, beside the original.

The replay is an ordinary conversation: the history up to the chosen message, the same tool snapshot and settings,
another endpoint and model. Where the new model calls a tool the original called with JSON-equal arguments, the
original's result is given again (``Conversation.recorded_results``), so the two differ only where the models do.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import transaction

from playground.chat.service import visible_endpoints
from playground.compare.models import Comparison, ComparisonRun
from playground.compare.service import CompareRefused
from playground.conversations.models import Conversation, Message, title_from
from playground.conversations.present import message_numbers
from playground.tools.results import call_key

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser


def replay_points(conversation: Conversation) -> list[tuple[int, str]]:
    """The user messages a replay can start from: (position, the first line of its text)."""
    rows = conversation.messages.filter(role="user").order_by("position").values_list("position", "data")
    points = [(position, title_from(_text(data))) for position, data in rows]
    if all(text for _, text in points):
        return points
    # A message of images alone is named by its number, as the Fork menu and the review number it.
    numbers = message_numbers(list(conversation.messages.order_by("position").only("position", "role")))
    return [(position, text or f"message {numbers[position]}") for position, text in points]


@dataclass(frozen=True)
class ComparisonLink:
    """A comparison a chat is part of, as its toolbar names it: which side of a replay it is, and on what."""

    pk: int
    kind: str
    label: str
    title: str
    text: str  # the message every column was sent


def comparison_links(conversation: Conversation) -> list[ComparisonLink]:
    """A replayed chat names each replay by where it ran ("Replayed on Simulated Gemini · sim-1"), so three replays
    read as three, not as one title three times; a replay and a Compare column name their comparison."""
    runs = list(conversation.comparison_runs.select_related("comparison").order_by("-comparison__created_at"))
    replays = {r.comparison_id for r in runs if r.comparison.kind == Comparison.Kind.REPLAY and r.position == 0}
    on = {
        run.comparison_id: f"{run.conversation.endpoint_name} · {run.conversation.model}"
        for run in ComparisonRun.objects.filter(comparison_id__in=replays, position=1).select_related("conversation")
    }
    links = []
    for run in runs:
        comparison = run.comparison
        if comparison.pk in on:
            label = f"Replayed on {on[comparison.pk]}"
        else:
            label = f"{comparison.get_kind_display()}: {comparison}"
        text = str((comparison.settings or {}).get("text") or "")
        links.append(ComparisonLink(comparison.pk, comparison.kind, label, str(comparison), text))
    return links


def _text(data: dict[str, Any]) -> str:
    content = data.get("content")
    if isinstance(content, list):
        content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "").strip().splitlines()[0] if str(content or "").strip() else ""


def recorded_from(messages: list[Message]) -> list[dict[str, Any]]:
    """The original's tool results after the replay point, keyed by the call they answered."""
    calls: dict[str, tuple[str, str]] = {}
    recorded: list[dict[str, Any]] = []
    for message in messages:
        for call in message.data.get("tool_calls") or []:
            calls[call["id"]] = _key(call["function"]["name"], call["function"]["arguments"])
        if message.role == "tool" and message.data.get("tool_call_id") in calls:
            name, arguments = calls[message.data["tool_call_id"]]
            content = message.data.get("content")
            text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
            recorded.append(
                {"name": name, "arguments": arguments, "content": text, "is_error": bool(message.data.get("is_error"))}
            )
    return recorded


def _key(name: str, arguments: str) -> tuple[str, str]:
    try:
        return call_key(name, json.loads(arguments or "{}"))
    except ValueError:
        return name, arguments  # invalid JSON never passes validation, so it is never looked up


def create_replay(
    original: Conversation, user: AbstractBaseUser, *, endpoint_id: int, model: str, from_position: int
) -> tuple[Comparison, Conversation]:
    """The replay conversation (history copied up to the chosen message) and the comparison showing both."""
    endpoint = visible_endpoints(original.team).filter(pk=endpoint_id).first()
    saved = list(original.messages.order_by("position"))
    start = next((m for m in saved if m.position == from_position and m.role == "user"), None)
    errors: dict[str, list[str]] = {}
    if endpoint is None:
        errors["endpoint_id"] = ["Pick a provider endpoint."]
    if not model.strip():
        errors["model"] = ["Type the model to replay on."]
    if start is None:
        errors["from_position"] = ["Pick one of the conversation's user messages."]
    if errors or endpoint is None or start is None:
        raise CompareRefused(errors)
    settings = {**original.settings, "endpoint_id": endpoint.pk, "model": model.strip()}
    with transaction.atomic():
        replay = Conversation.objects.create(
            team=original.team,
            created_by=user,
            title=f"Replay: {original}"[:200],
            endpoint=endpoint,
            endpoint_name=endpoint.name,
            format=endpoint.format,
            model=model.strip(),
            settings=settings,
            tools=original.tools,
            recorded_results=recorded_from([m for m in saved if m.position > from_position]),
        )
        for message in saved:
            if message.position <= from_position:
                Message.objects.create(
                    conversation=replay,
                    position=message.position,
                    role=message.role,
                    data=message.data,
                    complete=message.complete,
                    meta=message.meta,
                )
        comparison = Comparison.objects.create(
            team=original.team,
            created_by=user,
            kind=Comparison.Kind.REPLAY,
            title=f"Replay of {original}"[:200],
            settings={
                "text": _text(start.data),
                "tools": [t["name"] for t in original.tools],
                "system": str(original.settings.get("system", "")),
            },
        )
        ComparisonRun.objects.create(comparison=comparison, position=0, conversation=original)
        ComparisonRun.objects.create(comparison=comparison, position=1, conversation=replay)
    return comparison, replay
