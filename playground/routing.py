from __future__ import annotations

from django.urls import path

from playground.consumers import ConversationConsumer, LiveConsumer

websocket_urlpatterns = [
    path("ws/status/", LiveConsumer.as_asgi()),
    path("ws/conversations/<int:conversation_id>/", ConversationConsumer.as_asgi()),
]
