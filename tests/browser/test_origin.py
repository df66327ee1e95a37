"""A page on another port of the same host cannot open the app's sockets with the user's cookies."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.async_api import Page

from tests.conftest import DemoServer

pytestmark = pytest.mark.browser

OPEN_SOCKET = """url => new Promise(resolve => {
    const socket = new WebSocket(url);
    socket.onopen = () => { socket.close(); resolve("open"); };
    socket.onclose = () => resolve("refused");
})"""


@pytest.fixture
def other_site(tmp_path: Path) -> Iterator[str]:
    """A plain page served from another port of 127.0.0.1."""
    (tmp_path / "index.html").write_text("<!doctype html><title>another site</title><p>hello</p>")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(SimpleHTTPRequestHandler, directory=str(tmp_path)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()


async def test_only_the_apps_own_pages_open_its_sockets(
    signed_in: Page, daphne_server: DemoServer, other_site: str, console_errors: list[str]
) -> None:
    socket_url = daphne_server.url.replace("http://", "ws://") + "/ws/status/"
    assert await signed_in.evaluate(OPEN_SOCKET, socket_url) == "open"  # the control: same page, same cookie

    await signed_in.goto(other_site)
    assert await signed_in.title() == "another site"
    assert await signed_in.evaluate(OPEN_SOCKET, socket_url) == "refused"
    # The other site's own errors (its missing favicon, the refused handshake) are what this test provokes.
    refused = [e for e in console_errors if "403" in e or other_site in e]
    assert any("403" in e for e in refused)
    console_errors[:] = [e for e in console_errors if e not in refused]
