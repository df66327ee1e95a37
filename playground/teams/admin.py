from __future__ import annotations

from django.contrib import admin

from playground.teams.models import Membership, Team


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["name", "personal_for", "created_at"]
    search_fields = ["name", "personal_for__username"]
    inlines = [MembershipInline]
    raw_id_fields = ["personal_for"]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "team", "role", "created_at"]
    list_filter = ["role"]
    search_fields = ["user__username", "team__name"]
