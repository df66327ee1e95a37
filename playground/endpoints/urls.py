"""The Providers page's URLs, included under /providers/."""

from __future__ import annotations

from django.urls import path

from playground.endpoints import views

urlpatterns = [
    path("", views.providers, name="providers"),
    path("new/", views.create_endpoint, name="endpoint-create"),
    path("<int:pk>/edit/", views.edit_endpoint, name="endpoint-edit"),
    path("<int:pk>/delete/", views.delete_endpoint, name="endpoint-delete"),
    path("<int:pk>/test/", views.test_connection, name="endpoint-test"),
    path("<int:pk>/models/", views.fetch_models, name="endpoint-fetch-models"),
]
