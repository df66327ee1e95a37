"""Open sockets lose access the moment their user does: a membership removed or changed, a session signed out.

Every socket of a signed-in user joins that user's group; a change of access is announced there through the channel
layer, so it reaches sockets held by any web process. A socket that hears of a change checks its access again and
closes if it has none left; a sign-out closes the sockets of that one session without asking anything.
"""

from __future__ import annotations

import logging
from importlib import import_module

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.db import transaction

# The handler name on every socket ("access.changed" -> access_changed).
EVENT_TYPE = "access.changed"
logger = logging.getLogger(__name__)


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def announce_access_change(user_id: int) -> None:
    """After the current transaction commits, so the sockets' check reads the new state."""
    transaction.on_commit(lambda: _publish(user_id, {"type": EVENT_TYPE}))


def announce_sign_out(user_id: int, session_key: str) -> None:
    _publish(user_id, {"type": EVENT_TYPE, "session_key": session_key})


def _publish(user_id: int, event: dict[str, str]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(user_group(user_id), event)
    except Exception:
        # The change itself is saved; sockets still check access on every action, so a lost announcement only
        # delays the close of a socket that can no longer do anything.
        logger.exception("could not announce an access change to the sockets of user %s", user_id)


def session_alive(session_key: str | None, user_id: int) -> bool:
    """Whether the session a socket was opened with still signs in the same user (not signed out, not expired)."""
    if not session_key:
        return False
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    return str(store.get(SESSION_KEY, "")) == str(user_id)
