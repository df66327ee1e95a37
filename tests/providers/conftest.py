"""Fixtures shared by the provider tests that open real sockets."""

from __future__ import annotations

import pytest

PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


@pytest.fixture
def no_env_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """No proxy from the environment: requests to 127.0.0.1 must go straight to the test's own server."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
