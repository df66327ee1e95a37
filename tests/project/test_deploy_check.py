"""`manage.py check --deploy` on the production settings, in a fresh process as a deployment would run it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cryptography.fernet import Fernet

ROOT = Path(__file__).resolve().parents[2]


def deploy_check(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DJANGO_", "CROSSWIRE_"))}
    env.pop("DATABASE_URL", None)
    env.update(
        {
            "CROSSWIRE_ENV": "production",
            "SECRET_KEY": "kq8#v2-production-key-from-the-environment-7Xw!r9$LmN3pZ0t",
            "ALLOWED_HOSTS": "crosswire.example.com",
            "CROSSWIRE_ENCRYPTION_KEY": Fernet.generate_key().decode(),
            "CROSSWIRE_DATA_DIR": str(tmp_path),
            **extra,
        }
    )
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_the_deploy_check_without_warnings(tmp_path: Path) -> None:
    result = deploy_check(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_deploy_check_catches_a_weakened_production_setup(tmp_path: Path) -> None:
    # Proves the check above is not vacuous: turning HSTS off must be reported.
    result = deploy_check(tmp_path, SECURE_HSTS_SECONDS="0")
    assert result.returncode != 0
    assert "security.W004" in result.stdout + result.stderr
