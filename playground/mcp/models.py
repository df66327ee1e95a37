"""A team's MCP servers: where each one is reached (a URL, or a stdio server the administrator configured) and how."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from playground.endpoints import crypto

# Seconds: long enough for a slow tool, short enough that a stuck server does not hold a run for minutes.
DEFAULT_CONNECT_TIMEOUT_S = 10.0
DEFAULT_CALL_TIMEOUT_S = 60.0
TIMEOUT_RANGE = [MinValueValidator(0.1), MaxValueValidator(600.0)]
DEFAULT_AUTH_HEADER = "Authorization"


class MCPServer(models.Model):
    class Transport(models.TextChoices):
        HTTP = "http", "Streamable HTTP"
        STDIO = "stdio", "Stdio (configured by the administrator)"

    team = models.ForeignKey("playground.Team", on_delete=models.CASCADE, related_name="mcp_servers")
    name = models.CharField(max_length=100)
    transport = models.CharField(max_length=10, choices=Transport.choices)
    url = models.CharField(max_length=500, blank=True)  # http only
    # stdio only: a key of settings.CROSSWIRE_MCP_STDIO_SERVERS. A command is never stored here, nor typed in the UI.
    stdio_key = models.CharField(max_length=100, blank=True)
    # http only. The name is no secret and is shown; the value is encrypted like an endpoint's API key and never
    # shown back: only its hint is.
    auth_header_name = models.CharField(max_length=100, blank=True)
    auth_header_encrypted = models.TextField(blank=True)
    auth_header_hint = models.CharField(max_length=16, blank=True)
    connect_timeout_s = models.FloatField(default=DEFAULT_CONNECT_TIMEOUT_S, validators=TIMEOUT_RANGE)
    call_timeout_s = models.FloatField(default=DEFAULT_CALL_TIMEOUT_S, validators=TIMEOUT_RANGE)
    last_synced_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)  # of the last sync; empty when it worked
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["team", "name"], name="unique_mcp_server_name_per_team")]

    def __str__(self) -> str:
        return self.name

    def set_auth_header(self, value: str, name: str = DEFAULT_AUTH_HEADER) -> None:
        """Store the header's value encrypted; an empty value removes the header."""
        self.auth_header_name = name.strip() if value else ""
        self.auth_header_encrypted = crypto.encrypt(value)
        self.auth_header_hint = crypto.hint(value) if value else ""

    def auth_headers(self) -> dict[str, str]:
        """The header to send, decrypted only here, to make a request; {} without one (or after a key change)."""
        value = crypto.decrypt(self.auth_header_encrypted)
        return {self.auth_header_name: value} if value and self.auth_header_name else {}
