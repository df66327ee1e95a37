"""The URL root: each domain's URLs are included from its own package; sign-in and the admin live here."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

urlpatterns = [
    path("", include("playground.chat.urls")),
    path("", include("playground.conversations.urls")),
    path("", include("playground.review.urls")),
    path("tools/", include("playground.tools.urls")),
    path("mcp/", include("playground.mcp.urls")),
    path("compare/", include("playground.compare.urls")),
    path("providers/", include("playground.endpoints.urls")),
    path("team/", include("playground.teams.urls")),
    path(
        "login/",
        auth_views.LoginView.as_view(template_name="registration/login.html", redirect_authenticated_user=True),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
]
