from __future__ import annotations

from django import forms

from playground.teams.models import Role


class AddMemberForm(forms.Form):
    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=Role.choices, initial=Role.EDITOR)


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=Role.choices)


class TeamForm(forms.Form):
    name = forms.CharField(max_length=100)


class SwitchTeamForm(forms.Form):
    team = forms.IntegerField()
