"""What a team adds to a saved conversation when reviewing it: labels, comments, verdicts and share links."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Label(models.Model):
    """A team-defined, coloured tag for conversations ("regression", "good example")."""

    team = models.ForeignKey("playground.Team", on_delete=models.CASCADE, related_name="labels")
    name = models.CharField(max_length=50)
    color = models.CharField(max_length=7, default="#6366f1")  # #rrggbb
    conversations = models.ManyToManyField("playground.Conversation", related_name="labels", blank=True)

    class Meta:
        ordering = ["team", "name"]
        constraints = [models.UniqueConstraint(fields=["team", "name"], name="unique_label_name")]

    def __str__(self) -> str:
        return self.name


class Comment(models.Model):
    """On a conversation, on one of its messages (``message_position``) or on one tool call (``call_id``)."""

    conversation = models.ForeignKey("playground.Conversation", on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="replies")
    message_position = models.PositiveIntegerField(null=True, blank=True)
    call_id = models.CharField(max_length=200, blank=True)
    body = models.TextField()
    resolved = models.BooleanField(default=False)
    edited = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["conversation", "created_at"]

    def __str__(self) -> str:
        return f"comment {self.pk} on {self.conversation_id}"


class Mention(models.Model):
    """A teammate named with @ in a comment: listed in their "for you" inbox until seen."""

    comment = models.ForeignKey(Comment, on_delete=models.CASCADE, related_name="mentions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mentions")
    seen = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["comment", "user"], name="unique_mention")]

    def __str__(self) -> str:
        return f"mention of {self.user_id} in comment {self.comment_id}"


class Verdict(models.Model):
    """A reviewer's judgement of one tool call; one per reviewer and call, changed by saving again."""

    class Kind(models.TextChoices):
        RIGHT = "right", "Right call"
        WRONG_TOOL = "wrong_tool", "Wrong tool"
        WRONG_ARGUMENTS = "wrong_arguments", "Wrong arguments"
        NOT_NEEDED = "not_needed", "Should not have called"
        OTHER = "other", "Other"

    conversation = models.ForeignKey("playground.Conversation", on_delete=models.CASCADE, related_name="verdicts")
    call_id = models.CharField(max_length=200)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["conversation", "created_at"]
        constraints = [
            models.UniqueConstraint(fields=["conversation", "call_id", "author"], name="unique_verdict_per_reviewer")
        ]

    def __str__(self) -> str:
        return f"{self.kind} on {self.call_id}"


class ShareLink(models.Model):
    """A read-only link to one conversation. Only a hash of its token is kept: a leaked database opens nothing."""

    conversation = models.ForeignKey("playground.Conversation", on_delete=models.CASCADE, related_name="share_links")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    token_hash = models.CharField(max_length=64, unique=True)  # sha256 hex of the token in the URL
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"share link {self.pk} of {self.conversation_id}"
