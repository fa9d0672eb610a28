"""
PostgreSQL: a trigram index (``pg_trgm``) on the quoted words, which the
evidence picker's case-insensitive regular expression uses
(factcheck.text_match.containing_words). Without it, words found in no quotation
cost a scan of every one: 33–74 ms on the scale dataset's 60,000, 4–5 ms with it.

Built CONCURRENTLY, so that a desk with years of quotations keeps writing while
it is built. ``pg_trgm`` is a trusted extension (PostgreSQL 13 and later): a
role that may create objects in the database may install it. Where it cannot
be installed, the index is left out with a warning and the picker still works,
by the scan. SQLite has no such index; its picker scans, as before.
"""

import sys

from django.db import DatabaseError, migrations, transaction

INDEX = "sources_quotation_exact_trigram"


def create_index(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'")
        if cursor.fetchone() is None:
            try:
                # In a savepoint: run inside a transaction (a test's), the refusal must
                # not leave it aborted for the statements after this one.
                with transaction.atomic(using=connection.alias):
                    cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            except DatabaseError as refused:
                sys.stderr.write(
                    f"\nWarning: the pg_trgm extension could not be installed ({refused}). "
                    "The evidence picker will scan every quotation; install pg_trgm as a "
                    "superuser and run this migration again (migrate sources 0007, then "
                    "migrate) for its index.\n"
                )
                return
    # A build that failed half-way leaves an INVALID index that IF NOT EXISTS would keep.
    schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}")
    schema_editor.execute(
        f"CREATE INDEX CONCURRENTLY {INDEX} ON sources_quotation USING gin (exact gin_trgm_ops)"
    )


def drop_index(apps, schema_editor):
    # The extension stays: something else may use it, and it costs nothing unused.
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    # CREATE INDEX CONCURRENTLY cannot run in a transaction.
    atomic = False

    dependencies = [("sources", "0007_same_bytes_may_come_again")]

    operations = [migrations.RunPython(create_index, drop_index)]
