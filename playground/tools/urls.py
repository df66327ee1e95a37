"""URLs of the Tools page, mounted at /tools/."""

from __future__ import annotations

from django.urls import path

from playground.tools import editor_views, transfer_views, views

urlpatterns = [
    path("", views.tool_list, name="tools"),
    path("new/", views.tool_new, name="tool-new"),
    path("<int:pk>/", views.tool_edit, name="tool-edit"),
    path("<int:pk>/duplicate/", views.tool_duplicate, name="tool-duplicate"),
    path("<int:pk>/delete/", views.tool_delete, name="tool-delete"),
    path("check/name/", editor_views.validate_name, name="tool-validate-name"),
    path("check/schema/", editor_views.validate_schema, name="tool-validate-schema"),
    path("fill/template/<slug:key>/", editor_views.fill_template, name="tool-fill-template"),
    path("fill/example/", editor_views.fill_example, name="tool-fill-example"),
    path("fill/builtin/", editor_views.fill_builtin, name="tool-fill-builtin"),
    path("builtin-offer/", editor_views.builtin_offer, name="tool-builtin-offer"),
    path("export/", transfer_views.export_tools, name="tool-export"),
    path("import/", transfer_views.import_page, name="tool-import"),
    path("import/preview/", transfer_views.import_preview, name="tool-import-preview"),
    path("import/apply/", transfer_views.import_apply, name="tool-import-apply"),
]
