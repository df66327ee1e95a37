"""The Conversations page's URLs, included at the site root."""

from __future__ import annotations

from django.urls import path

from playground.conversations import views

urlpatterns = [
    path("conversations/", views.conversations, name="conversations"),
]
