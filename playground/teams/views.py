"""The Team page: members and roles of the current team; owners manage them, everyone else reads."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect, HttpResponseClientRefresh

from playground.teams import access, invitations
from playground.teams.forms import AddMemberForm, RoleForm, SwitchTeamForm, TeamForm
from playground.teams.models import Invitation, Membership, Role, Team

if TYPE_CHECKING:
    from django.http import HttpRequest
    from django_htmx.middleware import HtmxDetails

    class HtmxHttpRequest(HttpRequest):
        htmx: HtmxDetails


def _members_context(request: HtmxHttpRequest, team: Team, **extra: Any) -> dict[str, Any]:
    membership = access.membership_for(request.user, team)
    return {
        "section": "team",
        "team": team,
        "membership": membership,
        "members": team.memberships.select_related("user").order_by("user__username"),
        "invitations": invitations.pending_for_team(team) if membership and membership.is_owner else [],
        "my_invitations": invitations.pending_for_user(request.user),
        "roles": Role.choices,
        "add_form": extra.pop("add_form", None) or AddMemberForm(),
        **extra,
    }


def _after_change(
    request: HtmxHttpRequest, team: Team, *, error: str = "", notice: str = "", **extra: Any
) -> HttpResponse:
    """htmx requests get the members section back; plain form posts a redirect with a flash message."""
    if access.membership_for(request.user, team) is None:
        # Removed by another owner meanwhile (leaving has its own answer, _leave): nothing left to show here.
        messages.info(request, notice or f"You are no longer a member of {team.name}.")
        return HttpResponseClientRedirect(reverse("team")) if request.htmx else redirect("team")
    if request.htmx:
        context = _members_context(request, team, error=error, notice=notice, **extra)
        return render(request, "teams/team.html#members", context)
    if error:
        messages.error(request, error)
    elif notice:
        messages.success(request, notice)
    return redirect("team")


def _current_membership(request: HtmxHttpRequest, membership_id: int) -> Membership:
    team = access.get_current_team(request)
    return get_object_or_404(Membership.objects.select_related("team", "user"), pk=membership_id, team=team)


@require_GET
@login_required
@vary_on_headers("HX-Request")
def team(request: HtmxHttpRequest) -> HttpResponse:
    current = access.get_current_team(request)
    return render(request, "teams/team.html", {**_members_context(request, current), "team_form": TeamForm()})


@require_POST
@login_required
def invite_member(request: HtmxHttpRequest) -> HttpResponse:
    current = access.get_current_team(request)
    form = AddMemberForm(request.POST)
    if not form.is_valid():
        return _after_change(request, current, error="Enter a username and a role.", add_form=form)
    try:
        invited = invitations.invite(
            team=current, actor=request.user, username=form.cleaned_data["username"], role=form.cleaned_data["role"]
        )
    except access.TeamError as exc:
        return _after_change(request, current, error=str(exc), add_form=form)
    notice = f"{_invited_notice(invited)} They join when they accept the invitation on their Team page."
    return _after_change(request, current, notice=notice)


def _invited_notice(invited: invitations.Invited) -> str:
    # The same words whether or not the account exists: the form must not tell who has one. A pending invitation is
    # replaced, not doubled: say so, and what it was.
    name, role = invited.invitation.username, invited.invitation.get_role_display()
    if invited.before is None:
        return f"Invited {name} as {role}."
    if invited.before == invited.invitation.role:
        return f"{name}'s pending invitation already stands for {role}."
    return f"{name}'s pending invitation is now for {role} (it was for {Role(invited.before).label})."


@require_POST
@login_required
def revoke_invitation(request: HtmxHttpRequest, invitation_id: int) -> HttpResponse:
    current = access.get_current_team(request)
    invitation = get_object_or_404(Invitation, pk=invitation_id, team=current)
    try:
        invitations.revoke(invitation=invitation, actor=request.user)
    except access.TeamError as exc:
        return _after_change(request, current, error=str(exc))
    return _after_change(request, current, notice=f"Withdrew the invitation to {invitation.username}.")


def _my_invitation(request: HtmxHttpRequest, invitation_id: int) -> Invitation:
    # Someone else's invitation is "not found", like any id that is not yours.
    return get_object_or_404(invitations.pending_for_user(request.user), pk=invitation_id)


@require_POST
@login_required
def accept_invitation(request: HtmxHttpRequest, invitation_id: int) -> HttpResponse:
    invitation = _my_invitation(request, invitation_id)
    membership = invitations.accept(invitation=invitation, user=request.user)
    access.set_current_team(request, membership.team)
    messages.success(request, f"You joined {membership.team.name} as {membership.get_role_display()}.")
    return HttpResponseClientRedirect(reverse("team")) if request.htmx else redirect("team")


@require_POST
@login_required
def decline_invitation(request: HtmxHttpRequest, invitation_id: int) -> HttpResponse:
    invitation = _my_invitation(request, invitation_id)
    invitations.decline(invitation=invitation, user=request.user)
    messages.info(request, f"Declined the invitation to {invitation.team.name}.")
    return HttpResponseClientRedirect(reverse("team")) if request.htmx else redirect("team")


@require_POST
@login_required
def change_role(request: HtmxHttpRequest, membership_id: int) -> HttpResponse:
    membership = _current_membership(request, membership_id)
    form = RoleForm(request.POST)
    if not form.is_valid():
        return _after_change(request, membership.team, error="Pick one of the listed roles.")
    try:
        access.change_role(membership=membership, actor=request.user, role=form.cleaned_data["role"])
    except access.TeamError as exc:
        return _after_change(request, membership.team, error=str(exc))
    name = membership.user.get_username()
    return _after_change(request, membership.team, notice=f"{name} is now {membership.get_role_display()}.")


@require_POST
@login_required
def remove_member(request: HtmxHttpRequest, membership_id: int) -> HttpResponse:
    membership = _current_membership(request, membership_id)
    if membership.user_id == request.user.pk:  # removing oneself is leaving: worded and landing as such
        return _leave(request, membership)
    try:
        access.remove_member(membership=membership, actor=request.user)
    except access.TeamError as exc:
        return _after_change(request, membership.team, error=str(exc))
    return _after_change(request, membership.team, notice=f"Removed {membership.user.get_username()}.")


@require_POST
@login_required
def leave_team(request: HtmxHttpRequest, team_id: int) -> HttpResponse:
    # The team is named in the URL, not taken from the session: the page confirmed leaving the team it showed, and
    # another tab may have switched the current team since. A team one is not in is "not found".
    own = get_object_or_404(Membership.objects.select_related("team", "user"), team_id=team_id, user=request.user)
    return _leave(request, own)


def _leave(request: HtmxHttpRequest, membership: Membership) -> HttpResponse:
    team = membership.team
    try:
        access.leave_team(membership=membership)
    except access.TeamError as exc:
        return _after_change(request, team, error=str(exc))
    # Their personal team becomes the current one, where they own everything; the playground is home.
    access.set_current_team(request, access.ensure_personal_team(request.user))
    messages.success(request, f"You left {team.name}.")
    home = reverse("playground")
    return HttpResponseClientRedirect(home) if request.htmx else redirect(home)


@require_POST
@login_required
def create_team(request: HtmxHttpRequest) -> HttpResponse:
    form = TeamForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Give the team a name (up to 100 characters).")
        return redirect("team")
    new_team = access.create_team(name=form.cleaned_data["name"], owner=request.user)
    access.set_current_team(request, new_team)
    messages.success(request, f"Created {new_team.name}; it is now your current team.")
    return redirect("team")


@require_POST
@login_required
def switch_team(request: HtmxHttpRequest) -> HttpResponse:
    form = SwitchTeamForm(request.POST)
    if not form.is_valid():
        raise Http404("No such team")
    target = access.teams_for(request.user).filter(pk=form.cleaned_data["team"]).first()
    if target is None:
        raise Http404("No such team")
    access.set_current_team(request, target)
    here = (request.htmx.current_url_abs_path or "") if request.htmx else request.POST.get("next", "")
    section = _section_of(here)
    if request.htmx:
        return HttpResponseClientRedirect(section) if section else HttpResponseClientRefresh()
    if not url_has_allowed_host_and_scheme(here, allowed_hosts={request.get_host()}):
        here = reverse("playground")
    return redirect(section or here)


# A page of one team's own (a conversation, its review, a comparison) opened again would make its team current
# again (access.follow_team): switching from there goes to the same section of the team picked instead.
_OWN_PAGES = ((re.compile(r"^/c/\d+/"), "playground"), (re.compile(r"^/compare/\d+/"), "compare"))


def _section_of(path: str) -> str:
    return next((reverse(name) for pattern, name in _OWN_PAGES if pattern.match(path)), "")
