"""Open sockets lose access the moment their user does: a membership removed or changed, a session signed out, a
password changed or an account turned off.

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
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.db import transaction
from django.utils.crypto import constant_time_compare

from playground.prepared import PreparedQuery

# The handler name on every socket ("access.changed" -> access_changed).
EVENT_TYPE = "access.changed"
logger = logging.getLogger(__name__)
# The user a session signs in, if it still may sign in: only what its session hash is made from (the password), read
# by a statement built once, as the session's own read is (sessions.py), since it runs before every socket action.
_ACTIVE_USER = PreparedQuery(
    lambda pk: get_user_model()._default_manager.filter(pk=pk, is_active=True).only("password")[:1], int
)


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
    """Whether the session a socket was opened with still signs in the same user: not signed out, not expired, the
    account still active and its password the one the session was signed in with. Django's own rule for a request
    (``django.contrib.auth.get_user``), read without its writes: a session that fails it is refused here, and the
    next page it asks for flushes it."""
    if not session_key:
        return False
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    if str(store.get(SESSION_KEY, "")) != str(user_id):
        return False
    return _password_unchanged(store.get(HASH_SESSION_KEY), user_id)


def _password_unchanged(session_hash: str | None, user_id: int) -> bool:
    """The session's hash is the user's, made from the password now saved (or with a secret key still accepted)."""
    if not session_hash:
        return False
    found = _ACTIVE_USER.instances(int(user_id))
    if not found:
        return False
    user = found[0]
    hashes = (user.get_session_auth_hash(), *user.get_session_auth_fallback_hash())
    return any(constant_time_compare(session_hash, made) for made in hashes)
