"""The Compare page: an empty state until the feature lands."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET


@require_GET
@login_required
def compare(request: HttpRequest) -> HttpResponse:
    return render(request, "compare/page.html", {"section": "compare"})
