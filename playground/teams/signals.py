from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver

from playground.teams.access import ensure_personal_team


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="crosswire_personal_team")
def create_personal_team(sender: type, instance: Any, created: bool, raw: bool = False, **kwargs: Any) -> None:
    # raw: fixtures carry their own teams.
    if created and not raw:
        ensure_personal_team(instance)
