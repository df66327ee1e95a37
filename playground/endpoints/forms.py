"""The endpoint form: kinds, presets, base URL rules and the write-only API key field."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.conf import settings

from playground.endpoints import policy
from playground.endpoints.models import Endpoint
from playground.teams.models import Team
from providers.strategies.capabilities import AUTO, STRATEGIES


@dataclass(frozen=True)
class KindSpec:
    kind: str
    label: str
    format: str
    default_url: str | None  # None: the user must give one, which makes it a custom base URL
    help: str


KINDS: dict[str, KindSpec] = {
    spec.kind: spec
    for spec in (
        KindSpec(
            Endpoint.Kind.OPENAI, "OpenAI", "openai-chat", "https://api.openai.com/v1", "The OpenAI API with your key."
        ),
        KindSpec(
            Endpoint.Kind.OPENAI_RESPONSES,
            "OpenAI (Responses API)",
            "openai-responses",
            "https://api.openai.com/v1",
            "The OpenAI Responses API with your key: reasoning items are kept and sent back with each turn.",
        ),
        KindSpec(
            Endpoint.Kind.ANTHROPIC,
            "Anthropic",
            "anthropic",
            "https://api.anthropic.com",
            "The Anthropic Messages API with your key.",
        ),
        KindSpec(
            Endpoint.Kind.GEMINI,
            "Google Gemini",
            "gemini",
            "https://generativelanguage.googleapis.com",
            "Google's Gemini API with your key: thought signatures are kept and sent back with each turn.",
        ),
        KindSpec(
            Endpoint.Kind.COMPATIBLE,
            "OpenAI-compatible",
            "openai-chat",
            None,
            "Any server that speaks OpenAI Chat Completions: local runtimes and gateways.",
        ),
    )
}


@dataclass(frozen=True)
class Preset:
    key: str
    name: str
    base_url: str


PRESETS: tuple[Preset, ...] = (
    Preset("ollama", "Ollama", "http://localhost:11434/v1"),
    Preset("vllm", "vLLM", "http://localhost:8000/v1"),
    Preset("llamacpp", "llama.cpp", "http://localhost:8080/v1"),
    Preset("openrouter", "OpenRouter", "https://openrouter.ai/api/v1"),
    Preset("groq", "Groq", "https://api.groq.com/openai/v1"),
)
PRESETS_BY_KEY = {preset.key: preset for preset in PRESETS}

_MODEL_SEPARATORS = re.compile(r"[,\n\r]+")


MAX_MODEL_NAME_CHARS = 200  # the default model's column holds this much


def parse_model_names(text: str) -> list[str]:
    """Comma- or newline-separated names, trimmed, duplicates dropped, order kept.

    A dict keeps the order and answers "seen?" in constant time: a list did in linear time, so a pasted list of
    100,000 names took most of a minute.
    """
    stripped = (part.strip() for part in _MODEL_SEPARATORS.split(text))
    return list(dict.fromkeys(name for name in stripped if name))


def model_names_problem(names: Sequence[str], limit: int) -> str | None:
    """Why a list of model names is refused: too many to offer in a select, or a name no column can hold."""
    if len(names) > limit:
        return f"{len(names):,} model names is more than the {limit:,} an endpoint keeps (CROSSWIRE_MAX_MODEL_NAMES)."
    too_long = next((name for name in names if len(name) > MAX_MODEL_NAME_CHARS), None)
    if too_long is not None:
        return f"Model names are at most {MAX_MODEL_NAME_CHARS} characters; one has {len(too_long):,}."
    return None


def spec_for(endpoint: Endpoint) -> KindSpec:
    return KINDS[endpoint.kind]


class EndpointForm(forms.Form):
    name = forms.CharField(max_length=100)
    base_url = forms.CharField(max_length=500, required=False)
    # Write-only: never given an initial value, never rendered back (render_value=False), never echoed in errors.
    api_key = forms.CharField(max_length=500, required=False, widget=forms.PasswordInput(render_value=False))
    remove_key = forms.BooleanField(required=False)
    model_names = forms.CharField(required=False, widget=forms.Textarea)
    default_model = forms.CharField(max_length=200, required=False)
    supports_reasoning = forms.BooleanField(required=False)
    tool_strategy = forms.ChoiceField(required=False, choices=[(s, s) for s in STRATEGIES])

    def __init__(
        self,
        data: Any = None,
        *,
        spec: KindSpec,
        team: Team,
        is_owner: bool,
        instance: Endpoint | None = None,
        initial: dict[str, Any] | None = None,
    ) -> None:
        if instance is not None and initial is None:
            initial = {
                "name": instance.name,
                "base_url": instance.base_url,
                "model_names": "\n".join(instance.model_names),
                "default_model": instance.default_model,
                "supports_reasoning": instance.supports_reasoning,
                "tool_strategy": instance.tool_strategy,
            }
        super().__init__(data, initial=initial or {"base_url": spec.default_url or ""})
        self.spec = spec
        self.team = team
        self.is_owner = is_owner
        self.instance = instance
        self.warnings: list[str] = []

    @property
    def allowed_prefixes(self) -> Sequence[str]:
        return settings.CROSSWIRE_ALLOWED_BASE_URLS

    @property
    def base_url_editable(self) -> bool:
        """Kinds without a default URL always take one; the official APIs' URL only owners may override."""
        return self.is_owner or self.spec.default_url is None

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        taken = Endpoint.objects.filter(team=self.team, name__iexact=name)
        if self.instance is not None:
            taken = taken.exclude(pk=self.instance.pk)
        if taken.exists():
            raise forms.ValidationError("This team already has an endpoint with that name.")
        return name

    def clean_base_url(self) -> str:
        url = policy.normalize_base_url(self.cleaned_data["base_url"]) or (self.spec.default_url or "")
        if not url:
            raise forms.ValidationError("Enter the server's base URL, e.g. http://localhost:11434/v1.")
        check = policy.check_base_url(url, self.spec.format)
        if check.errors:
            raise forms.ValidationError(check.errors)
        old_url = self.instance.base_url if self.instance is not None else None
        refusal = policy.base_url_refusal(
            url=url,
            default_url=self.spec.default_url,
            changing=old_url is None or policy.normalize_base_url(old_url) != url,
            is_owner=self.is_owner,
            allowed_prefixes=self.allowed_prefixes,
        )
        if refusal:
            raise forms.ValidationError(refusal)
        self.warnings = check.warnings
        return url

    def clean_api_key(self) -> str:
        key = self.cleaned_data["api_key"]
        # Checked without quoting the value: error messages are rendered, and the key must never be.
        if any(ch.isspace() for ch in key) or not key.isprintable():
            raise forms.ValidationError("An API key is one line of text without spaces.")
        return key

    def clean_model_names(self) -> list[str]:
        names = parse_model_names(self.cleaned_data["model_names"])
        problem = model_names_problem(names, settings.CROSSWIRE_MAX_MODEL_NAMES)
        if problem:
            raise forms.ValidationError(problem)
        return names

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("api_key") and data.get("remove_key"):
            self.add_error("remove_key", "Either replace the key or remove it, not both.")
        names = data.get("model_names") or []
        default = (data.get("default_model") or "").strip()
        # A default that is not listed (the list was just retyped) falls back to the first name.
        data["default_model"] = default if default in names else (names[0] if names else "")
        return data

    def save(self, *, created_by: Any = None) -> Endpoint:
        endpoint = self.instance or Endpoint(
            team=self.team, kind=self.spec.kind, format=self.spec.format, created_by=created_by
        )
        data = self.cleaned_data
        endpoint.name = data["name"]
        endpoint.base_url = data["base_url"]
        endpoint.model_names = data["model_names"]
        endpoint.default_model = data["default_model"]
        endpoint.supports_reasoning = data["supports_reasoning"]
        endpoint.tool_strategy = data.get("tool_strategy") or AUTO
        if data["remove_key"]:
            endpoint.set_api_key("")
        elif data["api_key"]:
            endpoint.set_api_key(data["api_key"])
        endpoint.save()
        return endpoint

    def model_choices(self) -> list[str]:
        """Options for the default-model select: the names as submitted or saved, no more than the limit."""
        text = self.data.get("model_names", "") if self.is_bound else str(self.initial.get("model_names", ""))
        return parse_model_names(text)[: settings.CROSSWIRE_MAX_MODEL_NAMES]

    def current_default(self) -> str:
        if self.is_bound:
            return str(self.data.get("default_model", ""))
        return str(self.initial.get("default_model", ""))
