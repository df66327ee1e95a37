"""The Team page's URLs, included under /team/."""

from __future__ import annotations

from django.urls import path

from playground.teams import views

urlpatterns = [
    path("", views.team, name="team"),
    path("new/", views.create_team, name="team-create"),
    path("switch/", views.switch_team, name="team-switch"),
    path("<int:team_id>/leave/", views.leave_team, name="team-leave"),
    path("invitations/new/", views.invite_member, name="team-invite"),
    path("invitations/<int:invitation_id>/revoke/", views.revoke_invitation, name="team-invitation-revoke"),
    path("invitations/<int:invitation_id>/accept/", views.accept_invitation, name="invitation-accept"),
    path("invitations/<int:invitation_id>/decline/", views.decline_invitation, name="invitation-decline"),
    path("members/<int:membership_id>/role/", views.change_role, name="team-change-role"),
    path("members/<int:membership_id>/remove/", views.remove_member, name="team-remove-member"),
]
