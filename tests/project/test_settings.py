"""playground/settings.py evaluated afresh under different environments (no Django restart needed: it is pure)."""

from __future__ import annotations

import os
import runpy
import stat
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet
from django.conf import settings as live_settings
from django.core.exceptions import ImproperlyConfigured

import playground.settings

SETTINGS_FILE = playground.settings.__file__
CROSSWIRE_VARIABLES = [
    "CROSSWIRE_ENV",
    "DEBUG",
    "SECRET_KEY",
    "SECRET_KEY_FILE",
    "ALLOWED_HOSTS",
    "DATABASE_URL",
    "REDIS_URL",
    "CROSSWIRE_ENCRYPTION_KEY",
    "CROSSWIRE_ENCRYPTION_KEY_FILE",
    "CROSSWIRE_ALLOWED_BASE_URLS",
    "CROSSWIRE_SIMULATOR_URL",
    "SECURE_SSL_REDIRECT",
    "TRUST_X_FORWARDED_PROTO",
]
PRODUCTION_KEY = "p" * 10 + "roduction-secret-key-that-is-long-and-random-enough-4f9a"


@pytest.fixture
def load(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """Evaluate settings.py with exactly the given variables (and a private data dir)."""

    def _load(**env: str) -> dict[str, Any]:
        for name in CROSSWIRE_VARIABLES:
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("CROSSWIRE_DATA_DIR", str(tmp_path / "data"))
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return runpy.run_path(SETTINGS_FILE)

    return _load


def production(**env: str) -> dict[str, str]:
    return {
        "CROSSWIRE_ENV": "production",
        "SECRET_KEY": PRODUCTION_KEY,
        "ALLOWED_HOSTS": "crosswire.example.com",
        "CROSSWIRE_ENCRYPTION_KEY": Fernet.generate_key().decode(),
        **env,
    }


def test_local_defaults_need_no_configuration(load: Any, tmp_path: Path) -> None:
    settings = load()
    assert settings["DEBUG"] is True
    assert settings["DATABASES"]["default"]["ENGINE"] == "django.db.backends.sqlite3"
    assert settings["DATABASES"]["default"]["NAME"] == tmp_path / "data" / "crosswire.sqlite3"
    assert settings["CHANNEL_LAYERS"]["default"]["BACKEND"] == "playground.shell.memory_layer.InMemoryChannelLayer"
    assert settings["CHANNEL_LAYERS"]["default"]["CONFIG"]["capacity"] >= 10_000
    assert settings["ALLOWED_HOSTS"] == ["127.0.0.1", "localhost", "[::1]"]
    assert settings["CROSSWIRE_SIMULATOR_URL"] == "http://127.0.0.1:8000/sim"
    assert settings["CROSSWIRE_ALLOWED_BASE_URLS"] == ["*"]


def test_daphne_comes_first_so_runserver_speaks_websocket(load: Any) -> None:
    assert load()["INSTALLED_APPS"][0] == "daphne"


def test_local_secret_key_is_random_private_and_kept(load: Any, tmp_path: Path) -> None:
    first = load()["SECRET_KEY"]
    key_file = tmp_path / "data" / "secret_key"
    assert len(first) >= 50
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert load()["SECRET_KEY"] == first


def test_local_encryption_key_is_derived_from_the_secret_key(load: Any) -> None:
    one = load(SECRET_KEY="one-" * 13)["CROSSWIRE_ENCRYPTION_KEY"]
    two = load(SECRET_KEY="two-" * 13)["CROSSWIRE_ENCRYPTION_KEY"]
    assert one != two
    token = Fernet(one).encrypt(b"sk-test")
    assert Fernet(load(SECRET_KEY="one-" * 13)["CROSSWIRE_ENCRYPTION_KEY"]).decrypt(token) == b"sk-test"


def test_production_turns_debug_off_and_cookies_secure(load: Any) -> None:
    settings = load(**production())
    assert settings["DEBUG"] is False
    assert settings["SESSION_COOKIE_SECURE"] is True
    assert settings["CSRF_COOKIE_SECURE"] is True
    assert settings["SECURE_SSL_REDIRECT"] is True
    assert settings["SECURE_HSTS_SECONDS"] >= 31_536_000
    assert settings["ALLOWED_HOSTS"] == ["crosswire.example.com"]
    assert settings["CROSSWIRE_ALLOWED_BASE_URLS"] == []
    assert "Manifest" in settings["STORAGES"]["staticfiles"]["BACKEND"]


@pytest.mark.parametrize("missing", ["SECRET_KEY", "ALLOWED_HOSTS", "CROSSWIRE_ENCRYPTION_KEY"])
def test_production_refuses_to_start_without_required_settings(load: Any, missing: str) -> None:
    env = production()
    del env[missing]
    with pytest.raises(ImproperlyConfigured, match=missing):
        load(**env)


def test_secrets_can_come_from_files(load: Any, tmp_path: Path) -> None:
    key_file = tmp_path / "secret"
    key_file.write_text(PRODUCTION_KEY + "\n")
    env = production(SECRET_KEY_FILE=str(key_file))
    del env["SECRET_KEY"]
    assert load(**env)["SECRET_KEY"] == PRODUCTION_KEY


def test_unreadable_secret_file_is_a_clear_error(load: Any, tmp_path: Path) -> None:
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY_FILE"):
        load(SECRET_KEY_FILE=str(tmp_path / "missing"))


def test_database_url_switches_to_postgresql(load: Any) -> None:
    database = load(DATABASE_URL="postgresql://crosswire:pw@db.internal:5433/crosswire")["DATABASES"]["default"]
    assert database["ENGINE"] == "django.db.backends.postgresql"
    assert (database["HOST"], database["PORT"], database["NAME"], database["USER"]) == (
        "db.internal",
        5433,
        "crosswire",
        "crosswire",
    )


def test_redis_url_switches_to_the_redis_channel_layer(load: Any) -> None:
    layer = load(REDIS_URL="redis://cache.internal:6379/2")["CHANNEL_LAYERS"]["default"]
    assert layer["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    # No read timeout: redis-py 8's default one breaks channels-redis's blocking receive on idle sockets.
    assert layer["CONFIG"]["hosts"] == [{"address": "redis://cache.internal:6379/2", "socket_timeout": None}]
    assert layer["CONFIG"]["capacity"] >= 10_000


def test_lists_and_urls_are_parsed(load: Any) -> None:
    settings = load(
        CROSSWIRE_ALLOWED_BASE_URLS="https://api.groq.com/openai/v1, http://localhost:11434/v1",
        CROSSWIRE_SIMULATOR_URL="http://web:8000/sim/",
    )
    assert settings["CROSSWIRE_ALLOWED_BASE_URLS"] == ["https://api.groq.com/openai/v1", "http://localhost:11434/v1"]
    assert settings["CROSSWIRE_SIMULATOR_URL"] == "http://web:8000/sim"


def test_proxy_header_is_trusted_only_when_asked(load: Any) -> None:
    assert "SECURE_PROXY_SSL_HEADER" not in load(**production())
    assert load(**production(TRUST_X_FORWARDED_PROTO="1"))["SECURE_PROXY_SSL_HEADER"] == (
        "HTTP_X_FORWARDED_PROTO",
        "https",
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"CROSSWIRE_ENV": "staging"}, "CROSSWIRE_ENV"),
        ({"DEBUG": "maybe"}, "DEBUG must be a boolean"),
        ({"SECURE_SSL_REDIRECT": "2"}, "SECURE_SSL_REDIRECT"),
        ({"CROSSWIRE_ENCRYPTION_KEY": "too-short"}, "32 url-safe base64"),
    ],
)
def test_bad_values_are_rejected_with_the_variable_name(load: Any, env: dict[str, str], message: str) -> None:
    with pytest.raises(ImproperlyConfigured, match=message):
        load(**env)


def test_bad_integer_is_rejected(load: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHANNEL_LAYER_CAPACITY", "lots")
    with pytest.raises(ImproperlyConfigured, match="CHANNEL_LAYER_CAPACITY must be an integer"):
        load()


def test_the_suite_runs_on_the_services_the_environment_names() -> None:
    # Guards the services pass of CI: with DATABASE_URL and REDIS_URL set, everything in-process must really use
    # PostgreSQL and Redis, not quietly fall back to SQLite and the in-memory layer.
    database = "postgresql" if os.environ.get("DATABASE_URL") else "sqlite3"
    layer = "core.RedisChannelLayer" if os.environ.get("REDIS_URL") else "memory_layer.InMemoryChannelLayer"
    assert live_settings.DATABASES["default"]["ENGINE"] == f"django.db.backends.{database}"
    assert live_settings.CHANNEL_LAYERS["default"]["BACKEND"].endswith(layer)
