from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_models_and_migrations_agree() -> None:
    out = StringIO()
    # Exits (SystemExit) when a model change has no migration.
    call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    assert "No changes detected" in out.getvalue()


@pytest.mark.django_db(transaction=True)  # SQLite's schema editor refuses to start inside a test's transaction
def test_giving_the_raw_event_columns_an_encoder_runs_no_sql() -> None:
    # A plain AlterField of a JSONField's encoder copies the whole table on SQLite; the columns themselves are the same.
    out = StringIO()
    call_command("sqlmigrate", "playground", "0014", stdout=out)
    assert "(no-op)" in out.getvalue() and "CREATE TABLE" not in out.getvalue() and "ALTER" not in out.getvalue()
