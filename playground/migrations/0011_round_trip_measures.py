"""Each round trip's raw-event count and request size, kept beside them so a page sizes its panes without reading
the big JSON columns; the rows saved before are measured once here, by the database."""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

MEASURE = {
    "postgresql": (
        "UPDATE playground_roundtrip SET event_count = COALESCE(jsonb_array_length(wire_events), 0),"
        " body_chars = COALESCE(char_length(request::text), 0) + COALESCE(char_length(wire_request::text), 0)"
    ),
    "sqlite": (
        "UPDATE playground_roundtrip SET event_count = COALESCE(json_array_length(wire_events), 0),"
        " body_chars = COALESCE(length(request), 0) + COALESCE(length(wire_request), 0)"
    ),
}


def measure_saved(apps: object, schema_editor: Any) -> None:
    # JSON text as each database writes it: a little shorter than Python's json.dumps (no spaces), close enough
    # for a budget of what a page sends whole.
    schema_editor.execute(MEASURE[schema_editor.connection.vendor])


class Migration(migrations.Migration):
    dependencies = [
        ("playground", "0010_conversation_search_stale"),
    ]

    operations = [
        migrations.AddField(
            model_name="roundtrip",
            name="body_chars",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="roundtrip",
            name="event_count",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(measure_saved, migrations.RunPython.noop),
    ]
