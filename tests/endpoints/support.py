"""Helpers for the Providers page tests: a standalone simulator on a socket, signed-in clients, endpoint factories.

The views reach the simulator over HTTP at ``CROSSWIRE_SIMULATOR_URL``, as a deployment does, so these tests start
``python -m providers.simulator`` on a free port (the approach of tests/providers/conftest.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.urls import reverse

from tests.helpers import free_port

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.endpoints.models import Endpoint
    from playground.teams.models import Team

# Looks like a real key and is long enough that any accidental rendering would be found by substring search.
SECRET_KEY = "sk-proj-TOPSECRET-4f9a1c0d7e2b6a8f3c5d9e1b7a2c4f6e"
HTMX = {"HTTP_HX_REQUEST": "true"}


def unreachable_url() -> str:
    """A local port nobody listens on: connecting is refused at once."""
    return f"http://127.0.0.1:{free_port()}/v1"


def signed_in(client: Client, user: User, team: Team | None = None) -> Client:
    client.force_login(user)
    if team is not None:
        client.post(reverse("team-switch"), {"team": team.pk})
    return client


def make_endpoint(team: Team | None, **fields: Any) -> Endpoint:
    from playground.endpoints.models import Endpoint

    key = fields.pop("api_key", "")
    values: dict[str, Any] = {
        "name": "Local",
        "kind": Endpoint.Kind.COMPATIBLE,
        "format": "openai-chat",
        "base_url": "http://localhost:11434/v1",
        "model_names": ["llama3.2"],
        "default_model": "llama3.2",
        **fields,
    }
    endpoint = Endpoint(team=team, **values)
    if key:
        endpoint.set_api_key(key)
    endpoint.save()
    return endpoint


def form_data(**overrides: Any) -> dict[str, Any]:
    """A valid POST for an OpenAI-compatible endpoint."""
    data: dict[str, Any] = {
        "kind": "openai-compatible",
        "name": "Ollama",
        "base_url": "http://localhost:11434/v1",
        "api_key": "",
        "model_names": "llama3.2, qwen3:8b",
        "default_model": "llama3.2",
    }
    data.update(overrides)
    return {key: value for key, value in data.items() if value is not None}
