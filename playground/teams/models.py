from __future__ import annotations

from django.conf import settings
from django.db import models


class Role(models.TextChoices):
    OWNER = "owner", "Owner"
    EDITOR = "editor", "Editor"
    VIEWER = "viewer", "Viewer"


EDIT_ROLES = frozenset({Role.OWNER, Role.EDITOR})


class Team(models.Model):
    name = models.CharField(max_length=100)
    # Set for the team every user gets on sign-up; the team goes when the user goes.
    personal_for = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="personal_team",
    )
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, through="Membership", related_name="teams")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_personal(self) -> bool:
        return self.personal_for_id is not None


class Membership(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.VIEWER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["team", "user__username"]
        constraints = [models.UniqueConstraint(fields=["user", "team"], name="unique_team_membership")]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"

    @property
    def is_owner(self) -> bool:
        return self.role == Role.OWNER

    @property
    def can_edit(self) -> bool:
        return self.role in EDIT_ROLES


class Invitation(models.Model):
    """An owner's offer of a role, addressed by username; it becomes a membership only when that person accepts.

    Made whether or not the username exists, so inviting reveals nothing about who has an account.
    """

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="invitations")
    username = models.CharField(max_length=150)
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.EDITOR)
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["username"]
        constraints = [models.UniqueConstraint(fields=["team", "username"], name="unique_invitation_per_team")]

    def __str__(self) -> str:
        return f"{self.username} invited to {self.team} as {self.role}"
