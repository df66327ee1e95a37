"""A comparison groups ordinary saved conversations: one per column and repeat, run on the same prompt and tools."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models


def default_settings() -> dict[str, Any]:
    return {}


class Comparison(models.Model):
    class Kind(models.TextChoices):
        COMPARE = "compare", "Compare"
        REPLAY = "replay", "Replay"

    team = models.ForeignKey("playground.Team", on_delete=models.CASCADE, related_name="comparisons")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.COMPARE)
    title = models.CharField(max_length=200, blank=True)
    # What every column shares (system prompt, message, tools, tool choice…) and each column's own settings, as
    # submitted: the columns' conversations hold what each run actually used.
    settings = models.JSONField(default=default_settings, blank=True)
    repeat = models.PositiveSmallIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.title or f"Comparison {self.pk}"


class ComparisonRun(models.Model):
    """One conversation of a comparison: column ``position``, ``repeat`` 0 being the one the columns show."""

    comparison = models.ForeignKey(Comparison, on_delete=models.CASCADE, related_name="runs")
    position = models.PositiveSmallIntegerField()
    repeat = models.PositiveSmallIntegerField(default=0)
    # A foreign key, not one-to-one: a conversation replayed twice is the original column of two comparisons.
    conversation = models.ForeignKey(
        "playground.Conversation", on_delete=models.CASCADE, related_name="comparison_runs"
    )

    class Meta:
        ordering = ["comparison", "position", "repeat"]
        constraints = [
            models.UniqueConstraint(fields=["comparison", "position", "repeat"], name="unique_comparison_run")
        ]

    def __str__(self) -> str:
        return f"column {self.position} repeat {self.repeat} of {self.comparison_id}"
