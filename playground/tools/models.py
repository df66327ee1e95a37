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
        MCP = "mcp", "MCP server"  # set only by importing a server's tools (playground/mcp/sync.py)

    team = models.ForeignKey("playground.Team", on_delete=models.CASCADE, related_name="tools")
    name = models.CharField(max_length=64)
    description = models.TextField(blank=True)
    parameters = models.JSONField(default=empty_parameters)
    strict = models.BooleanField(default=False)
    mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.MANUAL)
    builtin = models.CharField(max_length=40, blank=True)
    canned_rules = models.JSONField(default=list, blank=True)
    canned_default = models.TextField(blank=True)
    # Mode "mcp": the server that answers, and the tool's name there (the local name may differ: see mcp/sync.py).
    # A deleted server leaves its tools in place, unanswerable, rather than deleting part of a team's library.
    mcp_server = models.ForeignKey(
        "playground.MCPServer", null=True, blank=True, on_delete=models.SET_NULL, related_name="tools"
    )
    mcp_tool = models.CharField(max_length=128, blank=True)
    # Set when the server stopped listing the tool; cleared if it lists it again. Such tools are never deleted.
    mcp_removed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["team", "name"], name="unique_tool_name_per_team"),
            models.UniqueConstraint(
                fields=["mcp_server", "mcp_tool"],
                condition=models.Q(mcp_server__isnull=False),
                name="unique_tool_per_mcp_server",
            ),
        ]

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
                "mcp_server_id": self.mcp_server_id,
                "mcp_tool": self.mcp_tool,
            }
        )


# The modes a person picks in the editor or names in an import; "mcp" tools come only from syncing a server.
HAND_SET_MODES = [(value, label) for value, label in Tool.Mode.choices if value != Tool.Mode.MCP]
