"""The Compare pages' URLs, included under /compare/."""

from __future__ import annotations

from django.urls import path

from playground.compare import views

urlpatterns = [
    path("", views.compare, name="compare"),
    path("run/", views.compare_run, name="compare-run"),
    path("<int:pk>/", views.comparison_page, name="comparison"),
    path("<int:pk>/results/", views.summary_partial, name="comparison-results"),
    path("<int:pk>/column/<int:position>/", views.column_partial, name="comparison-column"),
    path("<int:pk>/column/<int:position>/stop/", views.column_stop, name="comparison-column-stop"),
    path("<int:pk>/diff/", views.diff_partial, name="comparison-diff"),
    path("<int:pk>/stop/", views.stop_all, name="comparison-stop"),
    path("replay/<int:conversation_pk>/", views.replay, name="replay"),
    path("replay/<int:conversation_pk>/menu/", views.replay_menu, name="replay-menu"),
]
