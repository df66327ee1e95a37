"""CROSSWIRE_TOOL_MODULES: the modules it names become the built-ins at start; a module that cannot be loaded stops
the start with a message naming it, never a server that runs with tools silently missing."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from django.core.exceptions import ImproperlyConfigured

from playground.tools import builtins
from playground.tools.startup import load_tool_modules

if TYPE_CHECKING:
    from pytest_django.fixtures import SettingsWrapper

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def restore_builtins() -> Iterator[None]:
    saved = dict(builtins.BUILTINS)
    yield
    builtins.BUILTINS.clear()
    builtins.BUILTINS.update(saved)


def test_the_examples_are_loaded_by_default() -> None:
    assert {"calculator", "current_time", "convert_units", "random_number", "get_weather", "bar_chart"} <= set(
        builtins.BUILTINS
    )
    assert builtins.BUILTINS["calculator"].module == "playground.tools.examples"


def test_the_modules_named_in_the_setting_become_the_builtins(settings: SettingsWrapper) -> None:
    settings.CROSSWIRE_TOOL_MODULES = ["tests.tools.sample_modules.more", "tests.tools.sample_modules.shop"]
    settings.CROSSWIRE_TOOL_TIMEOUT = 3
    load_tool_modules()
    assert list(builtins.BUILTINS)[:2] == ["ping", "place_order"]
    assert "calculator" not in builtins.BUILTINS  # the examples are a module like any other
    assert builtins.BUILTINS["ping"].timeout == 3.0  # the administrator's limit
    assert builtins.BUILTINS["slow_sync"].timeout == 0.2  # the tool's own
    assert builtins.BUILTINS["track"].is_async


@pytest.mark.parametrize(
    ("module", "message"),
    [
        ("tests.tools.sample_modules.nope", "cannot import 'tests.tools.sample_modules.nope': ModuleNotFoundError"),
        ("tests.tools.sample_modules.empty", "'tests.tools.sample_modules.empty' defines no @tool function"),
        ("tests.tools.sample_modules.untyped", "parameter 'query' needs a type hint"),
        ("tests.tools.sample_modules.clash", "two tools are called 'calculator'"),
    ],
)
def test_a_module_that_cannot_be_loaded_is_a_clear_error(settings: SettingsWrapper, module: str, message: str) -> None:
    settings.CROSSWIRE_TOOL_MODULES = ["playground.tools.examples", module]
    before = dict(builtins.BUILTINS)
    with pytest.raises(ImproperlyConfigured, match="CROSSWIRE_TOOL_MODULES: ") as caught:
        load_tool_modules()
    assert message in str(caught.value)
    assert builtins.BUILTINS == before  # nothing half-installed


def test_a_bad_module_name_stops_the_start(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DJANGO_", "CROSSWIRE_"))}
    env.update({"CROSSWIRE_DATA_DIR": str(tmp_path), "CROSSWIRE_TOOL_MODULES": "playground.tools.examples,acme.tools"})
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0
    assert "CROSSWIRE_TOOL_MODULES: cannot import 'acme.tools': ModuleNotFoundError: No module named 'acme'" in (
        result.stderr
    )
