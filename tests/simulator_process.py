"""The standalone simulator as a subprocess on a free port: for tests that need real sockets (cut streams,
timeouts, pacing) or that point the app at a simulator it reaches over HTTP. No Django here."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STARTUP_TIMEOUT_S = 20


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
