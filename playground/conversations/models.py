"""Saved conversations: every message and every model round trip, kept as it happens."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.db import models

from providers.jsontext import CompactEncoder


def default_settings() -> dict[str, Any]:
    return {}


class Conversation(models.Model):
    class Status(models.TextChoices):
        IDLE = "idle", "Ready"
        RUNNING = "running", "Running"
        WAITING = "waiting", "Waiting for an answer"
        DONE = "done", "Done"
        ERROR = "error", "Error"
        STOPPED = "stopped", "Stopped"
        LIMIT = "limit", "Stopped at a limit"
        # The process running it died (a crash, a restart): what had arrived is saved, and it can be retried.
        INTERRUPTED = "interrupted", "Interrupted"

    team = models.ForeignKey("playground.Team", on_delete=models.CASCADE, related_name="conversations")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    # Who started the run in flight: a person may hold only so many at once (CROSSWIRE_MAX_RUNS_PER_USER).
    run_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    title = models.CharField(max_length=200, blank=True)
    endpoint = models.ForeignKey("playground.Endpoint", null=True, blank=True, on_delete=models.SET_NULL)
    endpoint_name = models.CharField(max_length=100, blank=True)  # kept if the endpoint is deleted
    format = models.CharField(max_length=20, blank=True)
    model = models.CharField(max_length=200, blank=True)
    settings = models.JSONField(default=default_settings, blank=True)
    tools = models.JSONField(default=list, blank=True)  # ToolConfig snapshots, exactly as the run used them
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.IDLE)
    status_message = models.TextField(blank=True)
    # A fork: the conversation it was copied from, and the position of the last message copied.
    forked_from = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="forks")
    forked_at = models.PositiveIntegerField(null=True, blank=True)
    # A replay's answers from the conversation it replays: a call to the same tool with JSON-equal arguments gets
    # the original result again, so the replay differs only where the new model does ([{name, arguments, ...}]).
    recorded_results = models.JSONField(default=list, blank=True)
    # The web process running it (playground.chat.processes), so a dead one's runs are found at once.
    run_owner = models.CharField(max_length=80, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # What search and the list's filters read, written when a run ends (conversations.search_index), so the list
    # never scans messages: the text searched, the tools called (" a b "), whether anything failed.
    search_text = models.TextField(blank=True)
    called_tools = models.TextField(blank=True)
    has_error = models.BooleanField(default=False)
    invalid_calls = models.PositiveIntegerField(default=0)
    indexed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-updated_at"]
        indexes = [
            models.Index(fields=["team", "-updated_at", "-id"], name="conversation_team_recent"),
            # The conversations the search has not caught up with: few at any time, so the list finds them
            # without reading every row of the team (the condition compares two columns: no plain index can).
            models.Index(
                fields=["team", "-updated_at"],
                name="conversation_search_stale",
                condition=models.Q(indexed_at__isnull=True) | models.Q(indexed_at__lt=models.F("updated_at")),
            ),
        ]

    def __str__(self) -> str:
        return self.title or f"Conversation {self.pk}"


# A run holds the conversation in these states: streaming, or waiting for a person's answer.
TITLE_CHARS = 80  # a title made of a message's first line: lists and menus show it on one line


def title_from(text: str) -> str:
    """The first line of ``text``, cut with an ellipsis when longer than TITLE_CHARS (a silent cut read as whole)."""
    stripped = text.strip()
    line = stripped.splitlines()[0] if stripped else ""
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


BUSY_STATUSES = (Conversation.Status.RUNNING, Conversation.Status.WAITING)
# Ended on a failure, not by a person or a limit: Retry from here is offered (with the settings as they are now).
RETRY_STATUSES = (Conversation.Status.ERROR, Conversation.Status.INTERRUPTED)


class RoundTrip(models.Model):
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="round_trips")
    position = models.PositiveIntegerField()
    format = models.CharField(max_length=20)
    model = models.CharField(max_length=200, blank=True)
    request = models.JSONField(default=dict)  # internal (OpenAI Chat) request
    notes = models.JSONField(default=list, blank=True)  # what the translation changed
    wire_request = models.JSONField(null=True, blank=True)  # method, url, redacted headers, body
    # Raw events with their time since the request, for a row saved whole (imported, forked, recovered); a streamed
    # round trip's stay in its WireEventBatch rows (playground.conversations.raw_events reads both). Written compactly
    # (providers.jsontext): the longest column.
    wire_events = models.JSONField(default=list, blank=True, encoder=CompactEncoder)
    status_code = models.IntegerField(null=True, blank=True)
    finish_reason = models.CharField(max_length=30, blank=True)
    raw_finish_reason = models.CharField(max_length=60, blank=True)
    usage = models.JSONField(null=True, blank=True)
    error = models.JSONField(null=True, blank=True)
    complete = models.BooleanField(default=False)
    ttfb_ms = models.FloatField(null=True, blank=True)
    total_ms = models.FloatField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    # Measured when saved (see measure), so a page can size its panes without reading these big columns.
    event_count = models.PositiveIntegerField(default=0)  # its raw events: len(wire_events) and those of its batches
    body_chars = models.PositiveIntegerField(default=0)  # request and wire request, as JSON text

    class Meta:
        ordering = ["conversation", "position"]
        constraints = [models.UniqueConstraint(fields=["conversation", "position"], name="unique_round_trip_position")]

    def __str__(self) -> str:
        return f"round trip {self.position} of {self.conversation_id}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        fields = kwargs.get("update_fields")
        if fields is None or {"request", "wire_request"} & set(fields):
            self.measure()
            if fields is not None:
                kwargs["update_fields"] = {*fields, "event_count", "body_chars"}
        elif "wire_events" in fields:
            # Only the events changed (a round trip's end): the request, maybe a long history, is not encoded again.
            self.event_count = len(self.wire_events or [])
            kwargs["update_fields"] = {*fields, "event_count"}
        super().save(*args, **kwargs)

    def measure(self) -> None:
        """Count the raw events and the request's JSON text; bulk_create callers call it, save() does."""
        self.event_count = len(self.wire_events or [])
        body = len(json.dumps(self.request, ensure_ascii=False))
        self.body_chars = body + (len(json.dumps(self.wire_request, ensure_ascii=False)) if self.wire_request else 0)


class Message(models.Model):
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    position = models.PositiveIntegerField()
    role = models.CharField(max_length=12)
    data = models.JSONField()  # the internal (OpenAI Chat) message, exactly as sent to the model
    complete = models.BooleanField(default=True)  # False: the stream broke off; what arrived is kept
    round_trip = models.ForeignKey(RoundTrip, null=True, blank=True, on_delete=models.SET_NULL, related_name="messages")
    meta = models.JSONField(default=dict, blank=True)  # tool results: source, attempt, tool name
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["conversation", "position"]
        constraints = [models.UniqueConstraint(fields=["conversation", "position"], name="unique_message_position")]

    def __str__(self) -> str:
        return f"{self.role} message {self.position} of {self.conversation_id}"


class WireEventBatch(models.Model):
    """Raw events of a streamed round trip, saved a batch at a time as they arrive so a crash loses at most the last.

    Appending rows keeps each save as small as the batch, where rewriting one growing list would cost the whole
    stream again every time. They stay the events' one copy when the round trip ends (its end adds the last batch);
    a dead process's run, recovered, has them moved into ``RoundTrip.wire_events``.
    """

    round_trip = models.ForeignKey(RoundTrip, on_delete=models.CASCADE, related_name="event_batches")
    seq = models.PositiveIntegerField()
    events = models.JSONField(encoder=CompactEncoder)  # [t_ms, data, event] triples, in order

    class Meta:
        ordering = ["round_trip", "seq"]
        constraints = [models.UniqueConstraint(fields=["round_trip", "seq"], name="unique_event_batch_seq")]

    def __str__(self) -> str:
        return f"events batch {self.seq} of {self.round_trip_id}"
