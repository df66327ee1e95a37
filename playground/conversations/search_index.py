"""What the Conversations list searches and filters on, written once when a run ends (not while it streams).

One row per conversation carries the searchable text (title, message text, tool names and their arguments), the
tools the model called, and whether anything failed, so the list answers from one indexed table however many
messages and raw events the conversations hold.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from django.core.cache import cache
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from playground.conversations.models import Conversation, Message, RoundTrip
from playground.prepared import PreparedQuery, PreparedUpdate
from playground.tools.schema import check_arguments

MAX_SEARCH_CHARS = 100_000  # beyond this a conversation is found by its beginning; the index stays small
STALE_PER_REQUEST = 100  # conversations saved before the index existed are indexed a batch per list request


INDEX_FIELDS = ("search_text", "called_tools", "has_error", "invalid_calls", "indexed_at")
# Every run's end indexes its conversation: these two statements are built once (playground.prepared).
# A round trip with an error, a Stop's aside ("cancelled": the person's choice, not a failure to find).
_ERRORED = PreparedQuery(
    lambda c: (
        RoundTrip.objects.filter(conversation_id=c)
        .exclude(error=None)
        .exclude(error__type="cancelled")
        .order_by()
        .values_list("pk")[:1]
    ),
    int,
)
# A queryset update: saving the row would bump updated_at and reorder the list.
_WRITE = PreparedUpdate(Conversation, INDEX_FIELDS, lambda pk: Conversation.objects.filter(pk=pk), int)


def index_conversation(conversation: Conversation, messages: Iterable[tuple[str, Any, bool]] | None = None) -> None:
    """Recompute and save the search fields of one conversation; ``messages``: all of them in order as (role, data,
    complete), when the caller holds them, or read here."""
    _WRITE.run(index_values(conversation, messages), conversation.pk)
    forget_facets(conversation.team_id)


def index_values(conversation: Conversation, messages: Iterable[tuple[str, Any, bool]] | None = None) -> dict[str, Any]:
    """The search fields of one conversation, recomputed and set on it, by name, for its caller to save (a run that
    has just ended saves them with its status, in one statement); ``messages``: as ``index_conversation`` takes."""
    if messages is None:
        messages = conversation.messages.order_by("position").values_list("role", "data", "complete")
    schemas = {t["name"]: t.get("parameters") for t in conversation.tools}
    parts: list[str] = [conversation.title]
    called: list[str] = []
    invalid = 0
    for role, data, complete in messages:
        parts.append(_text(data.get("content")))
        calls = (data.get("tool_calls") or []) if role == "assistant" else []
        for call in calls:
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            parts += [name, _arguments_text(arguments)]
            called.append(name)
            # A call its message broke off in (a cut stream, the token limit) never ran: not the model's mistake.
            invalid += complete and not check_arguments(schemas.get(name), arguments).ok
    errored = bool(_ERRORED.rows(conversation.pk))
    conversation.search_text = "\n".join(p for p in parts if p)[:MAX_SEARCH_CHARS]
    conversation.called_tools = f" {' '.join(dict.fromkeys(called))} " if called else ""
    conversation.has_error = errored or conversation.status in (Conversation.Status.ERROR, "interrupted")
    conversation.invalid_calls = invalid
    conversation.indexed_at = timezone.now()
    return {name: getattr(conversation, name) for name in INDEX_FIELDS}


def forget_facets(team_id: int) -> None:
    """After a conversation's index is saved: its model, tools or status may be new to the team's filter menus."""
    cache.delete(facets_key(team_id))


def facets_key(team_id: int) -> str:
    """Where the Conversations page keeps a team's filter menus (search.facets)."""
    return f"conversation-facets:{team_id}"


def index_stale(team_id: int) -> int:
    """Index a batch of the team's conversations changed since they were indexed (or never were); how many."""
    # The same condition as the partial index conversation_search_stale, so the database reads only those rows; an
    # EXISTS rather than a join and DISTINCT, which would make it sort the team's rows first.
    changed = Q(indexed_at__isnull=True) | Q(indexed_at__lt=F("updated_at"))
    has_messages = Exists(Message.objects.filter(conversation=OuterRef("pk")))
    stale = list(
        Conversation.objects.filter(changed, has_messages, team_id=team_id).order_by("-updated_at")[:STALE_PER_REQUEST]
    )
    for conversation in stale:
        index_conversation(conversation)
    return len(stale)


def _text(content: Any) -> str:
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def _arguments_text(arguments: str) -> str:
    """Argument values as words (keys too), so "Oslo" in {"city": "Oslo"} is found as a word."""
    try:
        value = json.loads(arguments)
    except ValueError:
        return arguments
    words: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            words.extend(str(k) for k in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif item is not None:
            words.append(str(item))
    return " ".join(words)
