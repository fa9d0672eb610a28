"""
A published correction is a statement of record: the database refuses any
UPDATE of it, on SQLite and PostgreSQL, besides the model's own refusal.
"""

from django.db import migrations

from factcheck.migration_sql import run_sql_for_vendor

MESSAGE = "a published correction is never changed: publish a new entry that supersedes it"

SQLITE_FORWARD = [
    f"""
    CREATE TRIGGER claims_correction_published_immutable
    BEFORE UPDATE ON claims_correction
    WHEN OLD.status = 'published'
    BEGIN
        SELECT RAISE(ABORT, '{MESSAGE}');
    END
    """,
]
SQLITE_BACKWARD = ["DROP TRIGGER IF EXISTS claims_correction_published_immutable"]

POSTGRESQL_FORWARD = [
    f"""
    CREATE FUNCTION claims_correction_refuse_change() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        IF OLD.status = 'published' THEN
            RAISE EXCEPTION '{MESSAGE}';
        END IF;
        RETURN NEW;
    END
    $$
    """,
    """
    CREATE TRIGGER claims_correction_published_immutable
    BEFORE UPDATE ON claims_correction
    FOR EACH ROW EXECUTE FUNCTION claims_correction_refuse_change()
    """,
]
POSTGRESQL_BACKWARD = [
    "DROP TRIGGER IF EXISTS claims_correction_published_immutable ON claims_correction",
    "DROP FUNCTION IF EXISTS claims_correction_refuse_change()",
]


class Migration(migrations.Migration):
    dependencies = [("claims", "0004_correction_chain")]

    operations = [
        migrations.RunPython(
            run_sql_for_vendor({"sqlite": SQLITE_FORWARD, "postgresql": POSTGRESQL_FORWARD}),
            run_sql_for_vendor({"sqlite": SQLITE_BACKWARD, "postgresql": POSTGRESQL_BACKWARD}),
        ),
    ]
