"""
PostgreSQL: each search entry's ``to_tsvector`` stored in a generated column,
``document``, with the GIN index on it. Ranking results read it instead of
parsing every matching passage again, and the index stays the same. The
column is PostgreSQL's own (SQLite searches through its FTS5 table), so the
model does not declare it; rows written through the ORM fill it by themselves.
"""

from django.db import migrations

from factcheck.migration_sql import run_sql_for_vendor

POSTGRESQL_FORWARD = [
    "ALTER TABLE factcheck_searchentry ADD COLUMN document tsvector "
    "GENERATED ALWAYS AS (to_tsvector('english', title || ' ' || body)) STORED",
    "CREATE INDEX factcheck_searchentry_document ON factcheck_searchentry USING GIN (document)",
    "DROP INDEX IF EXISTS factcheck_searchentry_fulltext",
]
POSTGRESQL_BACKWARD = [
    "CREATE INDEX factcheck_searchentry_fulltext ON factcheck_searchentry "
    "USING GIN (to_tsvector('english', title || ' ' || body))",
    "DROP INDEX IF EXISTS factcheck_searchentry_document",
    "ALTER TABLE factcheck_searchentry DROP COLUMN document",
]


class Migration(migrations.Migration):
    dependencies = [("factcheck", "0005_organisation")]

    operations = [
        migrations.RunPython(
            run_sql_for_vendor({"postgresql": POSTGRESQL_FORWARD}),
            run_sql_for_vendor({"postgresql": POSTGRESQL_BACKWARD}),
        ),
    ]
