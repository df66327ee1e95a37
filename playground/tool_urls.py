"""URLs of the Tools page, mounted at /tools/."""

from __future__ import annotations

from django.urls import path

from playground import tool_editor_views, tool_io_views, tool_views

urlpatterns = [
    path("", tool_views.tool_list, name="tools"),
    path("new/", tool_views.tool_new, name="tool-new"),
    path("<int:pk>/", tool_views.tool_edit, name="tool-edit"),
    path("<int:pk>/duplicate/", tool_views.tool_duplicate, name="tool-duplicate"),
    path("<int:pk>/delete/", tool_views.tool_delete, name="tool-delete"),
    path("check/name/", tool_editor_views.validate_name, name="tool-validate-name"),
    path("check/schema/", tool_editor_views.validate_schema, name="tool-validate-schema"),
    path("fill/template/<slug:key>/", tool_editor_views.fill_template, name="tool-fill-template"),
    path("fill/example/", tool_editor_views.fill_example, name="tool-fill-example"),
    path("fill/builtin/", tool_editor_views.fill_builtin, name="tool-fill-builtin"),
    path("builtin-offer/", tool_editor_views.builtin_offer, name="tool-builtin-offer"),
    path("export/", tool_io_views.export_tools, name="tool-export"),
    path("import/", tool_io_views.import_page, name="tool-import"),
    path("import/preview/", tool_io_views.import_preview, name="tool-import-preview"),
    path("import/apply/", tool_io_views.import_apply, name="tool-import-apply"),
]
