"""Real servers for tests that need a socket: daphne subprocesses on free ports, and an HTTP login for their cookie."""

from __future__ import annotations

import http.cookiejar
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STARTUP_TIMEOUT_S = 30


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(data_dir: Path, **overrides: str) -> dict[str, str]:
    """A local-mode environment on its own SQLite file; the parent's DATABASE_URL must not leak into it."""
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env.update(
        {
            "CROSSWIRE_ENV": "local",
            "DEBUG": "1",
            "CROSSWIRE_DATA_DIR": str(data_dir),
            "SECRET_KEY": secrets.token_urlsafe(50),
            "DJANGO_SETTINGS_MODULE": "playground.settings",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(overrides)
    return env


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )


def prepare_database(env: dict[str, str]) -> str:
    """Migrate and set up the demo account; returns the demo password that setup_demo printed."""
    manage(env, "migrate", "--noinput", "-v0")
    output = manage(env, "setup_demo").stdout
    match = re.search(r"Password:\s+(\S+)", output)
    if match is None:
        raise AssertionError(f"setup_demo printed no password:\n{output}")
    return match.group(1)


def stop_process(process: subprocess.Popen[bytes]) -> None:
    """Terminate, and kill after 10 s if it will not go."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class DaphneServer:
    url: str
    env: dict[str, str]
    log_path: Path
    process: subprocess.Popen[bytes] = field(repr=False)

    @property
    def ws_url(self) -> str:
        return "ws" + self.url.removeprefix("http")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        stop_process(self.process)


def start_daphne(env: dict[str, str], log_path: Path) -> DaphneServer:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    # The app reaches its simulator over HTTP; unless told otherwise, the one mounted on this very server.
    env = {"CROSSWIRE_SIMULATOR_URL": f"{url}/sim", **env}
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "playground.asgi:application"],
            env=env,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    server = DaphneServer(url=url, env=env, log_path=log_path, process=process)
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited with {process.returncode}:\n{server.log()}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
                if response.status == 200:
                    return server
        except OSError:
            time.sleep(0.1)
    server.stop()
    raise RuntimeError(f"daphne did not answer {url}/healthz within {STARTUP_TIMEOUT_S} s:\n{server.log()}")


def login(base_url: str, username: str, password: str) -> str:
    """Sign in through the real login form; returns the session cookie value."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{base_url}/login/") as response:
        response.read()
    csrf = next(cookie.value for cookie in jar if cookie.name == "csrftoken")
    body = urllib.parse.urlencode({"username": username, "password": password, "csrfmiddlewaretoken": csrf}).encode()
    with opener.open(urllib.request.Request(f"{base_url}/login/", data=body)) as response:
        # Success leaves the login page (for the playground, which opens a chat); failure shows the form again.
        if "/login/" in response.url:
            raise AssertionError(f"login as {username} was refused (ended at {response.url})")
    return next(cookie.value for cookie in jar if cookie.name == "sessionid")


def logout(base_url: str, session: str) -> None:
    """Sign out through the real sign-out button (a POST with the page's CSRF token)."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.addheaders = [("Cookie", f"sessionid={session}")]
    with opener.open(f"{base_url}/login/") as response:  # any page sets the CSRF cookie
        response.read()
    csrf = next(cookie.value for cookie in jar if cookie.name == "csrftoken")
    body = urllib.parse.urlencode({"csrfmiddlewaretoken": csrf}).encode()
    request = urllib.request.Request(f"{base_url}/logout/", data=body)
    request.add_header("Cookie", f"sessionid={session}; csrftoken={csrf}")
    with urllib.request.urlopen(request) as response:
        if "/login/" not in response.url:
            raise AssertionError(f"sign-out did not end on the login page ({response.url})")
