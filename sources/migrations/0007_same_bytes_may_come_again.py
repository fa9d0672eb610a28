"""
A source may be given bytes it had before (changed, then put back): the digest
is no longer unique per source, only looked up by it.

SQLite drops a unique constraint by rebuilding the table, which drops its
triggers: the immutability trigger is created again after each rebuild.
Undoing this fails while a source holds the same bytes twice.
"""

import importlib

from django.db import migrations, models

from factcheck.migration_sql import run_sql_for_vendor

trigger = importlib.import_module("sources.migrations.0002_sourceversion_immutable_trigger")
recreate_sqlite_trigger = run_sql_for_vendor(
    {"sqlite": trigger.SQLITE_BACKWARD + trigger.SQLITE_FORWARD}
)


class Migration(migrations.Migration):
    dependencies = [
        ("sources", "0006_quotation_end_page"),
    ]

    operations = [
        # Unapplied last, after the constraint is back (and the table rebuilt again).
        migrations.RunPython(migrations.RunPython.noop, recreate_sqlite_trigger),
        migrations.RemoveConstraint(
            model_name="sourceversion",
            name="sourceversion_sha256_unique_per_source",
        ),
        migrations.AddIndex(
            model_name="sourceversion",
            index=models.Index(fields=["source", "sha256"], name="sourceversion_source_sha256"),
        ),
        migrations.RunPython(recreate_sqlite_trigger, migrations.RunPython.noop),
    ]
