"""The database session store, with its one read built once (``SESSION_ENGINE``).

Every socket that opens (Channels' ``get_user``, in the socket's first trip: ``playground.shell.auth``) and every
action on a socket (``revocation.session_alive``) reads the session row by its key, on the ORM's one thread for
sockets. Django's store builds and compiles that query each time, about 200 µs of CPU against 20 in the database,
beside every stream of the process (docs/performance.md).
Here the ORM builds it once per connection (``playground.prepared``). An HTTP request runs on a thread of its own
under ASGI, so its connection builds the statement afresh: about what Django's read costs, no more.

Everything else is Django's store: the same table, the same encoding, the same writes, so sessions saved by either
store are read by the other. The statement names Django's ``Session`` model and the default database, as this
project's store does (no custom session model, no database router).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from asgiref.sync import sync_to_async
from django.contrib.sessions.backends.db import SessionStore as DatabaseStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from playground.prepared import PreparedQuery

if TYPE_CHECKING:
    from typing import Any

# The expiry is compared in Python, not in the statement: a prepared value is an int or a string.
_BY_KEY = PreparedQuery(lambda key: Session.objects.filter(session_key=key)[:1], str)


class SessionStore(DatabaseStore):
    def _get_session_from_db(self) -> Any:
        """The unexpired row of this key, or None (and the key forgotten), as the database store answers."""
        key = self.session_key  # None when the key is malformed: no row is read for it
        found = _BY_KEY.instances(key) if key is not None else []
        if found and found[0].expire_date > timezone.now():
            return found[0]
        self._session_key = None
        return None

    async def _aget_session_from_db(self) -> Any:
        return await sync_to_async(self._get_session_from_db)()
