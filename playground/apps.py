from __future__ import annotations

from django.apps import AppConfig


class PlaygroundConfig(AppConfig):
    name = "playground"
    verbose_name = "Crosswire"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from playground.teams import signals  # noqa: F401  (connects the receivers)
        from playground.tools.startup import load_tool_modules

        load_tool_modules()
