from __future__ import annotations

from collections.abc import Callable

from django.db import DatabaseError, connection
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.deprecation import MiddlewareMixin

HEALTH_PATH = "/healthz"


class HealthCheckMiddleware:
    """Answers load balancer and container probes before host validation, which probes by IP address would fail."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path != HEALTH_PATH:
            return self.get_response(request)
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
        except DatabaseError:
            return JsonResponse({"status": "error", "database": "unreachable"}, status=503)
        return JsonResponse({"status": "ok"})


class NotFoundPageMiddleware(MiddlewareMixin):
    """A page that is not there (a conversation deleted, a team one was removed from) answers with the app's own
    page (templates/404.html, as Django's own handler gives it out of debug mode) and reason, in debug mode too,
    which ``./scripts/run`` uses: Django's debug page lists the URL patterns, which tell a person who just lost
    access nothing. A view's 404 only: an address no URL pattern matches keeps the debug page's help."""

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, Http404):
            return None
        reason = str(exception.args[0]) if exception.args and isinstance(exception.args[0], str) else ""
        return render(request, "404.html", {"exception": reason}, status=404)
