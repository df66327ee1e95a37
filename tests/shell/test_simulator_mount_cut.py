"""``sim-cut`` through the simulator mounted in the app (under daphne): a quick cut-connection error, as standalone."""

from __future__ import annotations

import pytest

from providers.client import Endpoint, round_trip
from tests.conftest import DemoServer

# Well under daphne's 120 s: a hang would end as "timeout", so the error type alone tells the two apart.
READ_TIMEOUT_S = 20.0


@pytest.mark.parametrize(("fmt", "path"), [("openai-chat", "/sim/openai/v1"), ("anthropic", "/sim/anthropic")])
@pytest.mark.parametrize("stream", [True, False])
async def test_sim_cut_under_the_mount_is_a_cut_connection(
    daphne_server: DemoServer, fmt: str, path: str, stream: bool
) -> None:
    endpoint = Endpoint(fmt, daphne_server.url + path, "simulator", timeout=READ_TIMEOUT_S)
    request = {
        "model": "sim-cut",
        "stream": stream,
        "max_tokens": 256,
        "messages": [{"role": "user", "content": '/call get_weather {"city": "Paris"}'}],
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}],
    }
    result = (await round_trip(endpoint, request)).result  # type: ignore[arg-type]
    assert result.error is not None and result.error.type in {"connection", "invalid_response"}, result.error
    assert not result.complete
