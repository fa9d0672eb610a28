"""
The search table, and the full-text index beside it: an FTS5 external-content
table kept in step by triggers on SQLite, a GIN expression index on PostgreSQL.
"""

from django.db import migrations, models

from factcheck.migration_sql import run_sql_for_vendor

SQLITE_FORWARD = [
    """
    CREATE VIRTUAL TABLE factcheck_searchentry_fts USING fts5(
        title, body, content='factcheck_searchentry', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2'
    )
    """,
    """
    CREATE TRIGGER factcheck_searchentry_ai AFTER INSERT ON factcheck_searchentry BEGIN
        INSERT INTO factcheck_searchentry_fts(rowid, title, body)
        VALUES (new.id, new.title, new.body);
    END
    """,
    """
    CREATE TRIGGER factcheck_searchentry_ad AFTER DELETE ON factcheck_searchentry BEGIN
        INSERT INTO factcheck_searchentry_fts(factcheck_searchentry_fts, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
    END
    """,
    """
    CREATE TRIGGER factcheck_searchentry_au AFTER UPDATE ON factcheck_searchentry BEGIN
        INSERT INTO factcheck_searchentry_fts(factcheck_searchentry_fts, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
        INSERT INTO factcheck_searchentry_fts(rowid, title, body)
        VALUES (new.id, new.title, new.body);
    END
    """,
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS factcheck_searchentry_au",
    "DROP TRIGGER IF EXISTS factcheck_searchentry_ad",
    "DROP TRIGGER IF EXISTS factcheck_searchentry_ai",
    "DROP TABLE IF EXISTS factcheck_searchentry_fts",
]
POSTGRESQL_FORWARD = [
    "CREATE INDEX factcheck_searchentry_fulltext ON factcheck_searchentry "
    "USING GIN (to_tsvector('english', title || ' ' || body))",
]
POSTGRESQL_BACKWARD = ["DROP INDEX IF EXISTS factcheck_searchentry_fulltext"]


class Migration(migrations.Migration):
    dependencies = [("factcheck", "0003_roles")]

    operations = [
        migrations.CreateModel(
            name="SearchEntry",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("kind", models.CharField(max_length=20)),
                ("object_id", models.PositiveBigIntegerField()),
                ("title", models.CharField(max_length=500)),
                ("body", models.TextField()),
                ("url", models.CharField(max_length=500)),
                ("location", models.CharField(blank=True, max_length=100)),
                (
                    "position",
                    models.PositiveIntegerField(default=0, help_text="Order within the object."),
                ),
            ],
            options={
                "verbose_name_plural": "search entries",
                "ordering": ["kind", "object_id", "position"],
                "indexes": [
                    models.Index(fields=["kind", "object_id"], name="factcheck_s_kind_2916e5_idx")
                ],
            },
        ),
        migrations.RunPython(
            run_sql_for_vendor({"sqlite": SQLITE_FORWARD, "postgresql": POSTGRESQL_FORWARD}),
            run_sql_for_vendor({"sqlite": SQLITE_BACKWARD, "postgresql": POSTGRESQL_BACKWARD}),
        ),
    ]
