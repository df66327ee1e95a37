"""The WebSocket root: each socket path and its consumer; anything else is refused, never an error."""

from __future__ import annotations

from django.urls import path, re_path

from playground.chat.consumer import ChatConsumer
from playground.review.consumers import ReviewConsumer
from playground.shell.consumers import LiveConsumer, RefusedConsumer

websocket_urlpatterns = [
    path("ws/status/", LiveConsumer.as_asgi()),
    # At most 18 digits: every such id fits the database's 64-bit key, so no lookup can overflow.
    re_path(r"^ws/conversations/(?P<conversation_id>[0-9]{1,18})/$", ChatConsumer.as_asgi()),
    re_path(r"^ws/review/(?P<conversation_id>[0-9]{1,18})/$", ReviewConsumer.as_asgi()),
    re_path(r"", RefusedConsumer.as_asgi()),
]
