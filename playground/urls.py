from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from playground import team_views, views

urlpatterns = [
    path("", include("playground.chat.urls")),
    path("tools/", include("playground.tool_urls")),
    path("compare/", views.compare, name="compare"),
    path("providers/", include("playground.endpoint_urls")),
    path("team/", team_views.team, name="team"),
    path("team/new/", team_views.create_team, name="team-create"),
    path("team/switch/", team_views.switch_team, name="team-switch"),
    path("team/members/add/", team_views.add_member, name="team-add-member"),
    path("team/members/<int:membership_id>/role/", team_views.change_role, name="team-change-role"),
    path("team/members/<int:membership_id>/remove/", team_views.remove_member, name="team-remove-member"),
    path(
        "login/",
        auth_views.LoginView.as_view(template_name="registration/login.html", redirect_authenticated_user=True),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
]
