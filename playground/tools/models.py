"""A team's tool library: definitions and how each tool's calls are answered."""

from __future__ import annotations

from typing import Any

from django.db import models

from playground.tools.config import ToolConfig


def empty_parameters() -> dict[str, Any]:
    return {"type": "object", "properties": {}, "required": []}


class Tool(models.Model):
    class Mode(models.TextChoices):
        MANUAL = "manual", "Answered by hand"
        CANNED = "canned", "Canned responses"
        BUILTIN = "builtin", "Built-in"

    team = models.ForeignKey("playground.Team", on_delete=models.CASCADE, related_name="tools")
    name = models.CharField(max_length=64)
    description = models.TextField(blank=True)
    parameters = models.JSONField(default=empty_parameters)
    strict = models.BooleanField(default=False)
    mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.MANUAL)
    builtin = models.CharField(max_length=40, blank=True)
    canned_rules = models.JSONField(default=list, blank=True)
    canned_default = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["team", "name"], name="unique_tool_name_per_team")]

    def __str__(self) -> str:
        return self.name

    def config(self) -> ToolConfig:
        """A frozen snapshot: what a conversation stores, so editing the tool never rewrites history."""
        return ToolConfig.from_dict(
            {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
                "strict": self.strict,
                "mode": self.mode,
                "builtin": self.builtin,
                "canned_rules": self.canned_rules,
                "canned_default": self.canned_default,
            }
        )
