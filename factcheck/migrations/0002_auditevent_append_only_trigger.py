"""
Make the audit trail append-only in the database itself, not only in the model:
an UPDATE of an audit event is refused by a trigger on SQLite and PostgreSQL.

DELETE is refused by the model and the admin; a database trigger for it would
also refuse the table flush that transactional tests and ``manage.py flush`` do.
"""

from django.db import migrations

from factcheck.migration_sql import run_sql_for_vendor

SQLITE_FORWARD = [
    """
    CREATE TRIGGER factcheck_auditevent_append_only
    BEFORE UPDATE ON factcheck_auditevent
    BEGIN
        SELECT RAISE(ABORT, 'audit events are append-only: an update was refused');
    END
    """,
]
SQLITE_BACKWARD = ["DROP TRIGGER IF EXISTS factcheck_auditevent_append_only"]

POSTGRESQL_FORWARD = [
    """
    CREATE FUNCTION factcheck_auditevent_refuse_update() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'audit events are append-only: an update was refused';
    END
    $$
    """,
    """
    CREATE TRIGGER factcheck_auditevent_append_only
    BEFORE UPDATE ON factcheck_auditevent
    FOR EACH ROW EXECUTE FUNCTION factcheck_auditevent_refuse_update()
    """,
]
POSTGRESQL_BACKWARD = [
    "DROP TRIGGER IF EXISTS factcheck_auditevent_append_only ON factcheck_auditevent",
    "DROP FUNCTION IF EXISTS factcheck_auditevent_refuse_update()",
]


class Migration(migrations.Migration):
    dependencies = [("factcheck", "0001_initial")]

    operations = [
        migrations.RunPython(
            run_sql_for_vendor({"sqlite": SQLITE_FORWARD, "postgresql": POSTGRESQL_FORWARD}),
            run_sql_for_vendor({"sqlite": SQLITE_BACKWARD, "postgresql": POSTGRESQL_BACKWARD}),
        ),
    ]
