from __future__ import annotations

from django.urls import path

from playground.chat import views

urlpatterns = [
    path("", views.playground, name="playground"),
    path("c/new/", views.new_chat, name="chat-new"),
    path("c/<int:pk>/", views.chat, name="chat"),
    path("c/<int:pk>/retry/", views.retry, name="chat-retry"),
    path("c/<int:pk>/settings/", views.save_settings, name="chat-settings-save"),
    path("c/<int:pk>/settings/reset/", views.reset_settings, name="chat-settings-reset"),
    path("c/<int:pk>/transcript/", views.transcript_partial, name="chat-transcript"),
    path("c/<int:pk>/panes/", views.panes_partial, name="chat-panes"),
    path("c/<int:pk>/round-trips/<int:position>/events/", views.wire_events_partial, name="chat-wire-events"),
    path("c/<int:pk>/round-trips/<int:position>/panes/", views.round_trip_partial, name="chat-round-trip"),
    path("c/<int:pk>/round-trips/<int:position>/copy/<str:kind>/", views.round_trip_copy, name="chat-round-trip-copy"),
]
