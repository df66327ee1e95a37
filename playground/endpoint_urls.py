"""The Providers page's URLs, included under /providers/."""

from __future__ import annotations

from django.urls import path

from playground import endpoint_views

urlpatterns = [
    path("", endpoint_views.providers, name="providers"),
    path("new/", endpoint_views.create_endpoint, name="endpoint-create"),
    path("<int:pk>/edit/", endpoint_views.edit_endpoint, name="endpoint-edit"),
    path("<int:pk>/delete/", endpoint_views.delete_endpoint, name="endpoint-delete"),
    path("<int:pk>/test/", endpoint_views.test_connection, name="endpoint-test"),
    path("<int:pk>/models/", endpoint_views.fetch_models, name="endpoint-fetch-models"),
]
