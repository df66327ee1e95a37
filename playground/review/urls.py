"""Team review's URLs (the review view, comments, verdicts, labels, share links), included at the site root."""

from __future__ import annotations

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
