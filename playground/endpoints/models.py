"""A team's provider endpoints: where requests go, with which wire format and which (encrypted) key."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from playground.endpoints import crypto, policy
from providers.client import Endpoint as ClientEndpoint
from providers.client.scrub import KEYLESS_PLACEHOLDER
from providers.strategies.capabilities import STRATEGIES


class Endpoint(models.Model):
    class Kind(models.TextChoices):
        SIMULATED = "simulated", "Simulator"
        OPENAI = "openai", "OpenAI"
        OPENAI_RESPONSES = "openai-responses", "OpenAI (Responses API)"
        ANTHROPIC = "anthropic", "Anthropic"
        GEMINI = "gemini", "Google Gemini"
        COMPATIBLE = "openai-compatible", "OpenAI-compatible"

    # No team: a built-in endpoint every team sees (the simulated ones).
    team = models.ForeignKey(
        "playground.Team", null=True, blank=True, on_delete=models.CASCADE, related_name="endpoints"
    )
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    format = models.CharField(max_length=20)  # a wire format name from providers.formats
    # Simulated endpoints store the path under the simulator (e.g. "/openai/v1"); the rest a full URL.
    base_url = models.CharField(max_length=500)
    api_key_encrypted = models.TextField(blank=True)
    api_key_hint = models.CharField(max_length=16, blank=True)
    model_names = models.JSONField(default=list, blank=True)
    default_model = models.CharField(max_length=200, blank=True)
    supports_reasoning = models.BooleanField(default=False)
    # What a chat's "auto" strategy means here: "auto" reads the capability table (providers.strategies); any
    # other value is this endpoint's own answer, for a server the table gets wrong (say a local model without tools).
    tool_strategy = models.CharField(max_length=12, default="auto", choices=[(s, s) for s in STRATEGIES])
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["team_id", "name"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_simulated(self) -> bool:
        return self.kind == self.Kind.SIMULATED

    def resolved_base_url(self) -> str:
        if self.is_simulated:
            return settings.CROSSWIRE_SIMULATOR_URL + self.base_url
        return self.base_url.rstrip("/")

    def set_api_key(self, key: str) -> None:
        self.api_key_encrypted = crypto.encrypt(key)
        self.api_key_hint = crypto.hint(key) if key else ""

    def api_key(self) -> str:
        # The simulator wants a key like the real APIs do; in production the mount checks it is the app's own.
        return settings.CROSSWIRE_SIMULATOR_KEY if self.is_simulated else crypto.decrypt(self.api_key_encrypted)

    def client_endpoint(self, *, timeout: float = 120.0, pace_ms: int | None = None) -> ClientEndpoint:
        headers: dict[str, str] = {}
        if self.is_simulated and pace_ms is not None:
            headers["x-sim-pace-ms"] = str(pace_ms)
        # The SDKs refuse to build a client without a key; local servers (Ollama, llama.cpp) need none and ignore
        # this placeholder, and a real API answers it with a readable 401.
        key = self.api_key() or KEYLESS_PLACEHOLDER
        # The simulator is the app's own (often on loopback); every other endpoint's addresses are checked as dialled.
        guard = None if self.is_simulated else policy.address_policy(settings.CROSSWIRE_ALLOWED_BASE_URLS)
        return ClientEndpoint(
            self.format, self.resolved_base_url(), key, timeout=timeout, headers=headers, address_policy=guard
        )
