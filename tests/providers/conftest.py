"""Shared fixtures for providers/ tests: the standalone simulator on a real socket.

In-process ASGI transport buffers whole responses, so cut streams, timeouts and pacing need a real server.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.simulator_process import free_port, standalone_simulator

__all__ = ["free_port", "simulator_url"]


@pytest.fixture(scope="session")
def simulator_url() -> Iterator[str]:
    """``http://127.0.0.1:<port>/sim`` of a standalone simulator started for the test run."""
    with standalone_simulator() as url:
        yield url
