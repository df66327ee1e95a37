"""The Conversations page's URLs, included at the site root."""

from __future__ import annotations

from django.urls import path

from playground.conversations import transfer_views, views

urlpatterns = [
    path("conversations/", views.conversations, name="conversations"),
    path("conversations/import/", transfer_views.import_conversation, name="conversation-import"),
    path("conversations/<int:pk>/export/json/", transfer_views.export_json, name="conversation-export-json"),
    path(
        "conversations/<int:pk>/export/markdown/", transfer_views.export_markdown, name="conversation-export-markdown"
    ),
    path("conversations/<int:pk>/export/otel/", transfer_views.export_otel, name="conversation-export-otel"),
    path(
        "conversations/<int:pk>/export/round-trips/<int:position>/wire/",
        transfer_views.export_wire,
        name="conversation-export-wire",
    ),
    path("conversations/<int:pk>/export/menu/", transfer_views.export_menu, name="conversation-export-menu"),
    path("conversations/<int:pk>/fork/", transfer_views.fork_conversation, name="conversation-fork"),
    path("conversations/<int:pk>/fork/menu/", transfer_views.fork_menu, name="conversation-fork-menu"),
]
