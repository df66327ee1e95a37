"""Loading the configured tool modules when the app starts (``PlaygroundConfig.ready``)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from playground.tools import builtins


def load_tool_modules() -> None:
    """The built-ins become the tools of ``CROSSWIRE_TOOL_MODULES``; a module that cannot be loaded stops the start."""
    try:
        builtins.install(settings.CROSSWIRE_TOOL_MODULES, timeout=float(settings.CROSSWIRE_TOOL_TIMEOUT))
    except builtins.ToolModuleError as exc:
        raise ImproperlyConfigured(str(exc)) from exc
