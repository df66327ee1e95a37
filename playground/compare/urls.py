"""The Compare page's URLs, included under /compare/."""

from __future__ import annotations

from django.urls import path

from playground.compare import views

urlpatterns = [
    path("", views.compare, name="compare"),
]
