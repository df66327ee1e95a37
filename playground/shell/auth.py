"""Who a socket signs in as, read in the same trip to the ORM's thread as what the socket is about.

Channels' ``AuthMiddleware`` reads the session's user before the consumer runs, in a trip of its own; the consumer
then makes another to check its access (a conversation's team, say). Each trip is a hand-off to the ORM's thread and
back, beside every stream of the process, and a chat socket opens for every turn the page starts. Here the scope's
user stays unread until the consumer's first trip, which reads it with Channels' own ``get_user`` (the session, the
user, the check of the session's password hash), called there without its wrapper, and goes on to the access check
(``LiveConsumer.connect``). Who is signed in, and when a session is refused, is Channels' answer, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from channels.auth import UserLazyObject, get_user
from channels.middleware import BaseMiddleware
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.utils.functional import empty

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser
    from django.contrib.auth.models import AnonymousUser


# Channels' function itself, not its wrapper (a trip of its own): called on the ORM's thread, inside the consumer's.
_read_user = get_user.func


class SignInOnFirstTrip(BaseMiddleware):
    """Channels' ``AuthMiddleware`` without its own trip: ``scope["user"]`` is there, unread until ``signed_in``.

    Reading it before then raises, as Channels' own does before it has resolved the user."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if "session" not in scope:
            raise ValueError("SignInOnFirstTrip needs Channels' SessionMiddleware above it.")
        scope = dict(scope)
        scope.setdefault("user", UserLazyObject())
        return await super().__call__(scope, receive, send)


def signed_in(scope: dict[str, Any]) -> AbstractBaseUser | AnonymousUser:
    """The scope's user, read from its session now if nobody has yet. On the ORM's thread (it may query)."""
    user = scope["user"]
    if isinstance(user, UserLazyObject) and user._wrapped is empty:
        user._wrapped = _read_user(scope)
    return scope["user"]  # type: ignore[no-any-return]


def sign_in_stack(inner: Any) -> Any:
    """The cookies, the session and the user to be read, as Channels' ``AuthMiddlewareStack`` gives them."""
    return CookieMiddleware(SessionMiddleware(SignInOnFirstTrip(inner)))
