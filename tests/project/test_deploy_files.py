"""docker-compose.yml, the Dockerfile and the nginx config, checked by reading (no Docker on the test machines)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SETTINGS_SOURCE = (ROOT / "playground" / "settings.py").read_text()


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_has_the_database_redis_two_replicas_and_a_proxy(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == {"db", "redis", "migrate", "web1", "web2", "proxy"}
    assert "pgdata:/var/lib/postgresql/data" in services["db"]["volumes"]
    assert "pgdata" in compose["volumes"]
    for name in ("db", "redis", "web1", "web2", "proxy"):
        assert services[name]["healthcheck"]["test"], f"{name} has no health check"


def test_both_replicas_share_the_same_services_and_wait_for_migrations(compose: dict[str, Any]) -> None:
    web1, web2 = compose["services"]["web1"], compose["services"]["web2"]
    assert web1["environment"] == web2["environment"]
    assert web1["environment"]["DATABASE_URL"].startswith("postgresql://crosswire:")
    assert web1["environment"]["DATABASE_URL"].endswith("@db:5432/crosswire")
    assert web1["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    assert web1["environment"]["CROSSWIRE_ENV"] == "production"
    assert web1["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert compose["services"]["migrate"]["command"] == ["python", "manage.py", "migrate", "--noinput"]


def test_every_variable_compose_sets_is_read_by_the_settings(compose: dict[str, Any]) -> None:
    for name in compose["services"]["web1"]["environment"]:
        assert f'"{name}"' in SETTINGS_SOURCE, f"{name} is set in docker-compose.yml but settings.py never reads it"


def test_proxy_balances_both_replicas_and_upgrades_websockets(compose: dict[str, Any]) -> None:
    proxy = compose["services"]["proxy"]
    mount = next(volume for volume in proxy["volumes"] if "nginx.conf" in volume)
    config = (ROOT / mount.split(":")[0]).read_text()
    assert "server web1:8000" in config
    assert "server web2:8000" in config
    assert "proxy_set_header Upgrade $http_upgrade;" in config
    assert "proxy_set_header Connection $connection_upgrade;" in config
    assert "proxy_set_header X-Forwarded-Proto" in config
    assert set(proxy["depends_on"]) == {"web1", "web2"}


def test_dockerfile_pins_the_same_uv_and_serves_with_daphne() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    scripts_uv = re.search(r'UV_VERSION="([^"]+)"', (ROOT / "scripts" / "lib.sh").read_text())
    assert scripts_uv is not None
    assert f"ARG UV_VERSION={scripts_uv.group(1)}" in dockerfile
    assert "requirements/base.txt" in dockerfile
    command = '["daphne", "--bind", "0.0.0.0", "--port", "8000", "--proxy-headers", "playground.asgi:application"]'
    assert f"CMD {command}" in dockerfile


def test_the_image_build_step_really_collects_static_files(tmp_path: Path) -> None:
    # Run the Dockerfile's collectstatic step with its own throwaway settings: a typo there breaks every build.
    dockerfile = (ROOT / "Dockerfile").read_text()
    start = dockerfile.index("RUN CROSSWIRE_ENV=production")
    step = dockerfile[start : dockerfile.index("python manage.py collectstatic", start)]
    build_env = dict(re.findall(r"([A-Z_]+)=(\S+)", step))
    assert set(build_env) == {"CROSSWIRE_ENV", "SECRET_KEY", "ALLOWED_HOSTS", "CROSSWIRE_ENCRYPTION_KEY"}
    env = {key: value for key, value in os.environ.items() if key not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(build_env, STATIC_ROOT=str(tmp_path / "static"), CROSSWIRE_DATA_DIR=str(tmp_path / "data"))
    result = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "static" / "staticfiles.json").exists()
    assert list((tmp_path / "static" / "css").glob("app.*.css.gz"))
