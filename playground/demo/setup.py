"""Demo data and the local demo account that ./scripts/run sets up."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from playground.demo.catalog import load_example_tools, load_simulated_endpoints
from playground.teams.access import ensure_personal_team
from playground.teams.models import Membership, Role, Team

DEMO_USERNAME = "demo"
DEMO_TEAM_NAME = "Demo team"
# Teammates with no usable password: they exist so the Team page shows every role.
DEMO_TEAMMATES = (("ada", Role.EDITOR), ("grace", Role.VIEWER))


class DemoRefused(Exception):
    pass


@dataclass(frozen=True)
class DemoAccount:
    username: str
    password: str


@transaction.atomic
def load_demo_data() -> Team:
    user_model = get_user_model()
    demo, _ = user_model.objects.get_or_create(username=DEMO_USERNAME)
    team, _ = Team.objects.get_or_create(name=DEMO_TEAM_NAME, personal_for=None)
    Membership.objects.get_or_create(user=demo, team=team, defaults={"role": Role.OWNER})
    for username, role in DEMO_TEAMMATES:
        mate, created = user_model.objects.get_or_create(username=username)
        if created:
            mate.set_unusable_password()
            mate.save(update_fields=["password"])
        Membership.objects.get_or_create(user=mate, team=team, defaults={"role": role})
    load_simulated_endpoints()
    load_example_tools(team)
    load_example_tools(ensure_personal_team(demo))
    return team


def reset_demo_account() -> DemoAccount:
    """Give the demo user a fresh random password; refused unless DEBUG, so a deployment never has one."""
    if not settings.DEBUG:
        raise DemoRefused("Refusing to create the demo account: DEBUG is off (this is not a local run).")
    load_demo_data()
    password = secrets.token_urlsafe(12)
    demo = get_user_model().objects.get(username=DEMO_USERNAME)
    demo.set_password(password)
    demo.save(update_fields=["password"])
    return DemoAccount(username=DEMO_USERNAME, password=password)
