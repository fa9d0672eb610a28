"""
Guard a source version's uploaded content in the database: an UPDATE that
changes the file, media type, size, digest, number, source, uploader or upload
time, or that changes the text, page offsets or sections of a version whose
extraction is ready, is
refused by a trigger on SQLite and PostgreSQL.
"""

from django.db import migrations

from factcheck.migration_sql import run_sql_for_vendor

IMMUTABLE_COLUMNS = [
    "source_id",
    "number",
    "file",
    "media_type",
    "byte_size",
    "sha256",
    "original_filename",
    "uploaded_by_id",
    "uploaded_at",
]
MESSAGE = "a saved source version cannot be changed: upload a new version instead"

sqlite_changed = " OR ".join(f"OLD.{column} IS NOT NEW.{column}" for column in IMMUTABLE_COLUMNS)
SQLITE_FORWARD = [
    f"""
    CREATE TRIGGER sources_sourceversion_immutable
    BEFORE UPDATE ON sources_sourceversion
    WHEN {sqlite_changed}
        OR (OLD.extraction_status = 'ready' AND (
            OLD.extracted_text IS NOT NEW.extracted_text
            OR OLD.page_offsets IS NOT NEW.page_offsets
            OR OLD.sections IS NOT NEW.sections))
    BEGIN
        SELECT RAISE(ABORT, '{MESSAGE}');
    END
    """,
]
SQLITE_BACKWARD = ["DROP TRIGGER IF EXISTS sources_sourceversion_immutable"]

postgresql_changed = " OR ".join(
    f"NEW.{column} IS DISTINCT FROM OLD.{column}" for column in IMMUTABLE_COLUMNS
)
POSTGRESQL_FORWARD = [
    f"""
    CREATE FUNCTION sources_sourceversion_refuse_change() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        IF {postgresql_changed}
            OR (OLD.extraction_status = 'ready' AND (
                NEW.extracted_text IS DISTINCT FROM OLD.extracted_text
                OR NEW.page_offsets IS DISTINCT FROM OLD.page_offsets
                OR NEW.sections IS DISTINCT FROM OLD.sections))
        THEN
            RAISE EXCEPTION '{MESSAGE}';
        END IF;
        RETURN NEW;
    END
    $$
    """,
    """
    CREATE TRIGGER sources_sourceversion_immutable
    BEFORE UPDATE ON sources_sourceversion
    FOR EACH ROW EXECUTE FUNCTION sources_sourceversion_refuse_change()
    """,
]
POSTGRESQL_BACKWARD = [
    "DROP TRIGGER IF EXISTS sources_sourceversion_immutable ON sources_sourceversion",
    "DROP FUNCTION IF EXISTS sources_sourceversion_refuse_change()",
]


class Migration(migrations.Migration):
    dependencies = [("sources", "0001_initial")]

    operations = [
        migrations.RunPython(
            run_sql_for_vendor({"sqlite": SQLITE_FORWARD, "postgresql": POSTGRESQL_FORWARD}),
            run_sql_for_vendor({"sqlite": SQLITE_BACKWARD, "postgresql": POSTGRESQL_BACKWARD}),
        ),
    ]
