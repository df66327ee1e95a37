from __future__ import annotations

from django.urls import path

from playground.chat.consumer import ChatConsumer
from playground.shell.consumers import LiveConsumer

websocket_urlpatterns = [
    path("ws/status/", LiveConsumer.as_asgi()),
    path("ws/conversations/<int:conversation_id>/", ChatConsumer.as_asgi()),
]
