"""
PostgreSQL: a trigram index (``pg_trgm``) on the text of the search entries in
a language written without spaces between words (Chinese, Japanese), which
the search reads with ``ILIKE`` for a word inside a run of characters:
PostgreSQL's parser makes a whole run one token, so "東京" is not a word of
"東京都の人口は増えた" in ``document``. Partial: only those entries, a small part
of a desk's. The condition names the languages of factcheck.languages written
without spaces at the time of writing; the search writes it the same way.

Built CONCURRENTLY, so that writes go on while it is built. Where ``pg_trgm``
cannot be installed (see sources.0008), the index is left out with a warning
and such words are still found, by reading those entries one by one.
"""

import sys

from django.db import DatabaseError, migrations, transaction

INDEX = "factcheck_searchentry_inside_trigram"


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
                    "Searching Chinese or Japanese text for a word inside a run of characters "
                    "will read every such passage; install pg_trgm as a superuser and run this "
                    "migration again (migrate factcheck 0011, then migrate) for its index.\n"
                )
                return
    # A build that failed half-way leaves an INVALID index that IF NOT EXISTS would keep.
    schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}")
    schema_editor.execute(
        f"CREATE INDEX CONCURRENTLY {INDEX} ON factcheck_searchentry "
        "USING gin ((title || ' ' || body) gin_trgm_ops) WHERE language IN ('ja', 'zh')"
    )


def drop_index(apps, schema_editor):
    # The extension stays: sources' quotations use it too.
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    # CREATE INDEX CONCURRENTLY cannot run in a transaction.
    atomic = False

    dependencies = [("factcheck", "0011_search_in_each_language")]

    operations = [migrations.RunPython(create_index, drop_index)]
