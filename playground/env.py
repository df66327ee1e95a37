"""Reading settings from the environment: typed values, and secrets from ``<NAME>_FILE`` (Docker and Kubernetes
secrets). Each wrong value stops the start with ImproperlyConfigured naming the variable."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false, yes/no, on/off), got {value!r}")


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from None


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_secret(name: str, default: str = "") -> str:
    """``NAME`` from the environment, or the contents of the file named by ``NAME_FILE``."""
    path = os.environ.get(f"{name}_FILE")
    if path:
        try:
            return Path(path).read_text().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE points to {path!r}, which cannot be read: {exc}") from exc
    return os.environ.get(name, default)


def env_json_object(name: str) -> dict[str, Any]:
    """A JSON object from ``NAME`` (or the file ``NAME_FILE``); {} when unset."""
    text = env_secret(name).strip()
    try:
        value = json.loads(text) if text else {}
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be a JSON object: {exc}") from None
    if not isinstance(value, dict):
        raise ImproperlyConfigured(f"{name} must be a JSON object, got {type(value).__name__}")
    return value
