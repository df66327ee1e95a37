"""A server process loads at start-up what its first turn and first page would load on the event loop."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest

from providers.client import warm
from providers.simulator.app import BASE_PATHS
from tests.simulator_process import standalone_simulator

# Run in a new interpreter: this one has long since loaded everything. The round trips go over real sockets to a
# standalone simulator, through the event loop's shared client, as a served turn's do.
FIRST_TURN = """
import asyncio, sys
import playground.asgi
from django.core.cache import cache
from django.urls import resolve
from providers.client import Endpoint, round_trip
from providers.client.warm import REQUEST
from providers.simulator.app import BASE_PATHS

base = sys.argv[1]
loaded = set(sys.modules)

async def turns():
    for name, path in BASE_PATHS.items():
        rt = await round_trip(Endpoint(name, base + path, "sk-test"), REQUEST)
        assert rt.result.complete, (name, rt.result.error)

asyncio.run(turns())
resolve("/conversations/")
cache.get("anything")
print(" ".join(sorted(set(sys.modules) - loaded)))
"""


def test_a_served_processs_first_turn_of_each_format_and_first_page_import_nothing() -> None:
    # Each module a first turn imports is imported on the event loop, with every socket of the process waiting:
    # 100-200 ms per wire format before playground.shell.warm. A new SDK version that loads something else lazily
    # fails here.
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "playground.settings"}
    with standalone_simulator() as base:
        out = subprocess.run(
            [sys.executable, "-c", FIRST_TURN, base], env=env, capture_output=True, text=True, timeout=120
        )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [], "imported by a first turn or page, not at start-up"


def test_every_format_warms_up_without_a_log_line_per_request(caplog: pytest.LogCaptureFixture) -> None:
    assert set(BASE_PATHS) == set(warm.FORMATS)
    with caplog.at_level(logging.INFO):
        assert warm.warm_up() == []
    assert not [r for r in caplog.records if r.name == "httpx2"], "requests to a host named warm-up, at every start"
    assert logging.getLogger("httpx2").level == logging.NOTSET, "the HTTP log's level is given back"


def test_a_failed_warm_up_is_logged_and_never_stops_the_start(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(BASE_PATHS, "anthropic", "/nowhere")
    with caplog.at_level(logging.WARNING, logger=warm.__name__):
        assert warm.warm_up(["openai-chat", "anthropic"]) == ["anthropic"]
    assert "warming up anthropic" in caplog.text
