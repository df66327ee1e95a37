from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from playground.demo.setup import DemoRefused, reset_demo_account


class Command(BaseCommand):
    help = "Load the demo data and give the local demo account a new random password (DEBUG only)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000/", help="Where the app will be served.")

    def handle(self, *args: Any, url: str, **options: Any) -> None:
        try:
            account = reset_demo_account()
        except DemoRefused as exc:
            raise CommandError(str(exc)) from exc
        lines = [
            "Crosswire is ready. Sign in with the local demo account:",
            "",
            f"    URL:       {url}",
            f"    Username:  {account.username}",
            f"    Password:  {account.password}",
            "",
            "The password is new on every run and only this account has it; nothing is stored in the repository.",
        ]
        self.stdout.write("\n".join(lines))
