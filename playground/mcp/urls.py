"""The MCP servers page's URLs, included under /mcp/."""

from __future__ import annotations

from django.urls import path

from playground.mcp import views

urlpatterns = [
    path("", views.servers, name="mcp-servers"),
    path("new/", views.create_server, name="mcp-server-create"),
    path("<int:pk>/edit/", views.edit_server, name="mcp-server-edit"),
    path("<int:pk>/sync/", views.sync, name="mcp-server-sync"),
    path("<int:pk>/delete/", views.delete, name="mcp-server-delete"),
]
