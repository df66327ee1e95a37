from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.http import HttpRequest

from playground.teams.access import ensure_personal_team
from playground.teams.models import Membership
from playground.teams.revocation import announce_access_change, announce_sign_out


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="crosswire_personal_team")
def create_personal_team(sender: type, instance: Any, created: bool, raw: bool = False, **kwargs: Any) -> None:
    # raw: fixtures carry their own teams.
    if created and not raw:
        ensure_personal_team(instance)


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="crosswire_sign_in_changed")
def account_changed(
    sender: type, instance: Any, created: bool, raw: bool = False, update_fields: Any = None, **kwargs: Any
) -> None:
    # A password changed or an account turned off ends the sessions signed in before: the open sockets check at
    # once, not at their next action. Any edit but a sign-in's own (its last_login) is announced: edits of an account
    # are rare, and a check of a socket that keeps its access costs one read.
    if not created and not raw and set(update_fields or ()) != {"last_login"}:
        announce_access_change(instance.pk)


@receiver(post_save, sender=Membership, dispatch_uid="crosswire_membership_saved")
@receiver(post_delete, sender=Membership, dispatch_uid="crosswire_membership_deleted")
def membership_changed(sender: type, instance: Membership, raw: bool = False, **kwargs: Any) -> None:
    if not raw:
        announce_access_change(instance.user_id)


@receiver(user_logged_out, dispatch_uid="crosswire_signed_out")
def signed_out(sender: type, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    session_key = request.session.session_key if request is not None else None
    if user is not None and session_key:
        announce_sign_out(user.pk, session_key)
