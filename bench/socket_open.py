"""A socket's opening on the ORM's thread: the app's reads against the ORM's own way of making them, in the same run.

Run with the bench dependencies:  ./scripts/bench socket_open [--calls 300] [--rounds 5] [--messages 20]

Each socket that opens reads its user (Channels' ``get_user``: the session, then the user) and the conversation's
saved state for its snapshot, on the ORM's one thread, whose connection keeps its built statements (an HTTP request
runs on a thread of its own, so its first read builds the statement: about what the ORM's costs). On a fresh SQLite
database (migrated, one user, one conversation of ``--messages`` messages), each step runs ``--calls`` times per
round, the ORM's way and the app's alternating, and the best round's CPU per call is printed with the ratio. The
ORM's way is Django's own database session store, and the saved state as two ORM queries (the app's code before it
was one built statement).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def setup() -> tuple[str, int]:
    """A migrated database with a signed-in session and a conversation: (session key, conversation id)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
    os.environ["CROSSWIRE_DATA_DIR"] = tempfile.mkdtemp(prefix="crosswire-bench-")
    import django

    django.setup()
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from playground.conversations.models import Conversation
    from playground.teams.models import Team
    from playground.teams.sessions import SessionStore

    call_command("migrate", verbosity=0)
    user = User.objects.create_user("bench", password="not used")
    store = SessionStore()
    store[SESSION_KEY], store[BACKEND_SESSION_KEY] = str(user.pk), "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    conversation = Conversation.objects.create(team=Team.objects.create(name="bench"), created_by=user, title="bench")
    return str(store.session_key), conversation.pk


def add_messages(conversation_id: int, count: int) -> None:
    from playground.conversations.models import Message

    for position in range(count):
        data = {"role": "user", "content": f"message {position}"}
        Message.objects.create(conversation_id=conversation_id, position=position, role="user", data=data)


def orm_saved_state(conversation_id: int) -> tuple[str, str, int]:
    """The saved state as the ORM reads it without help: the row's two columns, then the count."""
    from playground.conversations.models import Conversation, Message

    row = Conversation.objects.filter(pk=conversation_id).values("status", "status_message").get()
    count = Message.objects.filter(conversation_id=conversation_id).count()
    return row["status"], row["status_message"], count


def steps(key: str, conversation_id: int) -> list[tuple[str, Callable[[], Any], Callable[[], Any]]]:
    """(name, the ORM's way, the app's way): each pair must answer the same."""
    from channels.auth import get_user
    from django.contrib.sessions.backends.db import SessionStore as DjangoStore

    from playground.chat.questions import saved_state
    from playground.teams.sessions import SessionStore

    def user_with(store: type[Any]) -> Callable[[], Any]:
        return lambda: get_user.func({"session": store(key)})  # channels' own code, without its thread hop

    def app_state() -> tuple[str, str, int]:
        state = saved_state(conversation_id)
        return state["status"], state["message"], state["message_count"]

    return [
        (
            "the session read (every socket and socket action)",
            lambda: DjangoStore(key).load(),
            lambda: SessionStore(key).load(),
        ),
        ("a socket's user (the session, then the user)", user_with(DjangoStore), user_with(SessionStore)),
        ("a socket's saved state", lambda: orm_saved_state(conversation_id), app_state),
    ]


def cpu_per_call(call: Callable[[], Any], calls: int) -> float:
    started = time.process_time()
    for _ in range(calls):
        call()
    return (time.process_time() - started) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per step, per round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; the best of each side is printed")
    parser.add_argument("--messages", type=int, default=20, help="messages in the conversation")
    args = parser.parse_args()
    key, conversation_id = setup()
    add_messages(conversation_id, args.messages)
    print(f"SQLite, one process; {args.calls} calls x {args.rounds} rounds per step; CPU per call, best round")
    print(f"  {'step':50s} {'ORM µs':>8s} {'app µs':>8s} {'app/ORM':>8s}")
    for name, orm, app in steps(key, conversation_id):
        first, mine = orm(), app()
        if str(first) != str(mine):
            raise SystemExit(f"{name}: the two ways answer differently ({first!r} against {mine!r})")
        theirs, ours = [], []
        for _ in range(args.rounds):  # alternating, so a slow moment of the machine falls on both
            theirs.append(cpu_per_call(orm, args.calls))
            ours.append(cpu_per_call(app, args.calls))
        print(f"  {name:50s} {min(theirs):8.0f} {min(ours):8.0f} {min(ours) / min(theirs):7.2f}x")


if __name__ == "__main__":
    main()
