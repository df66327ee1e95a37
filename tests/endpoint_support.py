"""Helpers for the Providers page tests: a standalone simulator on a socket, signed-in clients, endpoint factories.

The views reach the simulator over HTTP at ``CROSSWIRE_SIMULATOR_URL``, as a deployment does, so these tests start
``python -m providers.simulator`` on a free port (the approach of tests/providers/conftest.py).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from django.urls import reverse

from tests.helpers import ROOT, free_port

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.test import Client

    from playground.catalog import Endpoint
    from playground.models import Team

STARTUP_TIMEOUT_S = 20
# Looks like a real key and is long enough that any accidental rendering would be found by substring search.
SECRET_KEY = "sk-proj-TOPSECRET-4f9a1c0d7e2b6a8f3c5d9e1b7a2c4f6e"
HTMX = {"HTTP_HX_REQUEST": "true"}


def _wait_for(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the simulator exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the simulator did not start listening in time")


@contextmanager
def standalone_simulator() -> Iterator[str]:
    """``http://127.0.0.1:<port>/sim`` of a simulator subprocess, stopped on exit."""
    port = free_port()
    command = [sys.executable, "-m", "providers.simulator", "--port", str(port), "--pace-ms", "0"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(port, process)
        yield f"http://127.0.0.1:{port}/sim"
    finally:
        process.terminate()
        process.wait(timeout=10)


def unreachable_url() -> str:
    """A local port nobody listens on: connecting is refused at once."""
    return f"http://127.0.0.1:{free_port()}/v1"


def signed_in(client: Client, user: User, team: Team | None = None) -> Client:
    client.force_login(user)
    if team is not None:
        client.post(reverse("team-switch"), {"team": team.pk})
    return client


def make_endpoint(team: Team | None, **fields: Any) -> Endpoint:
    from playground.catalog import Endpoint

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
